package scaffold

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

func TestCreateBuildsOffline(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	parent := t.TempDir()
	res, err := Create(context.Background(), Options{Name: "orders", ParentDir: parent, FrameworkDir: testutil.RepoRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".framework/config.json", ".gitignore", "go.mod", "go.sum", "main.go", "main_test.go"}
	if strings.Join(res.Files, ",") != strings.Join(want, ",") {
		t.Errorf("files %v, want %v", res.Files, want)
	}
	mod, _ := os.ReadFile(filepath.Join(res.Dir, "go.mod"))
	if !strings.Contains(string(mod), "replace "+FrameworkModule+" => "+testutil.RepoRoot(t)) {
		t.Errorf("go.mod does not point at the checkout:\n%s", mod)
	}
	cfg, _ := os.ReadFile(filepath.Join(res.Dir, ".framework", "config.json"))
	if !strings.Contains(string(cfg), `"$schema": "https://raw.githubusercontent.com/framework-dev/framework/main/docs/config.schema.json"`) {
		t.Errorf("config.json does not name its JSON Schema:\n%s", cfg)
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

// The new project's tests build the app with newApp: TestHello passes
// offline, and TestWithEmulator is skipped, saying what to set, without an
// emulator; given moto, the resources the app declares are created there
// and the test passes.
func TestCreatedProjectTests(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	res, err := Create(context.Background(), Options{Name: "orders", ParentDir: t.TempDir(), FrameworkDir: testutil.RepoRoot(t)})
	if err != nil {
		t.Fatal(err)
	}
	goTest := func(env ...string) string {
		t.Helper()
		cmd := exec.Command("go", "test", "-count=1", "-v", ".")
		cmd.Dir = res.Dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go test in the new project: %v\n%s", err, out)
		}
		return string(out)
	}
	out := goTest("FRAMEWORK_TEST_AWS_ENDPOINT=")
	for _, want := range []string{"--- PASS: TestHello", "--- SKIP: TestWithEmulator", "FRAMEWORK_TEST_AWS_ENDPOINT is not set"} {
		if !strings.Contains(out, want) {
			t.Errorf("go test without an emulator: output lacks %q:\n%s", want, out)
		}
	}

	// A declared table, read by the route: created at moto for the test.
	path := filepath.Join(res.Dir, "main.go")
	src, _ := os.ReadFile(path)
	edited := strings.Replace(string(src), "\treturn app\n", `	todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}})
	todos.Allow(resource.Read)
	app.Route("/table", func(r *framework.Request) (any, error) {
		if todos.Name() == "" {
			return nil, framework.NotFoundError{Message: "no table"}
		}
		return map[string]string{"table": todos.Name()}, nil
	})
	return app
`, 1)
	edited = strings.Replace(edited, `import "github.com/framework-dev/framework/framework"`, `import (
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)`, 1)
	testPath := filepath.Join(res.Dir, "main_test.go")
	tests, _ := os.ReadFile(testPath)
	editedTests := strings.Replace(string(tests), `resp := frameworktest.New(app).Get("/", nil)`, `resp := frameworktest.New(app).Get("/table", nil)`, 1)
	if edited == string(src) || editedTests == string(tests) {
		t.Fatalf("main.go or main_test.go of the new project changed shape:\n%s\n%s", src, tests)
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(testPath, []byte(editedTests), 0o644); err != nil {
		t.Fatal(err)
	}
	moto := mototest.Start(t)
	out = goTest("FRAMEWORK_TEST_AWS_ENDPOINT="+moto.URL, "AWS_PROFILE=", "AWS_ENDPOINT_URL=")
	if !strings.Contains(out, "--- PASS: TestWithEmulator") || strings.Contains(out, "is not set") {
		t.Errorf("go test against moto: want TestWithEmulator passed with its table:\n%s", out)
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
