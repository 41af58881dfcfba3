package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// watchSession is a running `framework deploy --watch`, its stdout and
// stderr in one buffer, in the order written.
type watchSession struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan error
}

// startWatch runs `framework deploy --watch` with args in proj.
func startWatch(t testing.TB, proj string, env []string, args ...string) *watchSession {
	t.Helper()
	cmd := exec.Command(frameworkCLI(t), append([]string{"deploy", "--watch"}, args...)...)
	cmd.Dir, cmd.Env = proj, env
	w := &watchSession{cmd: cmd, out: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = w.out, w.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			_ = cmd.Process.Kill()
		}
	})
	return w
}

// waitFor waits until the output holds n occurrences of s, failing on
// timeout, on exit, or on a "Still watching" line when failOnError.
func (w *watchSession) waitFor(t testing.TB, s string, n int, failOnError bool) string {
	t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for {
		out := w.out.String()
		if strings.Count(out, s) >= n {
			return out
		}
		if failOnError && strings.Contains(out, "Still watching") {
			t.Fatalf("the watch reported an error while waiting for %q:\n%s", s, out)
		}
		select {
		case err := <-w.done:
			t.Fatalf("framework deploy --watch exited (%v) before %q:\n%s", err, s, w.out.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within 4 minutes:\n%s", s, out)
		}
	}
}

// stop sends SIGINT and returns the exit error.
func (w *watchSession) stop(t testing.TB) error {
	t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-w.done:
		return err
	case <-time.After(30 * time.Second):
		_ = w.cmd.Process.Kill()
		t.Fatalf("framework deploy --watch did not stop within 30s of SIGINT:\n%s", w.out.String())
		return nil
	}
}

// TestDeployWatch is a watch session: the first deploy is full, a saved
// code change is hotswapped, a new route is deployed fully, a build error
// is reported and the watch goes on, its fix is hotswapped, Ctrl-C ends it.
func TestDeployWatch(t *testing.T) {
	c, proj := startShop(t)
	// The engine program, through a script that notes each start.
	starts := filepath.Join(t.TempDir(), "engine-starts")
	env := slices.Clone(c.env)
	for i, kv := range env {
		if real, ok := strings.CutPrefix(kv, names.EnvEngine+"="); ok {
			script := filepath.Join(t.TempDir(), "framework-synth")
			writeFile(t, script, fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", starts, real))
			if err := os.Chmod(script, 0o755); err != nil {
				t.Fatal(err)
			}
			env[i] = names.EnvEngine + "=" + script
		}
	}
	w := startWatch(t, proj, env)
	w.waitFor(t, "Rest API URL: ", 1, true)
	fn := c.functionName(t)

	editGreeting(t, proj, "saved")
	w.waitFor(t, "Hotswapped 1 function of stack shop-dev", 1, true)
	w.waitFor(t, "Rest API URL: ", 2, true)
	if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want {
		t.Errorf("function code %s after the hotswap, want %s", got, want)
	}

	addUsersRoute(t, proj)
	w.waitFor(t, "Hotswap not possible: a route change (+ POST /users/{name}). Deploying fully.", 1, true)
	w.waitFor(t, "Rest API URL: ", 3, true)
	if !strings.Contains(c.cfn.Template("shop-dev"), "/users/{name}") {
		t.Error("the deployed template lacks the new route")
	}

	mainGo := filepath.Join(proj, "main.go")
	src, _ := os.ReadFile(mainGo)
	writeFile(t, mainGo, strings.Replace(string(src), "app.Run()", "app.Run(", 1))
	w.waitFor(t, "Still watching: fix the cause and save to try again.", 1, false)
	writeFile(t, mainGo, string(src))
	editGreeting(t, proj, "fixed")
	w.waitFor(t, "Hotswapped 1 function of stack shop-dev", 2, false)
	out := w.waitFor(t, "Rest API URL: ", 4, false)
	if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want {
		t.Errorf("function code %s after the fix, want %s", got, want)
	}

	if err := w.stop(t); err != nil {
		t.Errorf("framework deploy --watch after Ctrl-C: %v, want exit 0", err)
	}
	// Five syntheses (a failed one among them), one engine program: Node.js
	// and the CDK stayed loaded from one change to the next.
	if b, err := os.ReadFile(starts); err != nil || string(b) != "serve\n" {
		t.Errorf("engine programs started during the watch: %q, %v; want one, serving every synthesis", b, err)
	}
	out = w.out.String()
	t.Logf("$ framework deploy --watch\n%s", out)
	noNoise(t, out)
	for _, want := range []string{
		" for changes to stage dev (hotswapping code-only changes, deploying fully otherwise); Ctrl-C stops.",
		"Hotswap not possible: stack shop-dev is not deployed yet. Deploying fully.",
		"\nChanged: main.go\n",
		"Error: deploy: ",
		"Stopped watching.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("watch output lacks %q", want)
		}
	}
}

