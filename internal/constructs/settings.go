package constructs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscertificatemanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsroute53"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/names"
)

// The production settings of a stage (config.json's operation keys): the
// function-level ones, which ApplyFunctionSettings gives any function, and
// the REST API's, applied by the construct to its API.

// REST API endpoint types a Config accepts in EndpointType.
const (
	EndpointEdge     = config.EndpointEdge
	EndpointRegional = config.EndpointRegional
	EndpointPrivate  = config.EndpointPrivate
)

// CustomDomain is a domain name of the stage's REST API (Config.CustomDomain).
type CustomDomain = config.CustomDomain

// AWS managed policies a managed execution role gets for the settings that need them.
const (
	// VPCAccessPolicy lets the function create the network interfaces it
	// reaches the VPC through (SubnetIDs).
	VPCAccessPolicy = "service-role/AWSLambdaVPCAccessExecutionRole"
	// XRayWritePolicy lets the function send trace segments (XRay).
	XRayWritePolicy = "AWSXRayDaemonWriteAccess"
)

// LogGroupPrefix starts the name of a Lambda function's log group:
// /aws/lambda/<function name>.
const LogGroupPrefix = "/aws/lambda/"

// setOperations copies a resolved stage's production settings into c,
// reading the REST API's resource policy file.
func (c *Config) setOperations(st *config.Stage) error {
	o := st.Operations
	pol, err := o.LoadAPIGatewayPolicy()
	if err != nil {
		return err
	}
	c.ReservedConcurrency = o.ReservedConcurrency
	c.Layers = slices.Clone(o.Layers)
	c.SubnetIDs = slices.Clone(o.SubnetIDs)
	c.SecurityGroupIDs = slices.Clone(o.SecurityGroupIDs)
	c.XRay = o.XRay
	c.LogRetentionDays = o.LogRetentionInDays
	c.EndpointType = o.APIGatewayEndpointType
	c.APIPolicy = pol
	c.MinimumCompressionSize = o.MinimumCompressionSize
	if o.APIGatewayCustomDomain != nil {
		d := *o.APIGatewayCustomDomain
		c.CustomDomain = &d
	}
	c.NoAccessLog = o.NoAccessLog
	return nil
}

// checkOperations reports a production setting AWS would refuse, for a
// Config built in Go rather than read from config.json.
func (c *Config) checkOperations() error {
	var errs []error
	if c.ReservedConcurrency != nil && *c.ReservedConcurrency < 0 {
		errs = append(errs, fmt.Errorf("reserved concurrency %d is negative", *c.ReservedConcurrency))
	}
	if len(c.Layers) > config.MaxLayers {
		errs = append(errs, fmt.Errorf("%d layers: Lambda allows %d", len(c.Layers), config.MaxLayers))
	}
	if (len(c.SubnetIDs) == 0) != (len(c.SecurityGroupIDs) == 0) {
		errs = append(errs, errors.New("a VPC needs both SubnetIDs and SecurityGroupIDs"))
	}
	if c.LogRetentionDays != 0 && !slices.Contains(config.LogRetentionDays, c.LogRetentionDays) {
		errs = append(errs, fmt.Errorf("log retention of %d days: CloudWatch Logs accepts %v", c.LogRetentionDays, config.LogRetentionDays))
	}
	switch c.EndpointType {
	case "", EndpointEdge, EndpointRegional:
	case EndpointPrivate:
		if c.APIPolicy == nil {
			errs = append(errs, errors.New("a PRIVATE endpoint needs APIPolicy, the REST API's resource policy"))
		}
		if c.CustomDomain != nil {
			errs = append(errs, errors.New("a PRIVATE endpoint takes no CustomDomain here"))
		}
	default:
		errs = append(errs, fmt.Errorf("endpoint type %q: use %s, %s or %s", c.EndpointType, EndpointEdge, EndpointRegional, EndpointPrivate))
	}
	if s := c.MinimumCompressionSize; s != nil && (*s < 0 || *s > config.MaxMinimumCompressionSize) {
		errs = append(errs, fmt.Errorf("minimum compression size %d is out of API Gateway's range 0 to %d bytes", *s, config.MaxMinimumCompressionSize))
	}
	if d := c.CustomDomain; d != nil && (d.DomainName == "" || d.CertificateArn == "") {
		errs = append(errs, errors.New("a custom domain needs DomainName and CertificateArn"))
	}
	return errors.Join(errs...)
}

