package config

import (
	"slices"
	"strconv"
)

// This file is the table of the keys of .framework/config.json. The parser
// reads only the keys listed here (any other is refused as unknown, see
// parse.go), and the configuration reference (docs/config.md) and the
// JSON Schema (docs/config.schema.json) are generated from it
// (internal/gendocs), so the parser, the reference and the schema cannot
// drift apart. A new key is a row here and a case in the parser's switch;
// TestKeysTableMatchesParser fails until both are there.

// Scope says where a key may be written.
type Scope int

const (
	// TopLevel keys are written at the top level of the file only.
	TopLevel Scope = iota
	// PerStage keys are written at the top level (the default of every
	// stage) and in a stage (stages.<name>), whose value wins.
	PerStage
	// Nested keys are written inside the value of another key.
	Nested
)

// Type is the JSON type of a key's value.
type Type string

const (
	TypeString     Type = "string"
	TypeBool       Type = "boolean"
	TypeInteger    Type = "integer"
	TypeNumber     Type = "number"
	TypeStringMap  Type = "object of strings"
	TypeStringList Type = "array of strings"
	TypeObject     Type = "object"
	// TypeObjectMap is an object whose keys are names the user chooses
	// (NamePattern) and whose values are objects of the keys Keys.
	TypeObjectMap Type = "object of objects"
)

// Key describes one key of the configuration file.
type Key struct {
	// Name is the key as written in the file.
	Name string
	// Scope says where the key may be written.
	Scope Scope
	// Production marks the keys that run a deployed stage in production
	// (concurrency, layers, VPC, tracing, logs, the front door and the
	// REST API's endpoint and domain), listed apart in messages.
	Production bool
	// Type is the JSON type of the value.
	Type Type
	// Default is the value used when the key is absent, as the reference
	// shows it ("" for none); DefaultJSON is the same as a JSON value for
	// the schema, nil when the default is not one value.
	Default     string
	DefaultJSON any
	// Doc says what the key does (Markdown; one paragraph).
	Doc string
	// Values describes the allowed values when Enum, Min and Max do not
	// say it all (a pattern, a reference to another key).
	Values string
	// Enum lists the only values allowed.
	Enum []any
	// Min and Max bound a number (the length of a list with MaxItems).
	Min, Max *float64
	// MaxItems bounds the length of a list; 0 means no bound.
	MaxItems int
	// Pattern is a regular expression (the syntax JSON Schema and Go share)
	// every string value (of a list, every item) matches.
	Pattern string
	// NamePattern is the regular expression the names (keys) of a map
	// value match.
	NamePattern string
	// Keys are the keys of an object value (TypeObject) or of each value
	// of a map (TypeObjectMap).
	Keys []Key
	// Required are the names among Keys that must be given.
	Required []string
	// Example is a valid value, as JSON; With is what other keys a file
	// needs beside it (JSON members, without braces) to be valid.
	Example string
	With    string
}

func num(v float64) *float64 { return &v }

func anys[T any](l []T) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = v
	}
	return out
}

