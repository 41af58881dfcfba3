// Package testutil holds helpers that several packages' tests share: where
// the repository is, and a function binary built as it is deployed. Only
// tests import it.
package testutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/runtimeapi"
)

// modulePath is the framework's module path, the first line of the
// repository's go.mod.
const modulePath = "github.com/framework-dev/framework"

// RepoRoot returns the repository's root directory: the nearest directory
// at or above the test's working directory (its package's directory)
// whose go.mod declares the framework's module. It fails the test when
// there is none.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module "+modulePath+"\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod of module %s at or above the working directory", modulePath)
		}
		dir = parent
	}
}

// BuildBootstrap builds the app in dir for this machine as the Lambda
// package is built (runtimeapi.BuildHostBootstrap) into a temporary
// directory of the test, and returns the binary's path.
func BuildBootstrap(t testing.TB, dir string) string {
	t.Helper()
	bin, err := runtimeapi.BuildHostBootstrap(t.Context(), dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// WriteFiles writes files (a slash-separated path under dir → content)
// into dir, creating the directories they need.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FirstDiff shows the first line in which two texts differ, for a test's
// failure message; "(same lines)" when they have the same lines.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, w, g)
		}
	}
	return "(same lines)"
}

// WriteModule writes files (as WriteFiles does) into a new temporary
// directory of the test and returns it; without a go.mod among files it
// adds one of a module example.com/app without dependencies.
func WriteModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module example.com/app\n\ngo 1.25\n"
	}
	WriteFiles(t, dir, files)
	return dir
}

// ReadJSON decodes the JSON file at path into v and returns the file's
// bytes, failing the test when it cannot.
func ReadJSON(t testing.TB, path string, v any) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return raw
}

// Golden compares got with the golden file at path, failing the test when
// the file is missing or differs (showing the first differing line); with
// update it writes got there instead, creating the file's directory.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run '%s' -update to write it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it after review):\n%s", path, FirstDiff(string(want), string(got)))
	}
}

// FrameworkModule adds to files (path → content) the go.mod and go.sum of
// a module example.com/app that requires this repository's framework module
// through a replace directive to the repository, as a development project
// does, and returns files.
func FrameworkModule(t testing.TB, files map[string]string) map[string]string {
	t.Helper()
	root := RepoRoot(t)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files["go.mod"] = "module example.com/app\n\ngo 1.25\n\nrequire " + modulePath + " v0.0.0\n\n" +
		"replace " + modulePath + " => " + root + "\n"
	files["go.sum"] = string(sum)
	return files
}
