package cfnstandin

import (
	"fmt"
	"slices"
	"strings"
)

// Resource types whose physical IDs and attributes the stand-in models
// after CloudFormation's: a stage's log group, custom domain, base path
// mapping and alias record, and the HTTP API and function URL front doors. Their creation checks what CloudFormation
// checks of them, so that a template the framework gets wrong fails here
// as it would on AWS.

// httpAPIMethods are the methods of an HTTP API route key.
var httpAPIMethods = []string{"ANY", "GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"}

// logRetentionDays are the retention values CloudWatch Logs accepts.
var logRetentionDays = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

// namedPhysicalID returns the physical ID CloudFormation gives a resource
// of these types, which is a name computed from its properties.
func (s *Server) namedPhysicalID(st *stack, typ string, props map[string]any) (string, bool) {
	switch typ {
	case "AWS::Logs::LogGroup":
		if v, ok := props["LogGroupName"]; ok {
			return s.eval(st, v), true
		}
	case "AWS::ApiGateway::DomainName":
		return s.eval(st, props["DomainName"]), true
	case "AWS::Route53::RecordSet":
		return strings.TrimSuffix(s.eval(st, props["Name"]), "."), true
	case "AWS::ApiGateway::BasePathMapping":
		return s.eval(st, props["DomainName"]) + "/" + cmpOr(s.eval(st, props["BasePath"]), "(none)"), true
	case "AWS::ApiGatewayV2::Api":
		return shortHash(st.name + "/" + s.eval(st, props["Name"]) + "/" + newID()), true
	case "AWS::ApiGatewayV2::Stage":
		return s.eval(st, props["StageName"]), true
	case "AWS::ApiGatewayV2::DomainName":
		return s.eval(st, props["DomainName"]), true
	case "AWS::Lambda::Url":
		return s.eval(st, props["TargetFunctionArn"]), true // Ref of a function URL is its function's ARN
	}
	return "", false
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// checkResource returns the reason CloudFormation would give for failing
// to create r, or nil.
func (s *Server) checkResource(st *stack, r *Resource) error {
	p := r.Properties
	switch r.Type {
	case "AWS::Logs::LogGroup":
		if v, ok := p["RetentionInDays"]; ok {
			f, isNum := v.(float64)
			if !isNum || !slices.Contains(logRetentionDays, int(f)) {
				return fmt.Errorf("Resource handler returned message: \"Invalid value for RetentionInDays: %v\" (HandlerErrorCode: InvalidRequest)", v)
			}
		}
		for _, other := range s.stacks {
			for _, o := range other.resources {
				if o.Type == r.Type && o.PhysicalID == r.PhysicalID {
					return fmt.Errorf("Resource of type 'AWS::Logs::LogGroup' with identifier '%s' already exists. (HandlerErrorCode: AlreadyExists)", r.PhysicalID)
				}
			}
		}
	case "AWS::ApiGateway::DomainName":
		types := s.evalList(st, p["EndpointConfiguration"], "Types")
		regional := slices.Contains(types, "REGIONAL")
		switch {
		case regional && p["RegionalCertificateArn"] == nil:
			return fmt.Errorf("Resource handler returned message: \"A regional certificate is required for a REGIONAL domain name\" (HandlerErrorCode: InvalidRequest)")
		case !regional && p["CertificateArn"] == nil:
			return fmt.Errorf("Resource handler returned message: \"A certificate is required for an EDGE domain name\" (HandlerErrorCode: InvalidRequest)")
		case !regional && !strings.Contains(s.eval(st, p["CertificateArn"]), ":us-east-1:"):
			return fmt.Errorf("Resource handler returned message: \"Invalid certificate ARN: %s. Certificate must be in 'us-east-1'.\" (HandlerErrorCode: InvalidRequest)", s.eval(st, p["CertificateArn"]))
		}
	case "AWS::Route53::RecordSet":
		_, id := p["HostedZoneId"]
		_, name := p["HostedZoneName"]
		if id == name {
			return fmt.Errorf("Invalid request: Expected exactly one of [HostedZoneId, HostedZoneName], but found %s", map[bool]string{true: "both", false: "none"}[id])
		}
	case "AWS::ApiGateway::BasePathMapping":
		if s.eval(st, p["RestApiId"]) == "" || s.eval(st, p["DomainName"]) == "" {
			return fmt.Errorf("Invalid request: RestApiId and DomainName must name existing resources")
		}
	case "AWS::ApiGatewayV2::Route":
		key := s.eval(st, p["RouteKey"])
		if s.webSocketAPI(st, p) {
			if key == "" || strings.HasPrefix(key, "$") && !slices.Contains([]string{"$connect", "$disconnect", "$default"}, key) {
				return fmt.Errorf("Resource handler returned message: \"Invalid route key %q for a WebSocket API\" (HandlerErrorCode: InvalidRequest)", key)
			}
		} else if method, path, ok := strings.Cut(key, " "); key != "$default" && (!ok || !slices.Contains(httpAPIMethods, method) || !strings.HasPrefix(path, "/")) {
			return fmt.Errorf("Resource handler returned message: \"Invalid route key %q: use $default or METHOD /path\" (HandlerErrorCode: InvalidRequest)", key)
		}
		if s.eval(st, p["ApiId"]) == "" {
			return fmt.Errorf("Invalid request: ApiId must name an existing API")
		}
	case "AWS::ApiGatewayV2::Integration":
		if s.eval(st, p["IntegrationType"]) == "AWS_PROXY" && s.eval(st, p["PayloadFormatVersion"]) == "" && !s.webSocketAPI(st, p) {
			return fmt.Errorf("Resource handler returned message: \"PayloadFormatVersion is required for AWS_PROXY integrations of HTTP APIs\" (HandlerErrorCode: InvalidRequest)")
		}
	case "AWS::ApiGatewayV2::Stage", "AWS::ApiGatewayV2::ApiMapping":
		if s.eval(st, p["ApiId"]) == "" {
			return fmt.Errorf("Invalid request: ApiId must name an existing API")
		}
	case "AWS::Lambda::Url":
		if a := s.eval(st, p["AuthType"]); a != "NONE" && a != "AWS_IAM" {
			return fmt.Errorf("Resource handler returned message: \"1 validation error detected: Value '%s' at 'authType' failed to satisfy constraint: Member must satisfy enum value set: [NONE, AWS_IAM]\" (HandlerErrorCode: InvalidRequest)", a)
		}
	}
	return nil
}

// evalList evaluates the list under key of an object property.
func (s *Server) evalList(st *stack, obj any, key string) []string {
	m, _ := obj.(map[string]any)
	l, _ := m[key].([]any)
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = s.eval(st, v)
	}
	return out
}

