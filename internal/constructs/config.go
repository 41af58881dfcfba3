package constructs

import (
	"fmt"
	"maps"
	"strings"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/policy"
)

// Architectures a Config accepts.
const (
	ArchARM64 = config.ArchARM64 // AWS Graviton; the default
	ArchX8664 = config.ArchX8664 // Intel and AMD
)

// Config is the stage configuration of the function and the REST API: what
// a project's .framework/config.json resolves to for one stage. The zero
// value means every default.
type Config struct {
	// RoleID is the ARN or name of an existing execution role. When set,
	// the construct imports that role and creates no role or policy
	// (config.json: manage_role false with role_id).
	RoleID string
	// EnvironmentVariables are the function's environment variables.
	EnvironmentVariables map[string]string
	// MemorySize is the function's memory in MB; 0 means 128.
	MemorySize int
	// TimeoutSeconds is the function's timeout; 0 means 60.
	TimeoutSeconds int
	// Architecture is ArchARM64 (the default when empty) or ArchX8664.
	Architecture string
	// APIGatewayStage is the REST API's deployment stage, the last segment
	// of the endpoint URL; empty means the stage name.
	APIGatewayStage string
	// NoAutogenPolicy, for a construct built from a project directory, reads
	// the execution role's policy from .framework/policy.json instead of
	// generating it from the app's AWS SDK calls.
	NoAutogenPolicy bool
	// Tags are added to every taggable resource of the construct
	// (config.json: tags, the top-level map merged with the stage's).
	Tags map[string]string
	// Functions are per-function memory and timeout of event handlers and
	// plain functions, by handler name (config.json: lambda_functions).
	Functions map[string]FunctionConfig

	// The production settings (settings.go); ApplyFunctionSettings gives
	// the function-level ones to a function.

	// ReservedConcurrency is the function's reserved concurrency; nil
	// leaves it unreserved (config.json: reserved_concurrency).
	ReservedConcurrency *int
	// Layers are the ARNs of the function's layer versions (layers).
	Layers []string
	// SubnetIDs and SecurityGroupIDs put the function in a VPC; give both
	// or neither (subnet_ids, security_group_ids).
	SubnetIDs        []string
	SecurityGroupIDs []string
	// XRay turns on X-Ray active tracing on the function and the API
	// stage (xray).
	XRay bool
	// LogRetentionDays, when not 0, makes the construct own the function's
	// log group, kept that many days (log_retention_in_days).
	LogRetentionDays int
	// EndpointType is the REST API's endpoint type: EndpointEdge (empty),
	// EndpointRegional or EndpointPrivate (api_gateway_endpoint_type).
	EndpointType string
	// APIPolicy is the REST API's resource policy document, required for a
	// PRIVATE endpoint (api_gateway_policy_file's content).
	APIPolicy map[string]any
	// MinimumCompressionSize, when not nil, compresses response bodies of
	// at least that many bytes (minimum_compression_size).
	MinimumCompressionSize *int
	// CustomDomain is the stage's custom domain (api_gateway_custom_domain).
	CustomDomain *CustomDomain
	// NoAccessLog stops the function's access line per request (access_log false).
	NoAccessLog bool

	// APIType is the stage's front door: APIRest (empty, the default),
	// APIHTTP or APIFunctionURL (config.json: api_type; frontdoor.go).
	APIType string `json:",omitempty"`
	// FunctionURLAuth is the function URL's auth type with
	// APIFunctionURL: URLAuthNone (empty, the default) or URLAuthIAM
	// (function_url_auth).
	FunctionURLAuth string `json:",omitempty"`
}

// Defaults applied to a zero Config.
const (
	DefaultMemorySize     = config.DefaultLambdaMemorySize
	DefaultTimeoutSeconds = config.DefaultLambdaTimeout
)

// LoadConfig reads the project's .framework/config.json and resolves stage
// (empty means DefaultStage) into a Config, environment variables and tags
// included: the top-level maps merged with the stage's. Errors name the
// file and the key.
func LoadConfig(projectDir, stage string) (*Config, error) {
	if stage == "" {
		stage = names.DefaultStage
	}
	f, err := config.Load(projectDir)
	if err != nil {
		return nil, err
	}
	st, err := f.Stage(stage)
	if err != nil {
		return nil, err
	}
	c := configFromStage(st)
	if err := c.setOperations(st); err != nil {
		return nil, err
	}
	return c, nil
}

// configFromStage converts a resolved stage of a configuration file. It is
// the one mapping from config.json's keys to a Config, for the construct
// and for `framework synth`, `diff` and `deploy` alike.
func configFromStage(st *config.Stage) *Config {
	c := &Config{
		EnvironmentVariables: maps.Clone(st.EnvironmentVariables),
		Tags:                 maps.Clone(st.Tags),
		MemorySize:           st.LambdaMemorySize,
		TimeoutSeconds:       st.LambdaTimeout,
		Architecture:         st.Architecture,
		APIGatewayStage:      st.APIGatewayStage,
		NoAutogenPolicy:      !st.AutogenPolicy,
		APIType:              st.APIType,
		FunctionURLAuth:      st.FunctionURLAuth,
	}
	if !st.ManageRole {
		c.RoleID = st.RoleID
	}
	c.Functions = functionConfigs(st.LambdaFunctions)
	return c
}

// resolved returns c with every default filled in, or an error naming the
// value that AWS would refuse.
func (c *Config) resolved(stage string) (*Config, error) {
	out := Config{}
	if c != nil {
		out = *c
	}
	l := config.Lambda{MemorySize: out.MemorySize, Timeout: out.TimeoutSeconds, Architecture: out.Architecture}.WithDefaults()
	out.MemorySize, out.TimeoutSeconds, out.Architecture = l.MemorySize, l.Timeout, l.Architecture
	if out.APIGatewayStage == "" {
		out.APIGatewayStage = stage
	}
	if err := l.Check(); err != nil {
		return nil, err
	}
	if err := out.checkOperations(); err != nil {
		return nil, err
	}
	if err := out.checkFrontDoorConfig(); err != nil {
		return nil, err
	}
	return &out, nil
}

// PolicyDocument is an IAM policy document, in the shape of the project's
// .framework/policy.json (the framework's own policy type, which `framework
// gen-policy` prints and `framework deploy` writes).
type PolicyDocument = policy.Document

// PolicyStatement is one statement of a PolicyDocument.
type PolicyStatement = policy.Statement

// policyJSON returns the document as the JSON-shaped value CDK's
// PolicyDocument.fromJson takes, the declared resources it names
// (policy.ResourceRef) replaced by their ARNs.
func (a *App) policyJSON(d *PolicyDocument) (map[string]any, error) {
	arn := func(name string) (string, bool) {
		for n, r := range a.Resources {
			if strings.EqualFold(n, name) {
				return *r.Attrs[manifest.AttrARN], true
			}
		}
		return "", false
	}
	stmts := make([]any, 0, len(d.Statement))
	for _, s := range d.Statement {
		res := make([]any, len(s.Resource))
		for i, r := range s.Resource {
			v, err := policy.ReplaceResourceRefs(r, arn)
			if err != nil {
				return nil, fmt.Errorf("the role's policy, statement %q: %w", s.Sid, err)
			}
			res[i] = v
		}
		m := map[string]any{"Effect": s.Effect, "Action": strs(s.Action), "Resource": res}
		if s.Sid != "" {
			m["Sid"] = s.Sid
		}
		stmts = append(stmts, m)
	}
	v := d.Version
	if v == "" {
		v = policy.PolicyVersion
	}
	return map[string]any{"Version": v, "Statement": stmts}, nil
}

func strs(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}
