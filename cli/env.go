package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
	"github.com/framework-dev/framework/internal/synth"
	"golang.org/x/term"
)

// Env is what the commands take from their surroundings instead of from
// package variables: the standard streams, whether stdin is a terminal,
// the environment, the synthesis step and the process's signals. Main fills
// it from the process; tests build their own, so that they can run in
// parallel. Commands receive it through kong's bindings (a *Env argument
// of Run).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// StdinIsTerminal reports whether Stdin is an interactive terminal.
	StdinIsTerminal func() bool
	// StdoutIsTerminal reports whether Stdout is an interactive terminal.
	StdoutIsTerminal func() bool
	// StdoutWidth is the width in columns of the terminal Stdout is, 0
	// when not known.
	StdoutWidth func() int
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Synth synthesizes a stage (internal/synth's Synth).
	Synth func(context.Context, synth.Options) (*synth.Result, error)
	// SDKLog, when not nil, receives the AWS SDK's own log (-v); nil
	// drops it.
	SDKLog io.Writer
	// Signals, when not nil, returns the context a command runs in (see
	// SignalContext); nil means context.Background with no signal handling.
	Signals func() (context.Context, context.CancelFunc)
}

// processEnv is the Env of the running process.
func processEnv(stdout, stderr io.Writer) *Env {
	return &Env{
		Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
		StdinIsTerminal: func() bool { return term.IsTerminal(int(os.Stdin.Fd())) },
		StdoutIsTerminal: func() bool {
			f, ok := stdout.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		},
		StdoutWidth: func() int {
			f, ok := stdout.(*os.File)
			if !ok {
				return 0
			}
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
		Getenv:  os.Getenv,
		Synth:   synthEngine().Synth,
		Signals: SignalContext,
	}
}

// withDefaults fills the fields a test left nil.
func (e *Env) withDefaults() *Env {
	out := *e
	if out.Stdin == nil {
		out.Stdin = eofReader{}
	}
	if out.Stdout == nil {
		out.Stdout = io.Discard
	}
	if out.Stderr == nil {
		out.Stderr = io.Discard
	}
	if out.StdinIsTerminal == nil {
		out.StdinIsTerminal = func() bool { return false }
	}
	if out.StdoutIsTerminal == nil {
		out.StdoutIsTerminal = func() bool { return false }
	}
	if out.StdoutWidth == nil {
		out.StdoutWidth = func() int { return 0 }
	}
	if out.Getenv == nil {
		out.Getenv = func(string) string { return "" }
	}
	if out.Synth == nil {
		out.Synth = synthEngine().Synth
	}
	return &out
}

// Context returns the context a command runs in, and the function that
// releases it.
func (e *Env) Context() (context.Context, context.CancelFunc) {
	if e.Signals == nil {
		return context.WithCancel(context.Background())
	}
	return e.Signals()
}

// synthEngine is the synthesis engine of this CLI's version and source.
func synthEngine() *synth.Engine {
	return &synth.Engine{Version: version(), SourceDir: sourceDir()}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// SignalContext is how every command handles signals: the first SIGINT
// (Ctrl-C) or SIGTERM cancels the returned context, so that the command
// stops what it waits for and says how things stand; after that the
// signals have their default effect again, so a second one ends the
// process at once.
func SignalContext() (context.Context, context.CancelFunc) { return signalContext(nil) }

// signalContext is SignalContext where a second signal calls second (which
// must end the process) instead of having its default effect.
func signalContext(second func()) (context.Context, context.CancelFunc) {
	if second == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		go func() { <-ctx.Done(); stop() }()
		return ctx, stop
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			second()
		case <-done:
		}
	}()
	stop := sync.OnceFunc(func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	})
	return ctx, stop
}

// sdkLog returns the AWS configuration option that sends the SDK's own log
// to env.SDKLog (-v), or none: deploy.LoadConfig drops that log otherwise.
func sdkLog(env *Env) []func(*config.LoadOptions) error {
	if env.SDKLog == nil {
		return nil
	}
	return []func(*config.LoadOptions) error{config.WithLogger(logging.NewStandardLogger(env.SDKLog))}
}
