package scan

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

// TestReachableAgreesWithTheGoCommand: the packages the scan type-checks,
// found from import declarations alone, are those the go command's import
// graph gives, wherever reachable answers at all; and it answers for the
// usual layouts, or every synth would run the go command once more.
func TestReachableAgreesWithTheGoCommand(t *testing.T) {
	offline(t)
	mainImporting := func(imports ...string) string {
		src := "package main\n\n"
		for _, imp := range imports {
			src += fmt.Sprintf("import _ %q\n", imp)
		}
		return src + "\nfunc main() {}\n"
	}
	tests := []struct {
		name  string
		dir   string // the main package's directory in the module
		files map[string]string
		want  []string
	}{
		{
			name:  "main alone",
			files: map[string]string{"main.go": mainImporting("fmt", "net/http")},
			want:  []string{"example.com/app"},
		},
		{
			name: "a chain, a diamond and a package nothing imports",
			files: map[string]string{
				"main.go":     mainImporting("example.com/app/a", "example.com/app/b", "strings"),
				"a/a.go":      "package a\n\nimport _ \"example.com/app/b/c\"\n",
				"b/b.go":      "package b\n\nimport _ \"example.com/app/b/c\"\n",
				"b/c/c.go":    "package c\n\nimport _ \"os\"\n",
				"unused/u.go": "package unused\n",
			},
			want: []string{"example.com/app", "example.com/app/a", "example.com/app/b", "example.com/app/b/c"},
		},
		{
			name: "main below the module root, importing the root package",
			dir:  "cmd/server",
			files: map[string]string{
				"cmd/server/main.go": mainImporting("example.com/app"),
				"lib.go":             "package app\n",
			},
			want: []string{"example.com/app", "example.com/app/cmd/server"},
		},
		{
			name: "files for another system or with a tag not set import packages this build leaves out",
			files: map[string]string{
				"main.go":        mainImporting("example.com/app/unix"),
				"extra.go":       "//go:build integration\n\npackage main\n\nimport _ \"example.com/app/extra\"\n",
				"extra/extra.go": "package extra\n",
				"win_windows.go": "package main\n\nimport _ \"example.com/app/win\"\n",
				"unix/unix.go":   "package unix\n",
				"win/win.go":     "package win\n",
			},
			want: []string{"example.com/app", "example.com/app/unix"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testutil.WriteModule(t, tt.files)
			if tt.dir != "" {
				dir += "/" + tt.dir
			}
			mod, paths, _, ok := reachable(dir)
			if !ok {
				t.Fatal("reachable did not answer: every synth of such an app would run the go command once more")
			}
			gmod, gpaths, _, err := reachableByGraph(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if mod != gmod || !slices.Equal(paths, gpaths) || !slices.Equal(paths, tt.want) {
				t.Errorf("reachable = %s %q\ngo command  %s %q\nwant %q", mod, paths, gmod, gpaths, tt.want)
			}
		})
	}
}

// TestReachableLeavesDoubtToTheGoCommand: where file selection depends on
// what only the go command knows, reachable does not answer.
func TestReachableLeavesDoubtToTheGoCommand(t *testing.T) {
	offline(t)
	const plainMain = "package main\n\nfunc main() {}\n"
	tests := []struct {
		name    string
		files   map[string]string
		goflags string
	}{
		{"a build constraint", map[string]string{"main.go": plainMain, "v.go": "//go:build go1.99\n\npackage main\n"}, ""},
		{"cgo", map[string]string{"main.go": plainMain, "c.go": "package main\n\nimport \"C\"\n"}, ""},
		{"a workspace", map[string]string{"main.go": plainMain, "go.work": "go 1.25\n\nuse .\n"}, ""},
		{"tags in GOFLAGS", map[string]string{"main.go": plainMain}, "-mod=readonly -tags=extra"},
		{"not package main", map[string]string{"lib.go": "package lib\n"}, ""},
		{"an import of a nested module", map[string]string{
			"main.go":    "package main\n\nimport _ \"example.com/app/sub\"\n\nfunc main() {}\n",
			"sub/go.mod": "module example.com/app/sub\n\ngo 1.25\n",
			"sub/sub.go": "package sub\n",
		}, ""},
		{"an import the module does not have", map[string]string{"main.go": "package main\n\nimport _ \"example.com/app/missing\"\n\nfunc main() {}\n"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.goflags != "" {
				t.Setenv("GOFLAGS", tt.goflags)
			}
			if _, paths, _, ok := reachable(testutil.WriteModule(t, tt.files)); ok {
				t.Errorf("reachable answered %q; want the go command asked", paths)
			}
		})
	}
}

// TestReachableExampleHello: the framework's own packages, which an app in
// this module reaches, are found as the go command finds them.
func TestReachableExampleHello(t *testing.T) {
	offline(t)
	_, paths, framework, ok := reachable("../../../examples/hello")
	_, gpaths, gframework, err := reachableByGraph(context.Background(), "../../../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ok %v, %d packages", ok, len(paths))
	if ok && (!slices.Equal(paths, gpaths) || framework != gframework) {
		t.Errorf("reachable = %q (framework %v)\ngo command  %q (framework %v)", paths, framework, gpaths, gframework)
	}
}
