// Package names holds the names that several parts of the framework must
// spell the same way: the default stage and the stage names taken for
// production, the stage stack's name and outputs, the assets bucket and its
// stack, the project files, and the environment variables the CLI, the
// build and the runtime pass to each other. It imports only the standard
// library's strings, so the runtime (framework/), the construct, the CLI
// and the deploy engine can all use it without pulling anything in.
package names

import "strings"

// DefaultStage is the stage every command uses when --stage is not given.
const DefaultStage = "dev"

// ProductionStages are the words that make a stage's name say it serves
// production (LooksLikeProduction): hotswap refuses such a stage without
// --force, and `framework deploy --help` lists them.
var ProductionStages = []string{"prod", "production", "prd", "live"}

// LooksLikeProduction reports whether stage's name says it serves
// production: one of ProductionStages, in any letter case, alone or as a
// hyphen-separated part (prod-eu, api-live, eu-prod-2; not preprod).
func LooksLikeProduction(stage string) bool {
	for part := range strings.SplitSeq(stage, "-") {
		for _, word := range ProductionStages {
			if strings.EqualFold(part, word) {
				return true
			}
		}
	}
	return false
}

// StackName returns the CloudFormation stack name of an app's stage:
// "<app>-<stage>".
func StackName(app, stage string) string { return app + "-" + stage }

// ConstructID is the id of the app's construct inside the stage stack; the
// logical IDs of its resources start with it.
const ConstructID = "App"

// Outputs of every stage stack. The deploy engine, `framework url` and
// `framework deploy` read them by these names.
const (
	OutputEndpointURL  = "EndpointURL"  // https://{api}.execute-api.{region}.{suffix}/{stage}/
	OutputRestAPIID    = "RestAPIId"    // the REST API's id
	OutputHTTPAPIID    = "HTTPAPIId"    // the HTTP API's id, for api_type http
	OutputFunctionName = "FunctionName" // the Lambda function's name
	OutputFunctionArn  = "FunctionArn"  // the Lambda function's ARN
	OutputRoleArn      = "RoleArn"      // the ARN of the routes' function's execution role
	OutputAPIKeyID     = "APIKeyId"     // the API key's id (never its value); only when a route requires a key
	// OutputCustomDomainURL is https://{domain}/{base path}/, only when the
	// stage has api_gateway_custom_domain.
	OutputCustomDomainURL = "CustomDomainURL"
)

// AssetsBucketName is the S3 bucket of the stage stacks' file assets, with
// CloudFormation-style placeholders for the target account and region. The
// deploy engine creates it, in the stack AssetsStackName, when it is missing.
const AssetsBucketName = "framework-assets-${AWS::AccountId}-${AWS::Region}"

// AssetsStackName is the stack holding the assets bucket, one per account
// and region. It has no hyphen, so it never collides with an app's
// <app>-<stage> stack.
const AssetsStackName = "FrameworkAssets"

// Project files, relative to the project directory.
const (
	// ConfigDir is the directory holding the project's configuration.
	ConfigDir = ".framework"
	// ConfigFile is the configuration file, inside ConfigDir.
	ConfigFile = ".framework/config.json"
	// PolicyFile is the execution role's policy, inside ConfigDir: written
	// by each deploy, read as written with --no-autogen-policy or
	// autogen_policy false.
	PolicyFile = ".framework/policy.json"
	// AssemblyDir is the default cloud assembly directory.
	AssemblyDir = "cdk.out"
)