// Keys is the table of every key of .framework/config.json, in the order
// the reference lists them: the top-level keys, then the keys of the top
// level and of each stage.
var Keys = []Key{
	{Name: "$schema", Scope: TopLevel, Type: TypeString,
		Doc:     "The JSON Schema of this file, for editors to complete and check its keys; the framework ignores it. `framework new-project` writes it.",
		Values:  "a URL or a path",
		Example: `"https://raw.githubusercontent.com/framework-dev/framework/main/docs/config.schema.json"`},
	{Name: "version", Scope: TopLevel, Type: TypeString, Default: FormatVersion, DefaultJSON: FormatVersion,
		Doc:     "The format version of this file.",
		Enum:    []any{FormatVersion},
		Example: strconv.Quote(FormatVersion)},
	{Name: "app_name", Scope: TopLevel, Type: TypeString,
		Doc:     "The app's name: it starts the stack name `<app>-<stage>`.",
		Values:  "letters, digits and hyphens, starting with a letter; at most " + strconv.Itoa(maxAppNameLen) + " characters",
		Pattern: appNameRE.String(),
		Example: `"hello"`},
	{Name: "stages", Scope: TopLevel, Type: TypeObjectMap,
		Doc:         "The stages, by name: each holds the keys below that differ from the top level's. A stage absent from the file uses the top-level settings.",
		Values:      "stage names of letters, digits and hyphens, starting with a letter or digit",
		NamePattern: stageRE.String(),
		Example:     `{"dev": {}, "prod": {"lambda_memory_size": 512}}`},

	{Name: "manage_role", Scope: PerStage, Type: TypeBool, Default: "true", DefaultJSON: DefaultManageRole,
		Doc:     "Create each function's execution role with its own policy; `false` uses `role_id` for every function and creates no role or policy.",
		Example: `false`, With: `"role_id": "my-execution-role"`},
	{Name: "role_id", Scope: PerStage, Type: TypeString,
		Doc:     "The ARN or name of an existing execution role (required when `manage_role` is false), which every function uses: grant it what all the functions need (`gen-policy --explain` lists it).",
		Values:  "an IAM role ARN, or a role name of up to 64 letters, digits and `+=,.@_-`",
		Example: `"my-execution-role"`},
	{Name: "autogen_policy", Scope: PerStage, Type: TypeBool, Default: "true", DefaultJSON: DefaultAutogenPolicy,
		Doc:     "Generate the functions' IAM policy from the source; `false` uses `.framework/policy.json` as written.",
		Example: `false`},
	{Name: "lambda_memory_size", Scope: PerStage, Type: TypeInteger, Default: strconv.Itoa(DefaultLambdaMemorySize), DefaultJSON: DefaultLambdaMemorySize,
		Doc: "The functions' memory, in MB.",
		Min: num(MinLambdaMemorySize), Max: num(MaxLambdaMemorySize),
		Example: `512`},
	{Name: "lambda_timeout", Scope: PerStage, Type: TypeInteger, Default: strconv.Itoa(DefaultLambdaTimeout), DefaultJSON: DefaultLambdaTimeout,
		Doc: "The functions' timeout, in seconds (API Gateway still ends a request after 29 seconds).",
		Min: num(MinLambdaTimeout), Max: num(MaxLambdaTimeout),
		Example: `30`},
	{Name: "architecture", Scope: PerStage, Type: TypeString, Default: DefaultArchitecture, DefaultJSON: DefaultArchitecture,
		Doc:     "The processor architecture the functions run on: `arm64` (AWS Graviton) or `x86_64`.",
		Enum:    []any{ArchARM64, ArchX8664},
		Example: strconv.Quote(ArchX8664)},
	{Name: "api_gateway_stage", Scope: PerStage, Type: TypeString, Default: "the stage name",
		Doc:     "The REST API stage, the last segment of the URL (`api_type` `rest` only).",
		Values:  "letters, digits, hyphens and underscores, at most 128",
		Pattern: apigwRE.String(),
		Example: `"v1"`},
	{Name: "environment_variables", Scope: PerStage, Type: TypeStringMap, Default: "{}",
		Doc:         "The functions' environment (the top-level map merged with the stage's, the stage winning); `framework local --stage S` gives the app the same. Names Lambda sets itself and names starting with `" + ReservedEnvPrefix + "` are refused.",
		Values:      "names of letters, digits and underscores, starting with a letter; values without a NUL character; " + strconv.Itoa(MaxEnvironmentSize) + " bytes in all",
		NamePattern: envNameRE.String(),
		Example:     `{"GREETING": "hello"}`},
	{Name: "tags", Scope: PerStage, Type: TypeStringMap, Default: "{}",
		Doc:     "Tags (the top-level map merged with the stage's): the stack's, which CloudFormation puts on every resource that takes tags; the embedded construct puts them on its resources.",
		Values:  "at most " + strconv.Itoa(MaxTags) + " tags; keys of up to 128 characters, not starting with `aws:`; values of up to 256",
		Example: `{"team": "payments"}`},
	{Name: "lambda_functions", Scope: PerStage, Type: TypeObjectMap, Default: "{}",
		Doc:         "Per event handler or plain function, by name: overrides the stage's memory and timeout for that function (top-level entries merged with the stage's, key by key). A name the app does not declare is an error.",
		NamePattern: functionNameRe.String(),
		Keys: []Key{
			{Name: "lambda_memory_size", Scope: Nested, Type: TypeInteger, Default: "the stage's",
				Doc: "The function's memory, in MB.",
				Min: num(MinLambdaMemorySize), Max: num(MaxLambdaMemorySize), Example: `1024`},
			{Name: "lambda_timeout", Scope: Nested, Type: TypeInteger, Default: "the stage's",
				Doc: "The function's timeout, in seconds.",
				Min: num(MinLambdaTimeout), Max: num(MaxLambdaTimeout), Example: `300`},
		},
		Example: `{"nightly-cleanup": {"lambda_memory_size": 512, "lambda_timeout": 300}}`},
	{Name: "aws_endpoint", Scope: PerStage, Type: TypeString,
		Doc:     "The AWS emulator (such as `http://localhost:4566`) that `framework local` and `invoke --local` use for the stage when `--aws-endpoint` is not given; deploys ignore it.",
		Values:  "an `http://` or `https://` URL",
		Pattern: `^https?://[^/]+`,
		Example: `"http://127.0.0.1:5000"`},
	{Name: "log_level", Scope: PerStage, Type: TypeString, Default: "info", DefaultJSON: "info",
		Doc:     "The lowest level `framework.Logger` writes.",
		Enum:    anys(logLevels),
		Example: `"debug"`},
	{Name: "log_sample_rate", Scope: PerStage, Type: TypeNumber, Default: "0", DefaultJSON: 0,
		Doc: "The share of invocations whose `framework.Logger` writes debug records whatever `log_level` says (0.1 is one in ten).",
		Min: num(0), Max: num(1), Example: `0.1`},

	{Name: "reserved_concurrency", Scope: PerStage, Production: true, Type: TypeInteger, Default: "unreserved",
		Doc: "Concurrent executions reserved for each of the app's functions (`0` stops every invocation).",
		Min: num(0), Example: `10`},
	{Name: "layers", Scope: PerStage, Production: true, Type: TypeStringList, Default: "[]",
		Doc:      "ARNs of Lambda layer versions, in order.",
		Values:   "`arn:aws:lambda:<region>:<account>:layer:<name>:<version>`",
		MaxItems: MaxLayers, Pattern: layerARNRE.String(),
		Example: `["arn:aws:lambda:us-east-1:123456789012:layer:tools:3"]`},
	{Name: "subnet_ids", Scope: PerStage, Production: true, Type: TypeStringList, Default: "[]",
		Doc:      "Put the functions in a VPC, with `security_group_ids` (give both); each managed role gets `AWSLambdaVPCAccessExecutionRole`.",
		Values:   "`subnet-` and 8 or 17 hexadecimal digits",
		MaxItems: MaxSubnets, Pattern: subnetRE.String(),
		Example: `["subnet-0123456789abcdef0"]`, With: `"security_group_ids": ["sg-0123456789abcdef0"]`},
	{Name: "security_group_ids", Scope: PerStage, Production: true, Type: TypeStringList, Default: "[]",
		Doc:      "The functions' security groups in the VPC of `subnet_ids` (give both).",
		Values:   "`sg-` and 8 or 17 hexadecimal digits",
		MaxItems: MaxSecurityGroups, Pattern: secGroupRE.String(),
		Example: `["sg-0123456789abcdef0"]`, With: `"subnet_ids": ["subnet-0123456789abcdef0"]`},
	{Name: "xray", Scope: PerStage, Production: true, Type: TypeBool, Default: "false", DefaultJSON: false,
		Doc:     "X-Ray active tracing on the functions and on the API stage; each managed role gets `AWSXRayDaemonWriteAccess`.",
		Example: `true`},
	{Name: "log_retention_in_days", Scope: PerStage, Production: true, Type: TypeInteger, Default: "none (Lambda's log group never expires)",
		Doc:     "The stack owns each function's log group `/aws/lambda/<function>` with this retention, and `destroy` deletes it. On a stage whose function has already run, Lambda has created that group: delete it first, or the deploy fails with \"already exists\".",
		Enum:    anys(LogRetentionDays),
		Example: `30`},
	{Name: "api_gateway_endpoint_type", Scope: PerStage, Production: true, Type: TypeString, Default: EndpointEdge, DefaultJSON: EndpointEdge,
		Doc:     "The REST API's endpoint type: `EDGE` (through CloudFront), `REGIONAL` or `PRIVATE` (which needs `api_gateway_policy_file`).",
		Enum:    []any{EndpointEdge, EndpointRegional, EndpointPrivate},
		Example: strconv.Quote(EndpointRegional), With: `"api_gateway_policy_file": "api-policy.json"`},
	{Name: "api_gateway_policy_file", Scope: PerStage, Production: true, Type: TypeString,
		Doc:     "The REST API's resource policy (an IAM policy document), a path relative to `.framework/`; required for `PRIVATE`.",
		Values:  "a path relative to `.framework/`",
		Example: `"api-policy.json"`},
	{Name: "minimum_compression_size", Scope: PerStage, Production: true, Type: TypeInteger, Default: "off",
		Doc: "Compress response bodies of at least this many bytes when the client accepts it (REST API only).",
		Min: num(0), Max: num(MaxMinimumCompressionSize), Example: `1024`},
	{Name: "api_gateway_custom_domain", Scope: PerStage, Production: true, Type: TypeObject, Default: "none",
		Doc: "A custom domain of the stage's API, at `https://<domain_name>/<base_path>/`; with a hosted zone, an alias A record. `deploy` and `url` print the domain's URL and the execute-api URL; the stack's output is `CustomDomainURL`.",
		Keys: []Key{
			{Name: "domain_name", Scope: Nested, Type: TypeString,
				Doc: "The domain, in lower case, such as `api.example.com`.", Pattern: domainRE.String(), Example: `"api.example.com"`},
			{Name: "certificate_arn", Scope: Nested, Type: TypeString,
				Doc:    "The ACM certificate of the domain: from us-east-1 for an `EDGE` endpoint, from the stack's region for `REGIONAL`.",
				Values: "`arn:aws:acm:<region>:<account>:certificate/<id>`", Pattern: certARNRE.String(),
				Example: `"arn:aws:acm:us-east-1:123456789012:certificate/abc-123"`},
			{Name: "base_path", Scope: Nested, Type: TypeString, Default: "the domain's root",
				Doc: "The path under the domain the stage answers at: one segment, such as `v1`.", Example: `"v1"`},
			{Name: "tls_version", Scope: Nested, Type: TypeString, Default: TLS12, DefaultJSON: TLS12,
				Doc: "The minimum TLS version (an HTTP API's domain supports `TLS_1_2` only).", Enum: []any{TLS12, TLS10}, Example: strconv.Quote(TLS12)},
			{Name: "hosted_zone_id", Scope: Nested, Type: TypeString,
				Doc: "The Route 53 hosted zone that gets an alias record for the domain.", Pattern: hostedZoneRE.String(), Example: `"Z0123456789ABCDEFGHIJ"`},
			{Name: "hosted_zone_name", Scope: Nested, Type: TypeString,
				Doc: "The Route 53 hosted zone, by name, that gets an alias record for the domain; the domain must be in it.", Example: `"example.com"`},
		},
		Required: []string{"domain_name", "certificate_arn"},
		Example:  `{"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:us-east-1:123456789012:certificate/abc-123"}`},
	{Name: "access_log", Scope: PerStage, Production: true, Type: TypeBool, Default: "true", DefaultJSON: true,
		Doc:     "The functions write one JSON access line per request; `false` stops them.",
		Example: `false`},
	{Name: "api_type", Scope: PerStage, Production: true, Type: TypeString, Default: APIRest, DefaultJSON: APIRest,
		Doc:     "The stage's front door: `rest` (API Gateway REST API), `http` (API Gateway HTTP API) or `function_url` (Lambda function URL).",
		Enum:    []any{APIRest, APIHTTP, APIFunctionURL},
		Example: strconv.Quote(APIHTTP)},
	{Name: "function_url_auth", Scope: PerStage, Production: true, Type: TypeString, Default: URLAuthNone, DefaultJSON: URLAuthNone,
		Doc:     "With `api_type` `function_url`: `NONE` (anyone may call the URL) or `AWS_IAM` (SigV4-signed requests from principals allowed `lambda:InvokeFunctionUrl`, for every route).",
		Enum:    []any{URLAuthNone, URLAuthIAM},
		Example: strconv.Quote(URLAuthIAM), With: `"api_type": "function_url"`},
}

// keyNames returns the names of the keys of scope in Keys, in table order.
func keyNames(scope Scope) []string {
	var out []string
	for _, k := range Keys {
		if k.Scope == scope {
			out = append(out, k.Name)
		}
	}
	return out
}

// perStageKeys returns the names of the PerStage keys, the production
// ones or the others, in table order.
func perStageKeys(production bool) []string {
	var out []string
	for _, k := range Keys {
		if k.Scope == PerStage && k.Production == production {
			out = append(out, k.Name)
		}
	}
	return out
}

// nestedKeyNames returns the names of the keys of key's value.
func nestedKeyNames(key string) []string {
	i := slices.IndexFunc(Keys, func(k Key) bool { return k.Name == key })
	var out []string
	for _, k := range Keys[i].Keys {
		out = append(out, k.Name)
	}
	return out
}