// typeAttr returns the attributes CloudFormation documents for these types.
func (s *Server) typeAttr(r *Resource, attr string) (string, bool) {
	if v, ok := s.declaredAttr(r, attr); ok {
		return v, true
	}
	switch r.Type + "." + attr {
	case "AWS::Logs::LogGroup.Arn":
		return fmt.Sprintf("arn:aws:logs:%s:%s:log-group:%s:*", s.Region, s.Account, r.PhysicalID), true
	case "AWS::ApiGateway::DomainName.DistributionDomainName":
		return "d" + shortHash(r.PhysicalID) + ".cloudfront.net", true
	case "AWS::ApiGateway::DomainName.DistributionHostedZoneId":
		return "Z2FDTNDATAQYW2", true // CloudFront's, the same everywhere
	case "AWS::ApiGateway::DomainName.RegionalDomainName":
		return "d-" + shortHash(r.PhysicalID) + ".execute-api." + s.Region + ".amazonaws.com", true
	case "AWS::ApiGateway::DomainName.RegionalHostedZoneId", "AWS::ApiGatewayV2::DomainName.RegionalHostedZoneId":
		return "Z1UJRXOUMOOFQ8", true // API Gateway's in us-east-1
	case "AWS::ApiGatewayV2::DomainName.RegionalDomainName":
		return "d-" + shortHash(r.PhysicalID) + ".execute-api." + s.Region + ".amazonaws.com", true
	case "AWS::ApiGatewayV2::Api.ApiEndpoint":
		if r.Properties["ProtocolType"] == "WEBSOCKET" {
			return "wss://" + r.PhysicalID + ".execute-api." + s.Region + ".amazonaws.com", true
		}
		return "https://" + r.PhysicalID + ".execute-api." + s.Region + ".amazonaws.com", true
	case "AWS::Lambda::Url.FunctionUrl":
		return "https://" + shortHash(r.PhysicalID) + shortHash(r.PhysicalID+"/url") + ".lambda-url." + s.Region + ".on.aws/", true
	}
	return "", false
}

// shortHash is a stable 10-character lower-case name derived from s.
func shortHash(s string) string {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	const digits = "abcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 10)
	for i := range out {
		out[i] = digits[h%36]
		h /= 36
	}
	return string(out)
}

// webSocketAPI reports whether the ApiId of props names a WebSocket API
// of the stack (a route's or integration's rules differ from an HTTP
// API's).
func (s *Server) webSocketAPI(st *stack, props map[string]any) bool {
	id := s.eval(st, props["ApiId"])
	for _, r := range st.resources {
		if r.Type == "AWS::ApiGatewayV2::Api" && r.PhysicalID == id {
			return r.Properties["ProtocolType"] == "WEBSOCKET"
		}
	}
	return false
}
