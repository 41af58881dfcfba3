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
	// SynthSession, when not nil, returns a function that synthesizes as
	// Synth does but keeps the engine, with Node.js and the CDK loaded,
	// from one call to the next, and the function that ends it (an
	// internal/synth Session): `deploy --watch` synthesizes every change
	// with it. Nil means Synth for every call.
	SynthSession func() (synthesize func(context.Context, synth.Options) (*synth.Result, error), end func())
	// SDKLog, when not nil, receives the AWS SDK's own log (-v); nil
	// drops it.
	SDKLog io.Writer
	// Signals, when not nil, returns the context a command runs in (see
	// SignalContext); nil means context.Background with no signal handling.
	Signals func() (context.Context, context.CancelFunc)
	// TrimCaches says that the commands using the CLI's caches trim them
	// (trimCaches: at most once a day). The process's Env sets it; tests
	// leave it off unless they test trimming, so that none touches the
	// user's cache.
	TrimCaches bool
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
		Getenv: os.Getenv,
		Synth:  synthEngine().Synth,
		SynthSession: func() (func(context.Context, synth.Options) (*synth.Result, error), func()) {
			s := synthEngine().Session()
			return s.Synth, s.Close
		},
		Signals:    SignalContext,
		TrimCaches: true,
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

// session returns the synthesis function of a run of syntheses and the
// function that ends it (SynthSession, else Synth).
func (e *Env) session() (func(context.Context, synth.Options) (*synth.Result, error), func()) {
	if e.SynthSession != nil {
		return e.SynthSession()
	}
	return e.Synth, func() {}
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
func SignalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }()
	return ctx, stop
}

// signalRouter is how the CLI program (Run) takes SIGINT and SIGTERM: one
// goroutine gets every signal, in order, so that they never have their
// default effect, which would end the process with its temporary files
// and children (a go build, the engine) still there. The first signal
// cancels the contexts of the command under way (Context), so that it
// stops and says how things stand; the next one, or a first one with no
// command listening, calls interrupt (which cleans up and exits); after
// End, the cleanup under way runs to its end whatever comes.
type signalRouter struct {
	mu        sync.Mutex
	cancels   map[int]context.CancelFunc
	next      int
	seen      bool
	ending    bool
	interrupt func()
}

// newSignalRouter returns a router that calls interrupt as described; it
// receives no signal until listen.
func newSignalRouter(interrupt func()) *signalRouter {
	return &signalRouter{cancels: map[int]context.CancelFunc{}, interrupt: interrupt}
}

// listen routes the process's SIGINT and SIGTERM from now on.
func (r *signalRouter) listen() {
	caught := make(chan os.Signal, 4)
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	go func() {
		for range caught {
			r.route()
		}
	}()
}

// route acts on one signal.
func (r *signalRouter) route() {
	r.mu.Lock()
	first, ending := !r.seen, r.ending
	r.seen = true
	var cancels []context.CancelFunc
	for _, c := range r.cancels {
		cancels = append(cancels, c)
	}
	r.mu.Unlock()
	switch {
	case ending:
	case first && len(cancels) > 0:
		for _, c := range cancels {
			c()
		}
	default:
		r.interrupt()
	}
}

// Context is the context of a command, which the first signal cancels.
func (r *signalRouter) Context() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	r.mu.Lock()
	id := r.next
	r.next++
	r.cancels[id] = cancel
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.cancels, id)
		r.mu.Unlock()
		cancel()
	}
}

// End says the command has returned: signals change nothing any more.
func (r *signalRouter) End() {
	r.mu.Lock()
	r.ending = true
	r.mu.Unlock()
}

// sdkLog returns the AWS configuration option that sends the SDK's own log
// to env.SDKLog (-v), or none: deploy.LoadConfig drops that log otherwise.
func sdkLog(env *Env) []func(*config.LoadOptions) error {
	if env.SDKLog == nil {
		return nil
	}
	return []func(*config.LoadOptions) error{config.WithLogger(logging.NewStandardLogger(env.SDKLog))}
}