// ApplyFunctionSettings gives fn the function-level production settings
// of cfg: reserved concurrency, layers, VPC subnets and security groups,
// X-Ray active tracing, a log group the stack owns
// (/aws/lambda/<function name>, kept LogRetentionDays days and deleted
// with the stack) and the access-line switch (FRAMEWORK_ACCESS_LOG=false
// when NoAccessLog). The function's role gets the AWS managed policies the
// VPC and X-Ray need; an imported role is left as it is (give it
// VPCAccessPolicy and XRayWritePolicy yourself). It returns the log group,
// or nil when LogRetentionDays is 0. Settings left at their zero value add
// nothing to the template.
func ApplyFunctionSettings(fn awslambda.Function, cfg *Config) awslogs.CfnLogGroup {
	if cfg == nil {
		return nil
	}
	vpc := len(cfg.SubnetIDs) > 0 && len(cfg.SecurityGroupIDs) > 0
	if cfg.ReservedConcurrency != nil || len(cfg.Layers) > 0 || vpc || cfg.XRay {
		cfn := fn.Node().DefaultChild().(awslambda.CfnFunction)
		if cfg.ReservedConcurrency != nil {
			cfn.SetReservedConcurrentExecutions(jsii.Number(float64(*cfg.ReservedConcurrency)))
		}
		if len(cfg.Layers) > 0 {
			cfn.SetLayers(jsii.Strings(cfg.Layers...))
		}
		if vpc {
			cfn.SetVpcConfig(&awslambda.CfnFunction_VpcConfigProperty{
				SubnetIds:        jsii.Strings(cfg.SubnetIDs...),
				SecurityGroupIds: jsii.Strings(cfg.SecurityGroupIDs...),
			})
		}
		if cfg.XRay {
			cfn.SetTracingConfig(&awslambda.CfnFunction_TracingConfigProperty{Mode: jsii.String("Active")})
		}
	}
	if vpc || cfg.XRay {
		role := fn.Role()
		if vpc {
			role.AddManagedPolicy(awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String(VPCAccessPolicy)))
		}
		if cfg.XRay {
			role.AddManagedPolicy(awsiam.ManagedPolicy_FromAwsManagedPolicyName(jsii.String(XRayWritePolicy)))
		}
	}
	if cfg.NoAccessLog {
		fn.AddEnvironment(jsii.String(names.EnvAccessLog), jsii.String("false"), nil)
	}
	if cfg.LogRetentionDays == 0 {
		return nil
	}
	lg := awslogs.NewCfnLogGroup(fn, jsii.String("LogGroup"), &awslogs.CfnLogGroupProps{
		LogGroupName:    awscdk.Fn_Join(jsii.String(""), &[]*string{jsii.String(LogGroupPrefix), fn.FunctionName()}),
		RetentionInDays: jsii.Number(float64(cfg.LogRetentionDays)),
	})
	// Deleted with the stack, so that `framework destroy` leaves no logs behind.
	lg.ApplyRemovalPolicy(awscdk.RemovalPolicy_DESTROY, nil)
	return lg
}

// apiSettings sets the REST API's production settings in its props,
// before the API is created: endpoint type, resource policy, compression
// and X-Ray tracing on the stage.
func apiSettings(props *awsapigateway.SpecRestApiProps, cfg *Config) {
	if cfg.EndpointType != "" && cfg.EndpointType != EndpointEdge {
		props.EndpointTypes = &[]awsapigateway.EndpointType{awsapigateway.EndpointType(cfg.EndpointType)}
	}
	if cfg.APIPolicy != nil {
		props.Policy = awsiam.PolicyDocument_FromJson(cfg.APIPolicy)
	}
	if cfg.MinimumCompressionSize != nil {
		props.MinCompressionSize = awscdk.Size_Bytes(jsii.Number(float64(*cfg.MinimumCompressionSize)))
	}
	if cfg.XRay {
		if props.DeployOptions == nil {
			props.DeployOptions = &awsapigateway.StageOptions{}
		}
		props.DeployOptions.TracingEnabled = jsii.Bool(true)
	}
}

// addCustomDomain adds the stage's custom domain, mapped to the API's
// stage, and its alias record when a hosted zone is named; it returns nil
// when the Config has no domain.
func (a *App) addCustomDomain(cfg *Config) awsapigateway.DomainName {
	d := cfg.CustomDomain
	if d == nil {
		return nil
	}
	endpoint := awsapigateway.EndpointType_EDGE
	if cfg.EndpointType == EndpointRegional {
		endpoint = awsapigateway.EndpointType_REGIONAL
	}
	tls := awsapigateway.SecurityPolicy_TLS_1_2
	if d.TLSVersion == config.TLS10 {
		tls = awsapigateway.SecurityPolicy_TLS_1_0
	}
	props := &awsapigateway.DomainNameProps{
		DomainName:     jsii.String(d.DomainName),
		Certificate:    awscertificatemanager.Certificate_FromCertificateArn(a.Construct, jsii.String("Certificate"), jsii.String(d.CertificateArn)),
		EndpointType:   endpoint,
		SecurityPolicy: tls,
		Mapping:        a.RestAPI,
	}
	if d.BasePath != "" {
		props.BasePath = jsii.String(d.BasePath)
	}
	domain := awsapigateway.NewDomainName(a.Construct, jsii.String("Domain"), props)
	a.addDomainRecord(d, domain.DomainNameAliasDomainName(), domain.DomainNameAliasHostedZoneId())
	return domain
}

// addDomainRecord adds the alias record (type A) of custom domain d to
// the hosted zone it names, pointing at the API Gateway domain's target
// dnsName in zone zoneID; nothing when d names no hosted zone.
func (a *App) addDomainRecord(d *config.CustomDomain, dnsName, zoneID *string) {
	if d.HostedZoneID == "" && d.HostedZoneName == "" {
		return
	}
	rec := &awsroute53.CfnRecordSetProps{
		Name:        jsii.String(d.DomainName + "."),
		Type:        jsii.String("A"),
		AliasTarget: &awsroute53.CfnRecordSet_AliasTargetProperty{DnsName: dnsName, HostedZoneId: zoneID},
	}
	if d.HostedZoneID != "" {
		rec.HostedZoneId = jsii.String(d.HostedZoneID)
	} else {
		rec.HostedZoneName = jsii.String(strings.TrimSuffix(d.HostedZoneName, ".") + ".")
	}
	awsroute53.NewCfnRecordSet(a.Construct, jsii.String("DomainRecord"), rec)
}
