package config

import (
	"fmt"
	"slices"
)

// merge applies one layer (the top level, then the stage) of
// operation settings: a key the layer sets replaces the value whole.
func (o *Operations) merge(l OperationSettings, configPath, policyKey string) {
	if l.ReservedConcurrency != nil {
		o.ReservedConcurrency = l.ReservedConcurrency
	}
	if l.Layers != nil {
		o.Layers = slices.Clone(l.Layers)
	}
	if l.SubnetIDs != nil {
		o.SubnetIDs = slices.Clone(l.SubnetIDs)
	}
	if l.SecurityGroupIDs != nil {
		o.SecurityGroupIDs = slices.Clone(l.SecurityGroupIDs)
	}
	if l.XRay != nil {
		o.XRay = *l.XRay
	}
	if l.LogRetentionInDays != nil {
		o.LogRetentionInDays = *l.LogRetentionInDays
	}
	if l.APIGatewayEndpointType != nil {
		o.APIGatewayEndpointType = *l.APIGatewayEndpointType
	}
	if l.APIGatewayPolicyFile != nil {
		o.APIGatewayPolicyFile, o.configPath, o.policyKey = *l.APIGatewayPolicyFile, configPath, policyKey
	}
	if l.MinimumCompressionSize != nil {
		o.MinimumCompressionSize = l.MinimumCompressionSize
	}
	if l.APIGatewayCustomDomain != nil {
		d := *l.APIGatewayCustomDomain
		o.APIGatewayCustomDomain = &d
	}
	if l.AccessLog != nil {
		o.NoAccessLog = !*l.AccessLog
	}
	if o.APIGatewayEndpointType == EndpointEdge {
		o.APIGatewayEndpointType = "" // the default: the zero value
	}
}

// resolveOperations merges the operation settings of the top level and of
// a stage into s, then checks the rules that span keys. keyOf names a
// key's path as resolve does.
func resolveOperations(path, name string, s *Stage, top, st OperationSettings, keyOf func(string, bool) string) []error {
	o := &s.Operations
	o.merge(top, path, keyOf("api_gateway_policy_file", false))
	o.merge(st, path, keyOf("api_gateway_policy_file", true))

	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, &Error{Path: path, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	switch {
	case len(o.SubnetIDs) > 0 && len(o.SecurityGroupIDs) == 0:
		fail(keyOf("subnet_ids", st.SubnetIDs != nil), "stage %q puts the function in subnets without security_group_ids: Lambda needs both to reach a VPC; add security_group_ids", name)
	case len(o.SecurityGroupIDs) > 0 && len(o.SubnetIDs) == 0:
		fail(keyOf("security_group_ids", st.SecurityGroupIDs != nil), "stage %q gives security groups without subnet_ids: Lambda needs both to reach a VPC; add subnet_ids", name)
	}
	typ := o.EndpointType()
	if s.APIType != "" {
		typ = EndpointRegional // an HTTP API is regional; other endpoint types are refused by resolveFrontDoor
	}
	inStage := st.APIGatewayEndpointType != nil
	if typ == EndpointPrivate && o.APIGatewayPolicyFile == "" {
		fail(keyOf("api_gateway_endpoint_type", inStage), "PRIVATE for stage %q requires api_gateway_policy_file: a private REST API answers only requests its resource policy allows (for example from your VPC endpoint)", name)
	}
	if d := o.APIGatewayCustomDomain; d != nil {
		dkey := keyOf("api_gateway_custom_domain", st.APIGatewayCustomDomain != nil)
		switch m := certARNRE.FindStringSubmatch(d.CertificateArn); {
		case typ == EndpointPrivate:
			fail(dkey, "stage %q has a PRIVATE endpoint: this framework sets custom domains on EDGE and REGIONAL endpoints only; remove the domain or change api_gateway_endpoint_type", name)
		case typ == EndpointEdge && m != nil && m[1] != "us-east-1":
			fail(join(dkey, "certificate_arn"), "the certificate is in %s, but an EDGE endpoint (the default) is served by CloudFront, which takes certificates from us-east-1 only: use a certificate from us-east-1, or set api_gateway_endpoint_type to REGIONAL with a certificate in the stack's region", m[1])
		}
	}
	return errs
}
