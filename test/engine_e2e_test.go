package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/names"
)

// TestEngineBuiltOnceOnFirstSynth: commands that do not synthesize never
// build the synthesis engine; the first synth builds it, saying so in one
// line, and a second project on the same machine reuses it. The other
// end-to-end tests run the engine frameworkCLI built (FRAMEWORK_ENGINE);
// this one has the CLI build its own from the checkout, as `make build`'s
// CLI does.
func TestEngineBuiltOnceOnFirstSynth(t *testing.T) {
	var env []string
	var cache string
	for _, kv := range testEnv(t) {
		switch {
		case strings.HasPrefix(kv, names.EnvEngine+"="):
			continue
		case strings.HasPrefix(kv, names.EnvCacheDir+"="):
			cache = strings.TrimPrefix(kv, names.EnvCacheDir+"=")
		}
		env = append(env, kv)
	}
	work := t.TempDir()
	for _, name := range []string{"first", "second"} {
		if _, stderr, code := runCLI(t, work, env, "new-project", name); code != 0 {
			t.Fatalf("new-project %s: exit %d: %s", name, code, stderr)
		}
	}
	first, second := filepath.Join(work, "first"), filepath.Join(work, "second")
	engines := func() []string {
		m, _ := filepath.Glob(filepath.Join(cache, "engine", "*", "framework-synth"))
		return m
	}

	if _, stderr, code := runCLI(t, first, env, "openapi", "--out", filepath.Join(t.TempDir(), "openapi.json")); code != 0 {
		t.Fatalf("openapi: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(cache, "engine")); !os.IsNotExist(err) {
		t.Errorf("openapi created the engine's cache directory (%v): only synth, diff and deploy need the engine", err)
	}

	stdout, stderr, code := runCLI(t, first, env, "synth", "-v")
	if code != 0 {
		t.Fatalf("first synth: exit %d: %s", code, stderr)
	}
	line := ""
	for l := range strings.Lines(stdout) {
		if strings.HasPrefix(l, "Building the synthesis engine") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "once") || !strings.Contains(line, "minute") {
		t.Errorf("first synth printed %q: want a line saying the engine is built once and how long that takes", stdout)
	}
	for _, step := range []string{"synthesis engine build", "synthesis engine start", "go build for the host", "go build for linux/arm64", "aws-cdk-lib", "CDK synthesis", "total", "Resources: 7"} {
		if !strings.Contains(stdout, step) {
			t.Errorf("synth -v output lacks %q:\n%s", step, stdout)
		}
	}
	built := engines()
	if len(built) != 1 {
		t.Fatalf("engines in the cache after the first synth: %q, want one", built)
	}
	fi, err := os.Stat(built[0])
	if err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code = runCLI(t, second, env, "synth")
	if code != 0 {
		t.Fatalf("second project's synth: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "Building the synthesis engine") {
		t.Errorf("the second project's synth built the engine again:\n%s", stdout)
	}
	if again := engines(); len(again) != 1 || again[0] != built[0] {
		t.Errorf("engines after the second synth: %q, want %s only", again, built[0])
	}
	if fi2, err := os.Stat(built[0]); err != nil || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("the engine was rewritten by the second synth (%v)", err)
	}
}
