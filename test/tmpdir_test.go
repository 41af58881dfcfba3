package test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNoTempFilesLeft runs the CLI as a user would, each time with an empty
// TMPDIR (testEnv's), and fails if anything is left in it: not what the
// CDK's Go bindings unpack when the program starts (--version used to leave
// 2.2 MB), nor what a synth stopped by a build error while Node.js loads the
// CDK leaves (up to 25 MB: a half-written 21 MB package tarball among it),
// nor what a twice-interrupted synth leaves.
func TestNoTempFilesLeft(t *testing.T) {
	t.Run("version", func(t *testing.T) {
		env := testEnv(t)
		cliRun(t, t.TempDir(), env, 0, "--version")
		cliRun(t, t.TempDir(), env, 2, "no-such-command")
	})
	t.Run("synth", func(t *testing.T) {
		env := testEnv(t, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20")
		dir := newProject(t, env, "shop")
		out := cliRunner(t, dir, env)(0, "synth")
		if !strings.Contains(out, "Resources:") {
			t.Fatalf("synth printed no summary:\n%s", out)
		}
	})
	t.Run("synth-build-error", func(t *testing.T) {
		env := testEnv(t, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20")
		dir := newProject(t, env, "shop")
		appendFile(t, filepath.Join(dir, "main.go"), "\nfunc broken() {\n")
		// The app fails to compile in about a second, while Node.js is
		// still loading the CDK for the synthesis that will not come.
		out := cliRunner(t, dir, env)(1, "synth")
		if !strings.Contains(out, "syntax error") {
			t.Fatalf("synth did not report the build error:\n%s", out)
		}
	})
	t.Run("synth-interrupted-twice", func(t *testing.T) {
		// An empty Go build cache: the app's builds then take well over
		// the last interrupt's 3 s, so that every interrupt lands while Go
		// builds and Node.js loads, as on a fresh machine, instead of after
		// a synth that a warm cache finished first.
		env := testEnv(t, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20", "GOCACHE="+t.TempDir())
		dir := newProject(t, env, "shop")
		// Ctrl-C twice at several points of a synth: while Go builds and
		// Node.js loads, and later; the last time, the second one comes
		// as the command has stopped and says so, while the CLI removes
		// what its children left. Whenever it lands, nothing is left.
		type interrupt struct {
			after   time.Duration
			onError bool // the second Ctrl-C as soon as "Error:" is printed
		}
		for i, in := range []interrupt{{300 * time.Millisecond, false}, {1500 * time.Millisecond, false}, {3 * time.Second, false}, {2 * time.Second, true}} {
			after := in.after
			appendFile(t, filepath.Join(dir, "main.go"), "\n// edit "+strconv.Itoa(i)+"\n") // a build each time
			cmd := exec.Command(frameworkCLI(t), "synth")
			cmd.Dir, cmd.Env = dir, env
			var out lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's foreground group
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(after)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			if in.onError {
				for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), "Error:") && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
			} else {
				time.Sleep(100 * time.Millisecond)
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			err := cmd.Wait()
			t.Logf("interrupt %d after %s: %v\n%s", i, after, err, out.String())
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Errorf("interrupt %d: the synth ended with %v, want exit status 130 (interrupted, cleaned up)", i, err)
			}
			if strings.Contains(out.String(), "Runtime process exited") {
				t.Errorf("the interrupted synth printed jsii's noise:\n%s", out.String())
			}
		}
	})
	t.Run("killed-run-swept", func(t *testing.T) {
		// A run killed outright (SIGKILL, a closed terminal) cannot clean
		// up; the next run removes what it left.
		env := testEnv(t)
		tmp := envValue(env, "TMPDIR")
		cmd := exec.Command(frameworkCLI(t), "local", "--port", "0", "--json")
		cmd.Dir, cmd.Env = newProject(t, env, "shop"), env
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The serving event: the run is under way, its build over (the
		// building event comes before the build, whose go command a kill
		// would leave running).
		var line string
		for r := bufio.NewReader(stdout); !strings.Contains(line, `"event":"serving"`); {
			var err error
			if line, err = r.ReadString('\n'); err != nil {
				break
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("killed framework local after: %s", line)
		if left := leftIn(tmp); !strings.Contains(left, "framework-run-") {
			t.Fatalf("framework local left no run directory in TMPDIR: the test proves nothing\n%s", left)
		}
		cliRun(t, t.TempDir(), env, 0, "--version")
	})
}

// appendFile appends s to the file at path.
func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// envValue returns the last value env gives name.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