// Environment variables between the CLI, the build and the app's runtime.
const (
	// EnvPrefix starts the name of every variable of the framework's own
	// (EnvMode, EnvStage, ...); a project's configuration may not set one.
	EnvPrefix = "FRAMEWORK_"
	// EnvMode set to "manifest" makes the app print its route manifest and exit.
	EnvMode = "FRAMEWORK_MODE"
	// ModeManifest is EnvMode's value that asks for the route manifest.
	ModeManifest = "manifest"
	// EnvListenFD names an inherited listening socket the app serves on.
	EnvListenFD = "FRAMEWORK_LISTEN_FD"
	// EnvAddr is the address the app serves on when no socket is inherited.
	EnvAddr = "FRAMEWORK_ADDR"
	// EnvStage is the stage the app reports in the request context when serving locally.
	EnvStage = "FRAMEWORK_STAGE"
	// EnvLambdaTimeout is the timeout of the API's function in seconds
	// (the stage's lambda_timeout), which `framework local` gives the app
	// so that a route's context ends, and the front door answers, when
	// the deployed function's would.
	EnvLambdaTimeout = "FRAMEWORK_LAMBDA_TIMEOUT"
	// EnvAPIType is the stage's front door (config.json's api_type: rest,
	// http or function_url), which `framework local` gives the app so that
	// it answers as that front door would.
	EnvAPIType = "FRAMEWORK_API_TYPE"
	// EnvReadyFD names an inherited pipe the app writes "ready\n" to once it serves.
	EnvReadyFD = "FRAMEWORK_READY_FD"
	// EnvLambdaRuntimeAPI is set by AWS Lambda's runtime: the app serves events.
	EnvLambdaRuntimeAPI = "AWS_LAMBDA_RUNTIME_API"
	// EnvCacheDir overrides the CLI's build cache directory.
	EnvCacheDir = "FRAMEWORK_CACHE_DIR"
	// EnvEngine names a synthesis engine program (cli/framework-synth) to
	// use instead of the one the CLI builds into its cache directory.
	EnvEngine = "FRAMEWORK_ENGINE"
	// EnvPollInterval sets how often the CLI looks at a stack CloudFormation
	// is working on (a Go duration such as "5s").
	EnvPollInterval = "FRAMEWORK_POLL_INTERVAL"
	// EnvDebug set to "1" makes the CLI print the stack trace of an internal error.
	EnvDebug = "FRAMEWORK_DEBUG"
	// EnvHandler names the handler a deployed function serves: an event
	// handler's or plain function's name; absent (or "api") for the REST
	// API's function.
	EnvHandler = "FRAMEWORK_HANDLER"
	// EnvAccessLog set to "false" on the deployed function (config.json:
	// access_log false) stops the one JSON access line per request.
	EnvAccessLog = "FRAMEWORK_ACCESS_LOG"
	// EnvLogFormat is the format of the app's log lines: LogJSON, LogText
	// or LogColor. `framework local` and `invoke --local` set it; without
	// it the app writes JSON in Lambda, and text elsewhere (colored when
	// stderr is a terminal and NO_COLOR is not set).
	EnvLogFormat = "FRAMEWORK_LOG_FORMAT"
	// EnvUserTempDir is the temporary directory the user's environment
	// named when the CLI started: the CLI points TMPDIR at a private
	// directory of its own (internal/scratch) and gives the user's app and
	// long-lived caches this one instead.
	EnvUserTempDir = "FRAMEWORK_USER_TMPDIR"
	// EnvLocalResources is set by `framework local` and `invoke --local`
	// when their IAM check points the app's AWS_ENDPOINT_URL at its proxy:
	// where the app's resources are behind it, LocalResourcesEmulator or
	// LocalResourcesStage. It names no address: the function's calls
	// reach the resources through the proxy only.
	EnvLocalResources = "FRAMEWORK_LOCAL_RESOURCES"
)

// The values of EnvLocalResources.
const (
	// LocalResourcesEmulator: an AWS emulator, the --aws-endpoint (or the
	// stage's aws_endpoint) framework local was given.
	LocalResourcesEmulator = "emulator"
	// LocalResourcesStage: the deployed stage's.
	LocalResourcesStage = "stage"
)

// Access lines: the JSON line the REST API's function writes for each
// request it answers has "type" AccessLogType; RequestIDKey is the
// attribute carrying the Lambda request id in access lines and in the
// app's slog records.
const (
	AccessLogType = "access"
	RequestIDKey  = "request_id"
)

// The values of EnvLogFormat.
const (
	LogJSON  = "json"
	LogText  = "text"
	LogColor = "color"
)

// APIHandlerName is the handler name of the REST API's function, in its
// FRAMEWORK_HANDLER variable and in `framework invoke`; an empty name means
// it too.
const APIHandlerName = "api"
