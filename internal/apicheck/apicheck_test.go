package apicheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const root = "../.."

// TestAPIFilesFresh fails when a public package's exported API differs
// from its committed api/<package>.txt.
func TestAPIFilesFresh(t *testing.T) {
	for _, p := range Public {
		lines, err := API(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(root, Dir, FileName(p)))
		if err != nil {
			t.Fatalf("%v: run go generate ./internal/apicheck", err)
		}
		if got := Text(p, lines); got != string(b) {
			t.Errorf("the exported API of %s changed (%s) and %s/%s was not regenerated: run go generate ./internal/apicheck, then say so in CHANGELOG.md",
				p, strings.Join(Changed(string(b), got), ", "), Dir, FileName(p))
		}
	}
}

// TestAPIChangesInChangelog fails when an exported name differs from the
// last release's API and the top section of CHANGELOG.md does not name it.
func TestAPIChangesInChangelog(t *testing.T) {
	cl, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	heading, section := TopSection(string(cl))
	if heading == "" {
		t.Fatal(`CHANGELOG.md has no "## " version heading`)
	}
	for _, p := range Public {
		released, err := os.ReadFile(filepath.Join(root, ReleasedDir, FileName(p)))
		if err != nil {
			t.Fatalf("%v: run go run ./internal/apicheck/cmd/apigen -release when a version is released", err)
		}
		current, err := os.ReadFile(filepath.Join(root, Dir, FileName(p)))
		if err != nil {
			t.Fatal(err)
		}
		if missing := Unmentioned(section, Changed(string(released), string(current))); len(missing) > 0 {
			t.Errorf("exported names of %s changed since the last release but CHANGELOG.md's %q section does not mention them: %s",
				p, heading, strings.Join(missing, ", "))
		}
	}
}

// TestOnlyPublicPackagesImportable fails when a package outside internal/
// other than the public ones (and main packages) can be imported.
func TestOnlyPublicPackagesImportable(t *testing.T) {
	public := map[string]bool{}
	for _, p := range Public {
		public[p] = true
	}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		n := d.Name()
		if path != root && (n == "internal" || n == "testdata" || n == "node_modules" || n == "cdk.out" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		lines, err := API(path)
		if err != nil || rel == "." && len(lines) == 0 {
			return nil
		}
		if hasLibrary(t, path) && !public[rel] {
			t.Errorf("package %s is importable but not public: move it under internal/ (or add it to apicheck.Public with an example)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func hasLibrary(t *testing.T, dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "package ") {
				if strings.Fields(l)[1] != "main" {
					return true
				}
				break
			}
		}
	}
	return false
}

// TestChangelogCheck shows the check on a made-up change: a changed
// signature and an added name fail until the top section names them.
func TestChangelogCheck(t *testing.T) {
	old := "# h\nfunc NewApp(id string) *App\nmethod App.URL() string\ntype App struct\n"
	new := "# h\nfunc NewApp(id string, n int) *App\nmethod App.URL() string\nmethod App.Close() error\ntype App struct\n"
	changed := Changed(old, new)
	if want := []string{"App.Close", "NewApp"}; !reflect.DeepEqual(changed, want) {
		t.Fatalf("Changed = %q, want %q", changed, want)
	}
	log := "# Changelog\n\n## Unreleased\n\n- `NewApp` takes a count.\n\n## v0.1.0\n\n- App.Close\n"
	heading, section := TopSection(log)
	if heading != "Unreleased" {
		t.Errorf("heading %q", heading)
	}
	if got := Unmentioned(section, changed); !reflect.DeepEqual(got, []string{"App.Close"}) {
		t.Errorf("Unmentioned = %q, want [App.Close] (named only under an older version)", got)
	}
	if got := Unmentioned(section+"\n- `App.Close` ends it.\n", changed); got != nil {
		t.Errorf("Unmentioned = %q, want none", got)
	}
	if got := Unmentioned("- NewAppContext", []string{"NewApp"}); len(got) != 1 {
		t.Errorf("NewAppContext counted as naming NewApp")
	}
}

// TestPublicPackagesHaveExamples fails when a public package has no
// package example (example_test.go with an Example function).
func TestPublicPackagesHaveExamples(t *testing.T) {
	for _, p := range Public {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p), "example_test.go"))
		if err != nil || !strings.Contains(string(b), "\nfunc Example") {
			t.Errorf("public package %s has no example_test.go with an Example function", p)
		}
	}
}
