package scaffold

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

func TestCreateBuildsOffline(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	parent := t.TempDir()
	res, err := Create(context.Background(), Options{Name: "orders", ParentDir: parent, FrameworkDir: testutil.RepoRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".framework/config.json", ".gitignore", "go.mod", "go.sum", "main.go"}
	if strings.Join(res.Files, ",") != strings.Join(want, ",") {
		t.Errorf("files %v, want %v", res.Files, want)
	}
	mod, _ := os.ReadFile(filepath.Join(res.Dir, "go.mod"))
	if !strings.Contains(string(mod), "replace "+FrameworkModule+" => "+testutil.RepoRoot(t)) {
		t.Errorf("go.mod does not point at the checkout:\n%s", mod)
	}
	main, _ := os.ReadFile(filepath.Join(res.Dir, "main.go"))
	if !strings.Contains(string(main), `framework.New("orders")`) {
		t.Errorf("main.go does not name the app:\n%s", main)
	}
	for _, f := range res.Files {
		// Text files end with a newline: `cat`, diffs and editors expect one.
		if b, _ := os.ReadFile(filepath.Join(res.Dir, f)); len(b) == 0 || b[len(b)-1] != '\n' {
			t.Errorf("%s does not end with a newline: %q", f, b[max(0, len(b)-20):])
		}
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "app"), ".")
	cmd.Dir = res.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the new project does not build offline: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("the parent holds %d entries, want only the project (no temporary directory left)", len(entries))
	}
}

func TestCreateRefusesAndWritesNothing(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	if err := os.Mkdir(filepath.Join(parent, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"existing directory", Options{Name: "taken", FrameworkDir: testutil.RepoRoot(t)}, "already exists"},
		{"invalid name", Options{Name: "no spaces", FrameworkDir: testutil.RepoRoot(t)}, "not a valid app name"},
		{"empty name", Options{Name: "", FrameworkDir: testutil.RepoRoot(t)}, "app name is empty"},
		{"checkout gone", Options{Name: "fresh", FrameworkDir: t.TempDir()}, "no longer holds the framework's source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.ParentDir = parent
			_, err := Create(context.Background(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 {
				t.Errorf("the parent holds %d entries after a refusal, want 1", len(entries))
			}
		})
	}
	var ee *ExistsError
	if _, err := Create(context.Background(), Options{Name: "taken", ParentDir: parent, FrameworkDir: testutil.RepoRoot(t)}); !errors.As(err, &ee) {
		t.Errorf("an existing directory gives %T, want *ExistsError", err)
	}
}

func TestCreateStoppedWritesNothing(t *testing.T) {
	// Ctrl-C while the new project's dependencies resolve: an error that
	// says so, and no directory left behind.
	t.Parallel()
	parent := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Create(ctx, Options{Name: "orders", ParentDir: parent, FrameworkDir: testutil.RepoRoot(t)})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("Create with a cancelled context: %v, want context.Canceled and \"nothing was written\"", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a stopped Create left %d entries in the parent", len(entries))
	}
}
