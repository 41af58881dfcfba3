package cli

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// panicCmd stands for a command with a bug.
type panicCmd struct{}

func (panicCmd) Run() error { panic("index out of range [3] with length 3") }

func TestMainTurnsAPanicIntoOneLine(t *testing.T) {
	t.Parallel()
	var root struct {
		Boom panicCmd `cmd:""`
	}
	var stdout, stderr bytes.Buffer
	code := run(&root, []string{"boom"}, &Env{Stdout: &stdout, Stderr: &stderr})
	if code != 70 {
		t.Errorf("exit code %d, want 70", code)
	}
	out := stderr.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "internal error: index out of range") || strings.Contains(out, "goroutine") {
		t.Errorf("stderr %q, want one line naming the internal error and no stack trace", out)
	}
}

func TestMainUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"no-such-command"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "no-such-command") {
		t.Errorf("stderr %q does not name the bad argument", stderr.String())
	}
}

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"--version"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 || strings.TrimSpace(stdout.String()) != Version {
		t.Errorf("--version: exit %d, stdout %q, want %q", code, stdout.String(), Version)
	}
}

func TestSignalContextCancelsOnTheFirstSignal(t *testing.T) {
	// Not parallel: the signal goes to the whole test process.
	ctx, stop := SignalContext()
	defer stop()
	sigterm(t)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not cancel the command's context: the command would not stop")
	}
}

// TestSignalRouter: as the CLI program takes signals, the first one stops
// the command under way (it cancels its context) and the process goes on
// to say how things stand and exit with the command's code; a second one,
// or one with no command listening, runs the hook that removes the run's
// temporary files and exits 130; once the command has returned, the
// cleanup is never cut short.
func TestSignalRouter(t *testing.T) {
	t.Parallel()
	interrupts := 0
	r := newSignalRouter(func() { interrupts++ })
	ctx, stop := r.Context()
	r.route()
	if ctx.Err() == nil || interrupts != 0 {
		t.Fatalf("first signal: context %v, %d interrupts; want cancelled, 0", ctx.Err(), interrupts)
	}
	r.route()
	if interrupts != 1 {
		t.Fatalf("second signal during the command: %d interrupts, want 1", interrupts)
	}
	stop()

	// One Ctrl-C that stops `logs --follow`: the command returns, and a
	// late look at the signal must not turn its exit 0 into 130.
	r = newSignalRouter(func() { interrupts++ })
	interrupts = 0
	ctx, stop = r.Context()
	r.route()
	stop()
	r.End()
	if ctx.Err() == nil || interrupts != 0 {
		t.Fatalf("one signal, command returned: context %v, %d interrupts; want cancelled, 0", ctx.Err(), interrupts)
	}
	r.route() // a second one during the cleanup
	if interrupts != 0 {
		t.Fatalf("a signal during the cleanup interrupted it")
	}

	// No command listening (--version, before a command starts).
	r = newSignalRouter(func() { interrupts++ })
	r.route()
	if interrupts != 1 {
		t.Fatalf("a signal with no command listening: %d interrupts, want 1", interrupts)
	}

	// Nested contexts (a command running another's steps) are all stopped.
	r = newSignalRouter(func() { interrupts++ })
	outer, stopOuter := r.Context()
	inner, stopInner := r.Context()
	r.route()
	stopInner()
	stopOuter()
	if outer.Err() == nil || inner.Err() == nil {
		t.Fatal("the first signal did not cancel every listening context")
	}
}

// TestSignalRouterTakesSignals: listen keeps a real SIGTERM from having its
// default effect (which would end the test binary) and routes it.
func TestSignalRouterTakesSignals(t *testing.T) {
	// Not parallel: the signals go to the whole test process.
	second := make(chan struct{}, 1)
	r := newSignalRouter(func() {
		select {
		case second <- struct{}{}:
		default:
		}
	})
	r.listen()
	ctx, stop := r.Context()
	defer stop()
	sigterm(t)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first SIGTERM did not cancel the command's context")
	}
	sigterm(t) // with the default effect, this would end the test binary
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the second SIGTERM did not run the hook")
	}
}

// TestFlagWithoutValue: a flag given last without its value says so in
// words, not with kong's "expected string value but got "EOL" (<EOL>)".
func TestFlagWithoutValue(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"local", "--port"}, {"synth", "--stage"}, {"-C"}} {
		var stderr bytes.Buffer
		code := MainEnv(args, &Env{Stderr: &stderr})
		flag := args[len(args)-1]
		if flag == "-C" {
			flag = "--project-dir"
		}
		want := "framework: " + flag + " needs a value: give it after the flag (see --help)\n"
		if code != 2 || stderr.String() != want {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, stderr.String(), want)
		}
	}
}

// sigterm sends SIGTERM to this test process, skipping the test where
// that cannot be done.
func sigterm(t *testing.T) {
	t.Helper()
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Skipf("cannot send SIGTERM on this system: %v", err)
	}
}

// failCmd stands for a command failing with err.
type failCmd struct{ err error }

func (c failCmd) Run() error { return c.err }

// TestErrorLineKeepsMessagesApart: an error of several messages (the app's
// invalid declarations, errors.Join's) is still one line, each message
// apart from the next; they ran together ("... or a plain function routes
// /links/{code} ...").
func TestErrorLineKeepsMessagesApart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("the app failed in manifest mode (exit status 1):\n2 invalid declarations:\n  access \"read\" to resource \"links\" granted to handler \"x\": name a route handler or a plain function\n  routes /links/{code} and /links/{id}: the same path"),
			"Error: the app failed in manifest mode (exit status 1): 2 invalid declarations: access \"read\" to resource \"links\" granted to handler \"x\": name a route handler or a plain function; routes /links/{code} and /links/{id}: the same path\n"},
		{errors.Join(errors.New("route /a requires an API key"), errors.New("route /b: its authorizer")),
			"Error: route /a requires an API key; route /b: its authorizer\n"},
		{errors.New("one message.\nAnother"), "Error: one message. Another\n"},
	} {
		root := struct {
			Fail failCmd `cmd:""`
		}{failCmd{tc.err}}
		var stderr bytes.Buffer
		if code := run(&root, []string{"fail"}, &Env{Stderr: &stderr}); code != 1 || stderr.String() != tc.want {
			t.Errorf("exit %d, stderr\n%q\nwant\n%q", code, stderr.String(), tc.want)
		}
	}
}

// --no-iam-check turns off framework local's check: on a deployed
// function, which AWS checks, it is a usage error saying so.
func TestNoIAMCheckNeedsLocal(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	code := MainEnv([]string{"-C", t.TempDir(), "invoke", "api", "--no-iam-check"}, &Env{Stderr: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), "--no-iam-check applies to --local only") {
		t.Errorf("invoke --no-iam-check without --local: exit %d, stderr %q", code, stderr.String())
	}
}
