package framework

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/framework-dev/framework/internal/names"
)

// Run runs the app in the mode its environment selects, and exits:
//
//   - AWS_LAMBDA_RUNTIME_API set (the Lambda provided.al2023 runtime, binary
//     named bootstrap): serves the events of the handler FRAMEWORK_HANDLER
//     names (when it is absent, the API's: REST API proxy events, or the
//     payload 2.0 events of an HTTP API or a function URL); for the API,
//     writes one JSON access line per
//     event to stdout (unless FRAMEWORK_ACCESS_LOG=false); log/slog records
//     get the request id through RequestIDHandler;
//   - FRAMEWORK_MODE=manifest or the argument --framework-manifest: prints
//     the route manifest as JSON and exits 0, or prints the declaration
//     errors and exits 2;
//   - otherwise: serves HTTP for local development on the socket inherited
//     as FRAMEWORK_LISTEN_FD, else on FRAMEWORK_ADDR or --port (default
//     127.0.0.1:8000), until SIGINT or SIGTERM; a binary built with -tags
//     lambda.norpc (the Lambda build) has no HTTP server, says so and
//     exits 2.
func (a *App) Run() {
	os.Exit(a.run(os.Args[1:], os.Stdout, os.Stderr))
}

func (a *App) run(args []string, stdout, stderr io.Writer) int {
	manifest, port, ok := a.parseArgs(args, stderr)
	if !ok {
		return 2
	}
	if manifest || os.Getenv(names.EnvMode) == names.ModeManifest {
		m, err := a.routeManifest()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
			return 2
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(m); err != nil {
			fmt.Fprintf(stderr, "%s: writing the manifest: %v\n", a.Name, err)
			return 1
		}
		return 0
	}
	if err := a.Validate(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
		return 2
	}
	a.logFmt = logFormat()
	if os.Getenv(names.EnvLambdaRuntimeAPI) != "" {
		h, err := a.lambdaHandler(os.Getenv(names.EnvHandler))
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
			return 2
		}
		a.apiEvents = a.lambdaServe(stdout, os.Getenv(names.EnvAccessLog))
		if streamLambda == nil || !streamLambda(a, h, stdout, os.Getenv(names.EnvAccessLog)) {
			lambda.Start(h)
		}
		return 0
	}
	return a.runLocal(port, stdout, stderr)
}
