package framework

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

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
//     127.0.0.1:8000), until SIGINT or SIGTERM.
func (a *App) Run() {
	os.Exit(a.run(os.Args[1:], os.Stdout, os.Stderr))
}

func (a *App) run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(a.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	manifest := fs.Bool("framework-manifest", false, "print the route manifest as JSON and exit")
	port := fs.Int("port", 0, "serve on 127.0.0.1:PORT")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *manifest || os.Getenv(names.EnvMode) == names.ModeManifest {
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
		lambda.Start(h)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, announce, err := listener(*port)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
		return 1
	}
	if announce {
		fmt.Fprintf(stdout, "Serving on localhost:%d\n", l.Addr().(*net.TCPAddr).Port)
	}
	installLocalLogHandler(a.logFmt, stderr)
	stage := os.Getenv(names.EnvStage)
	ready, err := readyPipe()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
		return 1
	}
	if err := a.serve(ctx, l, stage, ready); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", a.Name, err)
		return 1
	}
	return 0
}

// readyPipe returns a function that signals readiness on the pipe inherited
// as FRAMEWORK_READY_FD, or nil when there is none.
func readyPipe() (func(), error) {
	fdText := os.Getenv(names.EnvReadyFD)
	if fdText == "" {
		return nil, nil
	}
	fd, err := strconv.Atoi(fdText)
	if err != nil || fd < 3 {
		return nil, fmt.Errorf("%s=%q is not an inherited file descriptor number", names.EnvReadyFD, fdText)
	}
	f := os.NewFile(uintptr(fd), "ready")
	return func() {
		_, _ = f.Write([]byte("ready\n"))
		_ = f.Close()
	}, nil
}

// listener returns the inherited socket, or a new one; announce is true when
// the app opened it itself.
func listener(port int) (net.Listener, bool, error) {
	if fdText := os.Getenv(names.EnvListenFD); fdText != "" {
		fd, err := strconv.Atoi(fdText)
		if err != nil || fd < 3 {
			return nil, false, fmt.Errorf("%s=%q is not an inherited file descriptor number", names.EnvListenFD, fdText)
		}
		f := os.NewFile(uintptr(fd), "listener")
		l, err := net.FileListener(f)
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("using inherited socket %s=%d: %w", names.EnvListenFD, fd, err)
		}
		return l, false, nil
	}
	addr := os.Getenv(names.EnvAddr)
	if port != 0 {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	if addr == "" {
		addr = "127.0.0.1:8000"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, false, fmt.Errorf("cannot listen on %s: %w (choose another with --port or %s)", addr, err, names.EnvAddr)
	}
	return l, true, nil
}
