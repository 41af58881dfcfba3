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
	p, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Skipf("cannot send SIGTERM on this system: %v", err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGTERM did not cancel the command's context: the command would not stop")
	}
}
