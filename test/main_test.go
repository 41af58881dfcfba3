// Package test holds the end-to-end tests: they build the `framework` CLI
// and use it as a user would, against real processes and real HTTP.
package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/testutil"

	"github.com/framework-dev/framework/internal/cfnstandin"
	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
)

// cliDir holds the CLI binary built for this test run.
var cliDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "framework-e2e-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cliDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// frameworkCLI builds the CLI once per test run, as `make build` does (a
// development build that records this checkout for new-project), and
// returns its path. The synthesis engine is built with it, once, with the
// flags the CLI builds it with on first use (so that the test that builds
// it that way finds Go's build cache warm): testEnv points the CLI at it.
func frameworkCLI(t testing.TB) string {
	t.Helper()
	root := testutil.RepoRoot(t)
	cliOnce.Do(func() {
		cliPath = filepath.Join(cliDir, "framework")
		cmd := exec.Command("go", "build", "-trimpath",
			"-ldflags", "-s -w -X github.com/framework-dev/framework/internal/cli.SourceDir="+root,
			"-o", cliDir+string(filepath.Separator), "./cli/framework", "./cli/framework-synth")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			cliErr = fmt.Errorf("building the CLI: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliPath
}

// testEnv returns the environment for CLI runs: the test's own, with the
// framework's build cache private to the test and no network for modules.
func testEnv(t testing.TB, extra ...string) []string {
	t.Helper()
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "FRAMEWORK_") || strings.HasPrefix(k, "KITCHENSINK_") || k == "GOPROXY" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, names.EnvCacheDir+"="+t.TempDir(), "GOPROXY=off", "TMPDIR="+emptyTempDir(t),
		names.EnvEngine+"="+filepath.Join(cliDir, "framework-synth"))
	return append(env, extra...)
}

// emptyTempDir returns a new empty directory for a test's CLI runs to use
// as TMPDIR, and fails the test if anything is left in it when the test
// ends (after its servers are stopped): the CLI removes its temporary
// files, whether a command succeeds, fails or is interrupted.
func emptyTempDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if left := leftIn(dir); left != "" {
			t.Errorf("the CLI left files in its TMPDIR %s:\n%s", dir, left)
		}
	})
	return dir
}

// leftIn lists what dir holds, one entry per line with its size, or "".
func leftIn(dir string) string {
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		size := int64(0)
		if fi, err := d.Info(); err == nil && !d.IsDir() {
			size = fi.Size()
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "  %s (%d bytes)\n", rel, size)
		return nil
	})
	return b.String()
}

// runCLI runs the CLI in dir and returns stdout, stderr and the exit code.
func runCLI(t testing.TB, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(frameworkCLI(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run framework %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), code
}

// localServer is a running `framework local --json`.
type localServer struct {
	cmd    *exec.Cmd
	URL    string // http://localhost:PORT
	events chan map[string]any
	stderr *lockedBuffer
	done   chan struct{}
	seen   []map[string]any // every event waitEvent received, in order
	taken  map[int]bool     // indexes in seen that waitDelivery returned
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer = lockedbuf.Buffer

// startLocal runs `framework local --port 0 --json` in dir and waits for
// its serving event. The server is stopped with SIGINT at the end of the test.
func startLocal(t *testing.T, dir string, env []string, args ...string) *localServer {
	t.Helper()
	argv := append([]string{"local", "--port", "0", "--json"}, args...)
	cmd := exec.Command(frameworkCLI(t), argv...)
	cmd.Dir = dir
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &localServer{cmd: cmd, events: make(chan map[string]any, 100), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev map[string]any
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				ev = map[string]any{"event": "text", "line": sc.Text()}
			}
			s.events <- ev
		}
	}()
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t) })
	ev := s.waitEvent(t, "serving", 3*time.Minute)
	s.URL = strings.TrimSuffix(ev["url"].(string), "/")
	return s
}

// waitEvent returns the next event of the given kind, failing on timeout
// or when the CLI exits first.
func (s *localServer) waitEvent(t *testing.T, kind string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("framework local exited before %q; stderr:\n%s", kind, s.stderr.String())
			}
			s.seen = append(s.seen, ev)
			if ev["event"] == kind {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %q event from framework local within %s; stderr:\n%s", kind, timeout, s.stderr.String())
		}
	}
}

// seenEvent returns the first event of the given kind that waitEvent has
// received so far, or nil.
func (s *localServer) seenEvent(kind string) map[string]any {
	for _, ev := range s.seen {
		if ev["event"] == kind {
			return ev
		}
	}
	return nil
}

// stop sends SIGINT and waits for the CLI to exit.
func (s *localServer) stop(t *testing.T) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Errorf("framework local did not stop within 20s of SIGINT")
	}
}

// readAll reads a response body and closes it.
func readAll(t testing.TB, r io.ReadCloser) []byte {
	t.Helper()
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cliRun runs the CLI and fails the test unless it exits with want.
func cliRun(t *testing.T, dir string, env []string, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, code := runCLI(t, dir, env, args...)
	t.Logf("$ framework %s  (exit %d)\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	if code != want {
		t.Fatalf("framework %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout, stderr
}

// newProject creates the project name with new-project in a new directory
// and returns the project's directory.
func newProject(t testing.TB, env []string, name string) string {
	t.Helper()
	work := t.TempDir()
	if _, stderr, code := runCLI(t, work, env, "new-project", name); code != 0 {
		t.Fatalf("new-project %s: exit %d: %s", name, code, stderr)
	}
	return filepath.Join(work, name)
}

// cliRunner returns a function that runs the CLI in dir with env, logs the
// transcript, fails the test on another exit code or on a library's noise
// in the output, and returns stdout and stderr together.
func cliRunner(t *testing.T, dir string, env []string) func(want int, args ...string) string {
	return func(want int, args ...string) string {
		t.Helper()
		stdout, stderr := cliRun(t, dir, env, want, args...)
		noNoise(t, stdout+stderr)
		return stdout + stderr
	}
}

// wantOutput fails the test for each of wants that out lacks.
func wantOutput(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// needsCDK skips the test in -short mode: it deploys, which synthesizes
// with the CDK (Node.js).
func needsCDK(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("synthesizes with the CDK (Node.js)")
	}
}

// startStandins skips the test in -short mode (needsCDK); otherwise it
// starts the CloudFormation, STS and S3 stand-ins and returns them with the
// CLI's environment against them (standinEnv).
func startStandins(t *testing.T) (*cfnstandin.AWS, []string) {
	t.Helper()
	needsCDK(t)
	fake := cfnstandin.Start(t)
	return fake, standinEnv(t, fake.Environ(t.TempDir()))
}

// standinEnv is the CLI's environment against AWS stand-ins: the test
// environment, a fast CloudFormation poll, jsii's banners silenced, and the
// stand-ins' variables (name → value).
func standinEnv(t testing.TB, aws map[string]string) []string {
	extra := []string{names.EnvPollInterval + "=5ms", "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20"}
	for k, v := range aws {
		extra = append(extra, k+"="+v)
	}
	return testEnv(t, extra...)
}
