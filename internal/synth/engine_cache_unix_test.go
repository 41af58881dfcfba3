//go:build unix

package synth

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/framework-dev/framework/internal/build"
)

// TestEngineHeldWhileItRuns: from the moment a synthesis takes the engine
// until it is done, another process's cache trimming cannot remove it
// (its lock is held), and its use is recorded.
func TestEngineHeldWhileItRuns(t *testing.T) {
	t.Parallel()
	e, cache := sourceEngine(t, "package main\n\nfunc main() {}\n")
	bin, _, _, err := e.locate()
	if err != nil {
		t.Fatal(err)
	}
	if dir := e.Dir(); dir != filepath.Dir(bin) || filepath.Dir(dir) != filepath.Join(cache, build.EngineCacheName) {
		t.Fatalf("Dir() = %s, want %s under %s/%s", dir, filepath.Dir(bin), cache, build.EngineCacheName)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("built"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, release, err := e.acquire(context.Background(), nil, nil)
	if err != nil || got != bin {
		t.Fatalf("acquire = %s, %v; want the built engine %s", got, err, bin)
	}
	lock := filepath.Join(filepath.Dir(bin), ".lock")
	if _, ok, _ := build.TryLockFile(lock); ok {
		t.Errorf("the engine's lock is free while a synthesis runs it: a trim could remove it")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(bin), build.EngineUsed)); err != nil {
		t.Errorf("the engine's use is not recorded: %v", err)
	}
	release()
	r, ok, err := build.TryLockFile(lock)
	if !ok {
		t.Fatalf("the engine's lock is still held after the run (%v)", err)
	}
	r()
}
