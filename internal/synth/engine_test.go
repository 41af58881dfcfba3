package synth

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// writeSource writes a framework-like checkout whose engine program has
// the given main.go.
func writeSource(t *testing.T, main string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                           "module " + Module + "\n\ngo 1.25\n",
		"cli/" + EngineName + "/main.go":   main,
		"cli/" + EngineName + "/x_test.go": "package main\n",
		"test/e2e.go":                      "package test\n",
	}
	testutil.WriteFiles(t, dir, files)
	return dir
}

// sourceEngine returns an Engine of version 1.0.0 that builds from a
// checkout writeSource writes with main, into the cache directory it also
// returns (its only environment variable).
func sourceEngine(t *testing.T, main string) (*Engine, string) {
	t.Helper()
	dir := writeSource(t, main)
	cache := t.TempDir()
	return &Engine{Version: "1.0.0", SourceDir: dir, Getenv: func(k string) string {
		if k == names.EnvCacheDir {
			return cache
		}
		return ""
	}}, cache
}

// TestEngineKeyFollowsTheSource: a checkout's engine is rebuilt when a Go
// file it may compile changes, not for tests or end-to-end files.
func TestEngineKeyFollowsTheSource(t *testing.T) {
	dir := writeSource(t, "package main\n\nfunc main() {}\n")
	s := source{dir: dir}
	key := func() string {
		k, err := s.key("1.0.0")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k0 := key()
	later := time.Now().Add(time.Hour)
	for _, f := range []string{"cli/" + EngineName + "/x_test.go", "test/e2e.go"} {
		os.Chtimes(filepath.Join(dir, f), later, later)
	}
	if k := key(); k != k0 {
		t.Errorf("touching a test file changed the engine's key")
	}
	os.Chtimes(filepath.Join(dir, "cli", EngineName, "main.go"), later, later)
	if k := key(); k == k0 {
		t.Errorf("editing the engine's source kept its key")
	}
	if k, _ := s.key("2.0.0"); k == key() {
		t.Errorf("another CLI version kept the key")
	}
}

// TestEngineBuiltOnceAndReused: the first Path builds the engine with a
// progress line saying what, how long and that it happens once; the next
// finds it without building.
func TestEngineBuiltOnceAndReused(t *testing.T) {
	e, cache := sourceEngine(t, "package main\n\nfunc main() {}\n")
	var progress strings.Builder
	var built []string
	p, err := e.Path(context.Background(), &progress, func(step string, _ time.Duration) { built = append(built, step) })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, filepath.Join(cache, "engine")) {
		t.Errorf("engine at %s, want it under %s", p, cache)
	}
	if got := progress.String(); !strings.Contains(got, "Building the synthesis engine") || !strings.Contains(got, "once") || !strings.Contains(got, "minute") || strings.Count(got, "\n") != 1 {
		t.Errorf("progress %q: want one line saying what is built, how long it takes, that it happens once", got)
	}
	if len(built) != 1 {
		t.Errorf("timed steps %q, want the engine build", built)
	}
	progress.Reset()
	p2, err := e.Path(context.Background(), &progress, nil)
	if err != nil || p2 != p || progress.Len() != 0 {
		t.Errorf("second Path: %s, %v, progress %q: want the same engine, no build", p2, err, progress.String())
	}
}

// TestEngineBuildFailureSaysWhatToDo: a failed build is one error that
// quotes the compiler and says what to do.
func TestEngineBuildFailureSaysWhatToDo(t *testing.T) {
	e, cache := sourceEngine(t, "package main\n\nfunc main() { undefinedThing() }\n")
	_, err := e.Path(context.Background(), nil, nil)
	if err == nil {
		t.Fatal("a broken engine source built")
	}
	msg := err.Error()
	for _, want := range []string{"building the synthesis engine", "undefinedThing", "run the command again", names.EnvEngine} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error %q is more than one line", msg)
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "engine", "*", EngineName+"*"))
	if len(matches) != 0 {
		t.Errorf("a failed build left %q", matches)
	}
}

func TestEngineFromTheEnvironment(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nothing")
	e := &Engine{Getenv: func(k string) string {
		if k == names.EnvEngine {
			return missing
		}
		return ""
	}}
	if _, err := e.Path(context.Background(), nil, nil); err == nil || !strings.Contains(err.Error(), names.EnvEngine) {
		t.Errorf("err = %v, want one naming %s", err, names.EnvEngine)
	}
}

// TestCompilerEnvironKeepsTheUsersGOGC: the engine's build runs the
// compilers with GOGC=400 and a memory limit, unless the user set GOGC or
// GOMEMLIMIT, which are kept.
func TestCompilerEnvironKeepsTheUsersGOGC(t *testing.T) {
	defer func(f func() uint64) { machineMemory = f }(machineMemory)
	machineMemory = func() uint64 { return uint64(runtime.NumCPU()) << 32 } // 4 GiB a core
	if got := compilerEnviron([]string{"HOME=/h"}); strings.Join(got, " ") != "HOME=/h GOGC="+compilerGOGC+" GOMEMLIMIT=2048MiB" {
		t.Errorf("environment %q, want GOGC=%s and GOMEMLIMIT=2048MiB added", got, compilerGOGC)
	}
	if got := compilerEnviron([]string{"GOGC=50", "HOME=/h"}); strings.Join(got, " ") != "GOGC=50 HOME=/h" {
		t.Errorf("environment %q, want the user's GOGC=50 kept", got)
	}
	if got := compilerEnviron([]string{"GOMEMLIMIT=1GiB"}); strings.Join(got, " ") != "GOMEMLIMIT=1GiB" {
		t.Errorf("environment %q, want the user's GOMEMLIMIT kept alone", got)
	}
	machineMemory = func() uint64 { return 0 }
	if got := compilerEnviron(nil); strings.Join(got, " ") != "GOGC="+compilerGOGC {
		t.Errorf("environment %q with the memory unknown, want GOGC alone", got)
	}
}

// TestCompilerMemLimit: with GOGC=400 the compilers of a machine with many
// cores and little memory still fit in it.
func TestCompilerMemLimit(t *testing.T) {
	for _, tc := range []struct {
		memory uint64
		cores  int
		want   string
	}{
		{24 << 30, 2, "6144MiB"}, // this project's machine: no effect on a 1.2 GB peak
		{8 << 30, 8, "512MiB"},   // 8 compilers within half of 8 GB
		{4 << 30, 16, "512MiB"},  // never below 512 MiB: the compiler would only thrash
		{0, 4, ""},
	} {
		if got := compilerMemLimit(tc.memory, tc.cores); got != tc.want {
			t.Errorf("compilerMemLimit(%d MiB, %d cores) = %q, want %q", tc.memory>>20, tc.cores, got, tc.want)
		}
	}
	if m := machineMemory(); runtime.GOOS == "linux" && m < 256<<20 {
		t.Errorf("machineMemory() = %d on Linux, want the machine's memory", m)
	}
}
