package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	want, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if root != want {
		t.Errorf("RepoRoot = %s, want %s", root, want)
	}
	if _, err := os.Stat(filepath.Join(root, "framework")); err != nil {
		t.Errorf("no framework package under %s: %v", root, err)
	}
}
