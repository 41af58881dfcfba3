package cli

import (
	"bytes"
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

// TestSignalContextSecondSignal: as the CLI runs it, a second signal does
// not kill the process outright: it calls the hook that removes the run's
// temporary files and exits.
func TestSignalContextSecondSignal(t *testing.T) {
	// Not parallel: the signals go to the whole test process.
	second := make(chan struct{}, 1)
	ctx, stop := signalContext(func() { second <- struct{}{} })
	defer stop()
	sigterm(t)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first SIGTERM did not cancel the command's context")
	}
	select {
	case <-second:
		t.Fatal("the first signal already ran the second signal's hook")
	default:
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
