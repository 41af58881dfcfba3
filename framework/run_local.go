//go:build !lambda.norpc

package framework

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/framework-dev/framework/internal/names"
)

func init() {
	textLogHandler = func(w io.Writer, color bool) slog.Handler { return newTextHandler(w, color) }
}

// parseArgs parses Run's flags: --framework-manifest and --port N.
func (a *App) parseArgs(args []string, stderr io.Writer) (manifest bool, port int, ok bool) {
	fs := flag.NewFlagSet(a.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	m := fs.Bool("framework-manifest", false, "print the route manifest as JSON and exit")
	p := fs.Int("port", 0, "serve on 127.0.0.1:PORT")
	if err := fs.Parse(args); err != nil {
		return false, 0, false
	}
	return *m, *p, true
}

// runLocal serves HTTP for local development (Run's last mode) until
// SIGINT or SIGTERM. A function built for Lambda (-tags lambda.norpc, as
// framework deploy builds it) leaves it out: see run_lambda.go.
func (a *App) runLocal(port int, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, announce, err := listener(port)
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
