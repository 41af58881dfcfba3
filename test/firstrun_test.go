package test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/testutil"
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

// TestLocalAWSEndpointFromConfig: `framework local` takes the stage's
// aws_endpoint from .framework/config.json, saying so, --aws-endpoint wins
// over it, and one that is not a URL is refused before anything is built.
func TestLocalAWSEndpointFromConfig(t *testing.T) {
	env := testEnv(t)
	proj := helloProject(t, env)
	cfg := filepath.Join(proj, ".framework", "config.json")
	writeFile(t, cfg, `{"version": "1.0", "app_name": "hello", "aws_endpoint": "http://127.0.0.1:4566", "stages": {"dev": {"aws_endpoint": "http://127.0.0.1:5000"}}}`)

	s := startLocal(t, proj, env)
	ev := s.seenEvent("aws_endpoint")
	if ev == nil || ev["url"] != "http://127.0.0.1:5000" || ev["from"] != cfg {
		t.Errorf("aws_endpoint event %v, want the dev stage's URL from %s", ev, cfg)
	}
	s.stop(t)

	s = startLocal(t, proj, env, "--aws-endpoint", "http://127.0.0.1:5001")
	if ev := s.seenEvent("aws_endpoint"); ev != nil {
		t.Errorf("with --aws-endpoint: %v, want the flag to win silently", ev)
	}
	s.stop(t)

	writeFile(t, cfg, `{"version": "1.0", "app_name": "hello", "stages": {"dev": {"aws_endpoint": "localhost:4566"}}}`)
	stdout, stderr, code := runCLI(t, proj, env, "local", "--port", "0")
	if code != 1 || strings.Contains(stdout, "Building") || !strings.Contains(stderr, `stages.dev.aws_endpoint: "localhost:4566" is not an http(s) URL: give the AWS emulator's, such as http://localhost:4566`) {
		t.Errorf("invalid aws_endpoint: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestMakeDemoPort: `make demo PORT=8123` serves on that port and its curl
// hint names it; without PORT, 8000. (make -n: the commands, not run.)
func TestMakeDemoPort(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	for port, args := range map[string][]string{"8123": {"PORT=8123"}, "8000": nil} {
		cmd := exec.Command("make", append([]string{"-n", "demo"}, args...)...)
		cmd.Dir = testutil.RepoRoot(t)
		cmd.Env = append(os.Environ(), "PORT=") // not the environment's
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n demo %v: %v\n%s", args, err, out)
		}
		if !strings.Contains(string(out), "local --port "+port+"\n") || !strings.Contains(string(out), "curl localhost:"+port+"/") {
			t.Errorf("make -n demo %v:\n%s\nwant local --port %s and the curl hint on %s", args, out, port, port)
		}
	}
}

// TestLocalLogFormat: under `framework local`, RequestLogger's lines and
// the route's own slog and log lines share one readable format (plain on
// a pipe), where they were slog's text, slog's default and the log
// package's.
func TestLocalLogFormat(t *testing.T) {
	env := testEnv(t)
	proj := helloProject(t, env)
	writeFile(t, filepath.Join(proj, "main.go"), `package main

import (
	"log"
	"log/slog"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("hello")
	app.Use(framework.RequestLogger(nil))
	app.Route("/", func(r *framework.Request) (any, error) {
		slog.Info("hello from the route", "user", "ada lovelace")
		log.Printf("and from the log package")
		return map[string]string{"hello": "world"}, nil
	})
	app.Run()
}
`)
	s := startLocal(t, proj, env)
	if got := get(t, s.URL+"/", nil); got.status != 200 {
		t.Fatalf("GET / = %d %s", got.status, got.body)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, ok := s.stderr.Wait(ctx, func(w string) bool { return strings.Contains(w, " path=/ ") && strings.HasSuffix(w, "\n") })
	if !ok {
		t.Fatalf("no request line on stderr:\n%s", out)
	}
	line := regexp.MustCompile(`^\d\d:\d\d:\d\d INFO  (hello from the route user="ada lovelace"|and from the log package|request request_id=\S+ method=GET path=/ route=/ status=200 duration_ms=[0-9.]+)$`)
	n := 0
	for l := range strings.Lines(out) {
		if !line.MatchString(strings.TrimSuffix(l, "\n")) {
			t.Errorf("line %q is not of the local format", l)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d lines, want 3:\n%s", n, out)
	}
}
