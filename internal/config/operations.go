package config

// operationKeys are the settings that run a deployed stage in production
// (concurrency, layers, VPC, tracing, logs, the REST API's endpoint and
// domain). They are allowed at the top level and in a stage, like
// settingKeys; a stage's value replaces the top level's whole.
var operationKeys = perStageKeys(true)

// customDomainKeys are the keys of api_gateway_custom_domain.
var customDomainKeys = nestedKeyNames("api_gateway_custom_domain")

// REST API endpoint types (api_gateway_endpoint_type).
const (
	EndpointEdge     = "EDGE"     // through CloudFront; the default
	EndpointRegional = "REGIONAL" // in the stack's region
	EndpointPrivate  = "PRIVATE"  // reachable only from VPC endpoints; needs a resource policy
)

// TLS versions of a custom domain (api_gateway_custom_domain.tls_version),
// API Gateway's security policies.
const (
	TLS10 = "TLS_1_0"
	TLS12 = "TLS_1_2" // the default
)

// Limits of the operation settings, as AWS enforces them.
const (
	MaxLayers                 = 5        // layers per function
	MaxSubnets                = 16       // subnets per function
	MaxSecurityGroups         = 5        // security groups per function
	MaxMinimumCompressionSize = 10485760 // bytes
)

// LogRetentionDays are the retention periods CloudWatch Logs accepts, in days.
var LogRetentionDays = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

// OperationSettings are the keys that run a deployed stage in production,
// allowed both at the top level and in a stage. A nil pointer or slice
// means the key is absent.
type OperationSettings struct {
	ReservedConcurrency    *int          `json:"reserved_concurrency,omitempty"`
	Layers                 []string      `json:"layers,omitzero"`
	SubnetIDs              []string      `json:"subnet_ids,omitzero"`
	SecurityGroupIDs       []string      `json:"security_group_ids,omitzero"`
	XRay                   *bool         `json:"xray,omitempty"`
	LogRetentionInDays     *int          `json:"log_retention_in_days,omitempty"`
	APIGatewayEndpointType *string       `json:"api_gateway_endpoint_type,omitempty"`
	APIGatewayPolicyFile   *string       `json:"api_gateway_policy_file,omitempty"`
	MinimumCompressionSize *int          `json:"minimum_compression_size,omitempty"`
	APIGatewayCustomDomain *CustomDomain `json:"api_gateway_custom_domain,omitempty"`
	AccessLog              *bool         `json:"access_log,omitempty"`
}

// CustomDomain is api_gateway_custom_domain: a domain name of the
// stage's REST API.
type CustomDomain struct {
	// DomainName is the domain, such as api.example.com.
	DomainName string `json:"domain_name"`
	// CertificateArn is the ACM certificate of the domain; in us-east-1
	// for an EDGE endpoint, in the stack's region for a REGIONAL one.
	CertificateArn string `json:"certificate_arn"`
	// BasePath is the path under the domain the stage answers at; empty
	// means the domain's root.
	BasePath string `json:"base_path,omitempty"`
	// TLSVersion is the minimum TLS version, TLS12 (empty) or TLS10.
	TLSVersion string `json:"tls_version,omitempty"`
	// HostedZoneID and HostedZoneName name the Route 53 hosted zone that
	// gets an alias record for the domain; neither means no record.
	HostedZoneID   string `json:"hosted_zone_id,omitempty"`
	HostedZoneName string `json:"hosted_zone_name,omitempty"`
}

// URL returns the domain's base URL: https://{domain}/{base path}/.
func (d *CustomDomain) URL() string {
	if d.BasePath == "" {
		return "https://" + d.DomainName + "/"
	}
	return "https://" + d.DomainName + "/" + d.BasePath + "/"
}

// Operations are the resolved operation settings of a stage. Their zero
// value is every default: no reserved concurrency, layers, VPC, tracing or
// owned log group, an EDGE endpoint, no resource policy, no compression,
// no custom domain, access lines on.
type Operations struct {
	// ReservedConcurrency is the function's reserved concurrency; nil
	// leaves it unreserved (0 stops every invocation).
	ReservedConcurrency *int
	// Layers are the ARNs of the function's layers, in order.
	Layers []string
	// SubnetIDs and SecurityGroupIDs put the function in a VPC; both or
	// neither are set.
	SubnetIDs        []string
	SecurityGroupIDs []string
	// XRay turns on active tracing on the function and the API stage.
	XRay bool
	// LogRetentionInDays, when not 0, makes the stack own the function's
	// log group with that retention.
	LogRetentionInDays int
	// APIGatewayEndpointType is EndpointRegional or EndpointPrivate; empty
	// means EndpointEdge.
	APIGatewayEndpointType string
	// APIGatewayPolicyFile is the REST API's resource policy file as
	// written, relative to the configuration directory; see
	// LoadAPIGatewayPolicy.
	APIGatewayPolicyFile string
	// MinimumCompressionSize, when not nil, turns on response compression
	// for bodies of at least that many bytes.
	MinimumCompressionSize *int
	// APIGatewayCustomDomain is the stage's custom domain, or nil.
	APIGatewayCustomDomain *CustomDomain
	// NoAccessLog is true when access_log is false: the function writes no
	// access line per request.
	NoAccessLog bool

	// configPath and policyKey name the file and the key of
	// APIGatewayPolicyFile in errors.
	configPath, policyKey string
}

// EndpointType returns APIGatewayEndpointType with the default filled in.
func (o *Operations) EndpointType() string {
	if o.APIGatewayEndpointType == "" {
		return EndpointEdge
	}
	return o.APIGatewayEndpointType
}
