package cli

import (
	"bytes"
	"strings"
	"testing"
)

// panicCmd stands for a command with a bug.
type panicCmd struct{}

func (panicCmd) Run() error { panic("index out of range [3] with length 3") }

func TestMainTurnsAPanicIntoOneLine(t *testing.T) {
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
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"no-such-command"}, &stdout, &stderr); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "no-such-command") {
		t.Errorf("stderr %q does not name the bad argument", stderr.String())
	}
}

func TestVersionFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"--version"}, &stdout, &stderr); code != 0 || strings.TrimSpace(stdout.String()) != Version {
		t.Errorf("--version: exit %d, stdout %q, want %q", code, stdout.String(), Version)
	}
}
