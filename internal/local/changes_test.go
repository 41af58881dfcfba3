package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestChangesBatchesRelevantFiles(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "store"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Changes(ctx, dir, 50*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"main.go", "store/store.go", "main_test.go", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case files := <-ch:
		if got := strings.Join(files, ","); got != "main.go,store/store.go" {
			t.Errorf("batch %q, want main.go,store/store.go", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no batch of changes")
	}
	cancel()
	for range ch {
	}
}
