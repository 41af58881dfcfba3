package test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// firstLines runs `framework local --port 0 --no-autoreload` in dir and
// returns its first two lines of output, then stops it.
func firstLines(t *testing.T, dir string, env []string) (first, second string) {
	t.Helper()
	cmd := exec.Command(frameworkCLI(t), "local", "--port", "0", "--no-autoreload")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(os.Interrupt)
	sc := bufio.NewScanner(out)
	var lines []string
	for len(lines) < 2 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 2 {
		t.Fatalf("framework local printed %q and ended", lines)
	}
	return lines[0], lines[1]
}

// TestBuildingIsSaidAtOnce: every command that builds the app says so
// before it builds, with how long the first build on the machine takes
// (about a minute, where the first `framework local` printed nothing for
// 95 s); --json output stays machine-readable (a JSON event for local,
// stderr for the others).
func TestBuildingIsSaidAtOnce(t *testing.T) {
	env := testEnv(t) // a build cache of its own: no build has run
	proj := helloProject(t, env)
	const cold = "Building the app (the first build on this machine takes about a minute)..."

	first, second := firstLines(t, proj, env)
	if first != cold || !strings.HasPrefix(second, "Serving on localhost:") {
		t.Errorf("first framework local printed %q, then %q; want %q, then the serving line", first, second, cold)
	}
	first, second = firstLines(t, proj, env)
	if first != "Building the app..." || !strings.HasPrefix(second, "Serving on localhost:") {
		t.Errorf("second framework local printed %q, then %q; want \"Building the app...\" without the first build's duration", first, second)
	}

	s := startLocal(t, proj, env)
	if len(s.seen) == 0 || s.seen[0]["event"] != "building" || s.seen[0]["first_build"] != false {
		t.Errorf("framework local --json: first events %v, want {\"event\":\"building\",\"first_build\":false,...} first", s.seen)
	}
	s.stop(t)

	// openapi writes the document on stdout: the line goes to stderr.
	stdout, stderr, code := runCLI(t, proj, env, "openapi")
	if code != 0 || !json.Valid([]byte(stdout)) || stderr != "Building the app...\n" {
		t.Errorf("openapi: exit %d, stderr %q, stdout valid JSON %v", code, stderr, json.Valid([]byte(stdout)))
	}
}
