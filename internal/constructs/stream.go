package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

// Streamed responses (framework.Streaming): a REST API gives each route
// that streams the function's streaming invocation with the response
// transfer mode STREAM (internal/openapi), a function URL is in
// RESPONSE_STREAM mode when a route streams, and an HTTP API stage is
// refused (config.StreamingHTTPAPIError, checked with the front door).

// checkStreamURI is the streaming invocation URI of the body derive
// builds to check the routes.
const checkStreamURI = "arn:aws:apigateway:us-east-1:lambda:path/2021-11-15/functions/arn:aws:lambda:us-east-1:000000000000:function:check/response-streaming-invocations"

// maxStreamMillis is the longest a REST API's streamed response lasts.
const maxStreamMillis = 15 * 60 * 1000

// streamingTimeoutMillis is the integration timeout of a REST API's
// streaming routes: the function's timeout, at most 15 minutes.
func streamingTimeoutMillis(cfg *Config) int {
	s := cfg.TimeoutSeconds
	if s <= 0 {
		s = DefaultTimeoutSeconds
	}
	return min(s*1000, maxStreamMillis)
}

// streams reports whether a route of the app streams.
func (p *Prepared) streams() bool {
	for _, r := range p.Manifest.Routes {
		if r.Streaming {
			return true
		}
	}
	return false
}

// streamingURI is the function's streaming invocation URI, for the REST
// API's streaming integrations.
func (a *App) streamingURI(stack awscdk.Stack) *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("arn:"), stack.Partition(), jsii.String(":apigateway:"), stack.Region(),
		jsii.String(":lambda:path/2021-11-15/functions/"), a.Function.FunctionArn(), jsii.String("/response-streaming-invocations"),
	})
}