// BenchmarkDeployLoop measures the loop's own cost against the stand-in
// and moto: from a saved code change in examples/hello to the function
// updated in moto, with `framework deploy --watch` hotswapping, then with
// `--watch --no-hotswap` deploying fully through CloudFormation, in one
// run. The full deploy is measured twice: polling CloudFormation every
// 2 s as users run it (the stand-in moves one step per poll), and every
// 5 ms, which leaves the CLI's own work (build, synth, change set) with
// CloudFormation answering at once. Each iteration saves a new greeting,
// so every build compiles and links anew. Run it with `make bench-hotswap`.
func BenchmarkDeployLoop(b *testing.B) {
	c := startCloud(b)
	proj := helloProject(b, c.env)
	defaultPoll := slices.DeleteFunc(slices.Clone(c.env), func(kv string) bool { return strings.HasPrefix(kv, "FRAMEWORK_POLL_INTERVAL=") })
	type result struct {
		name string
		mean time.Duration
	}
	var results []result
	seq := 0
	loop := func(name string, env []string, args ...string) {
		var total time.Duration
		var n int
		b.Run(name, func(b *testing.B) {
			w := startWatch(b, proj, env, args...)
			w.waitFor(b, "Rest API URL: ", 1, true)
			fn := c.functionName(b)
			total, n = 0, b.N
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				seq++
				before := c.codeSHA256(b, fn)
				b.StartTimer()
				start := time.Now()
				editGreeting(b, proj, fmt.Sprintf("edit %d", seq))
				w.waitFor(b, "Rest API URL: ", i+2, true)
				total += time.Since(start)
				b.StopTimer()
				if got := c.codeSHA256(b, fn); got == before {
					b.Fatalf("the function's code did not change:\n%s", w.out.String())
				}
				b.StartTimer()
			}
			b.StopTimer()
			if err := w.stop(b); err != nil {
				b.Fatalf("stop: %v", err)
			}
		})
		if n > 0 {
			results = append(results, result{name, total / time.Duration(n)})
		}
	}
	loop("hotswap", c.env)
	loop("full-poll-2s", defaultPoll, "--no-hotswap")
	loop("full-poll-5ms", c.env, "--no-hotswap")
	if len(results) == 3 {
		h := results[0].mean.Seconds()
		fmt.Printf("\n| examples/hello: saved edit → function updated in moto | mean | hotswap / this |\n|---|---|---|\n")
		for _, r := range results {
			fmt.Printf("| %s | %.2f s | %.2f |\n", r.name, r.mean.Seconds(), h/r.mean.Seconds())
		}
		fmt.Println()
	}
}

// helloProject is examples/hello as a project of its own (new-project's
// go.mod pointing at this checkout, the example's main.go and config).
func helloProject(t testing.TB, env []string) string {
	t.Helper()
	proj := newProject(t, env, "hello")
	for _, f := range []string{"main.go", ".framework/config.json"} {
		b, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "hello", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(proj, f), string(b))
	}
	return proj
}
