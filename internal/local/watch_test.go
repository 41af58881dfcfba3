package local

import (
	"path/filepath"
	"testing"
)

func TestRelevant(t *testing.T) {
	root := filepath.FromSlash("/p")
	for path, want := range map[string]bool{
		"/p/main.go":                true,
		"/p/store/store.go":         true,
		"/p/main_test.go":           false,
		"/p/.#main.go":              false,
		"/p/go.mod":                 true,
		"/p/go.sum":                 true,
		"/p/.framework/config.json": true,
		"/p/.framework/policy.json": false,
		"/p/README.md":              false,
		"/p/sub/config.json":        false,
	} {
		if got := relevant(root, filepath.FromSlash(path)); got != want {
			t.Errorf("relevant(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestSkipDir(t *testing.T) {
	for name, want := range map[string]bool{".git": true, ".framework": false, "cdk.out": true, "node_modules": true, "store": false, "testdata": true} {
		if got := skipDir(name); got != want {
			t.Errorf("skipDir(%s) = %v, want %v", name, got, want)
		}
	}
}
