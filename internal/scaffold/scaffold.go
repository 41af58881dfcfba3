// Package scaffold creates new projects for `framework new-project NAME`:
// a directory holding a Go module whose main package is a one-route app
// built by newApp() and tested in main_test.go (frameworktest),
// the project configuration .framework/config.json, and the module's
// dependency files go.mod and go.sum.
//
// The framework module is resolved in one of two ways:
//
//   - a development build of the CLI (built from a checkout by `make build`,
//     which records the checkout's path) writes a replace directive pointing
//     the module at that checkout, so the project builds offline against
//     exactly the code the CLI was built from;
//   - a released build requires the framework module at the CLI's own
//     version, fetched through the Go module proxy like any dependency.
//
// go.sum starts, for a development build, as the checkout's own go.sum (the
// checksums of the framework's dependencies, so nothing needs the checksum
// database), and is then pruned and completed by `go mod tidy`: offline from
// the module cache, else through the module proxy, else offline leaving out
// what only the dependencies' own tests import (a fresh module cache of a
// machine without network has everything else).
package scaffold

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/framework-dev/framework/internal/config"
)

// FrameworkModule is the module path of the framework.
const FrameworkModule = "github.com/framework-dev/framework"

// Options describe the project to create.
type Options struct {
	// Name is the app's name and the new directory's name.
	Name string
	// ParentDir is where the directory is created; empty means the current directory.
	ParentDir string
	// FrameworkDir, when not empty, is a framework checkout the project's
	// go.mod points at with a replace directive (development builds).
	FrameworkDir string
	// FrameworkVersion is the framework version required when FrameworkDir
	// is empty (released builds), for example "v0.3.0".
	FrameworkVersion string
	// TidyTimeout bounds each go command (`go mod tidy`, `go list`) run in
	// the new project; 0 means 5 minutes.
	TidyTimeout time.Duration
}

// Result describes the project created.
type Result struct {
	// Dir is the new project's directory (absolute).
	Dir string
	// Files are the files written, relative to Dir, sorted.
	Files []string
}

// ExistsError reports that the project directory is already there.
type ExistsError struct{ Path string }

// Error says what exists and what to do.
func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists: choose another name, or remove it first; nothing was written", e.Path)
}

// Config is the configuration file of the new project: the defaults, and
// a "$schema" naming the JSON Schema of the framework version the project
// requires (main's for a development build), so that editors complete
// and check its keys.
func Config(o Options) *config.File {
	f := config.Default(o.Name)
	version := o.FrameworkVersion
	if o.FrameworkDir != "" {
		version = ""
	}
	f.Schema = config.SchemaURL(version)
	return f
}

// Create writes the new project. Nothing is left behind on failure: the
// files are written into a temporary sibling directory that is renamed into
// place only when everything, go.sum included, is ready.
func Create(ctx context.Context, o Options) (*Result, error) {
	if err := config.CheckAppName(o.Name); err != nil {
		return nil, fmt.Errorf("%w; nothing was written", err)
	}
	parent := o.ParentDir
	if parent == "" {
		parent = "."
	}
	parent, err := filepath.Abs(parent)
	if err != nil {
		return nil, err
	}
	dest := filepath.Join(parent, o.Name)
	if _, err := os.Lstat(dest); err == nil {
		return nil, &ExistsError{Path: dest}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("check %s: %w", dest, err)
	}
	var require, replace string
	switch {
	case o.FrameworkDir != "":
		fw, err := filepath.Abs(o.FrameworkDir)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(fw, "framework", "app.go")); err != nil {
			return nil, fmt.Errorf("this development build of the CLI was built from %s, which no longer holds the framework's source: rebuild the CLI with `make build` in a framework checkout; nothing was written", fw)
		}
		require, replace = "v0.0.0-00010101000000-000000000000", fw
	case o.FrameworkVersion != "":
		require = o.FrameworkVersion
	default:
		return nil, errors.New("no framework version to require: set FrameworkDir or FrameworkVersion")
	}

	tmp, err := os.MkdirTemp(parent, "."+o.Name+".new-")
	if err != nil {
		return nil, fmt.Errorf("cannot create the project in %s: %w", parent, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	data := struct{ Name, Module, Require, Replace string }{o.Name, FrameworkModule, require, replace}
	files := map[string]string{"go.mod": goModTmpl, "main.go": mainTmpl, "main_test.go": mainTestTmpl, ".gitignore": gitignoreTmpl}
	for name, tmpl := range files {
		var buf bytes.Buffer
		if err := template.Must(template.New(name).Parse(tmpl)).Execute(&buf, data); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, name), buf.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := Config(o).Write(tmp); err != nil {
		return nil, err
	}
	if replace != "" {
		// The checkout's go.sum holds the checksums of the framework's own
		// dependencies: starting from it, tidy verifies them locally instead
		// of asking the checksum database, so an offline machine (or one
		// that reaches only the module proxy) can create projects.
		if sums, err := os.ReadFile(filepath.Join(replace, "go.sum")); err == nil {
			if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sums, 0o644); err != nil {
				return nil, fmt.Errorf("write go.sum: %w", err)
			}
		}
	}
	timeout := o.TidyTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	if err := tidy(ctx, tmp, timeout); err != nil {
		return nil, fmt.Errorf("%w; nothing was written", err)
	}
	if _, err := os.Lstat(dest); err == nil {
		return nil, &ExistsError{Path: dest}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return nil, fmt.Errorf("move the new project into place at %s: %w", dest, err)
	}
	done = true
	res := &Result{Dir: dest}
	err = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			res.Files = append(res.Files, filepath.ToSlash(rel))
		}
		return err
	})
	return res, err
}

// tidy runs `go mod tidy` in dir: offline first, then through the proxy.
func tidy(ctx context.Context, dir string, timeout time.Duration) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the Go toolchain (the `go` command) is not on PATH: install Go 1.26 or newer from https://go.dev/dl/")
	}
	run := func(args []string, extra ...string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, goCmd, append([]string{"mod", "tidy"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(withoutGoFlags(os.Environ()), extra...)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	// Offline, every module comes from the local cache, which the go
	// command verified when it downloaded it: no checksum database needed.
	offline := []string{"GOPROXY=off", "GOSUMDB=off", "GOFLAGS=-mod=mod"}
	if _, err := run(nil, offline...); err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("`go mod tidy` in the new project stopped: %w", ctx.Err())
	}
	out, err := run(nil, "GOFLAGS=-mod=mod")
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("`go mod tidy` in the new project stopped: %w", ctx.Err())
	}
	// Without the network, the one thing a fresh module cache may lack is
	// what the dependencies' own tests import (tidy looks at those too):
	// -e records everything the project needs to build and skips that.
	if _, err := run([]string{"-e"}, offline...); err == nil && buildable(ctx, goCmd, dir, timeout) {
		return nil
	}
	return fmt.Errorf("`go mod tidy` in the new project failed, so its dependencies could not be resolved (is the Go module proxy reachable?):\n%s", out)
}

// buildable reports whether the project's packages load with the
// requirements tidy wrote, without the network.
func buildable(ctx context.Context, goCmd, dir string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "list", "-deps", "./...")
	cmd.Dir = dir
	cmd.Env = append(withoutGoFlags(os.Environ()), "GOPROXY=off", "GOFLAGS=-mod=readonly")
	return cmd.Run() == nil
}

// withoutGoFlags drops GOFLAGS, which the tidy runs set themselves.
func withoutGoFlags(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOFLAGS=") {
			out = append(out, kv)
		}
	}
	return out
}

const goModTmpl = `module {{.Name}}

go 1.26.0

require {{.Module}} {{.Require}}
{{- if .Replace}}

// A development build of the framework CLI points the project at the
// checkout it was built from. Drop this line to use a released version.
replace {{.Module}} => {{.Replace}}
{{- end}}
`

const mainTmpl = `// Command {{.Name}} is a framework app. Run it with ` + "`framework local`" + `, deploy it
// with ` + "`framework deploy`" + `, test it with ` + "`go test ./...`" + ` (main_test.go).
package main

import "github.com/framework-dev/framework/framework"

func main() {
	app := newApp()
	app.Run()
}

// newApp declares the app: its routes, handlers and resources. The tests
// call it too.
func newApp() *framework.App {
	app := framework.New("{{.Name}}")

	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"hello": "world"}, nil
	})

	return app
}
`

const mainTestTmpl = `package main

import (
	"testing"

	"github.com/framework-dev/framework/frameworktest"
)

// TestHello calls the route as ` + "`framework local`" + ` serves it (c.Lambda: as
// the deployed API does), without a server.
func TestHello(t *testing.T) {
	c := frameworktest.New(newApp())
	resp := c.Get("/", nil)
	var body map[string]string
	if err := resp.JSON(&body); resp.StatusCode != 200 || err != nil || body["hello"] != "world" {
		t.Fatalf("GET /: %d %s, want 200 {\"hello\":\"world\"}", resp.StatusCode, resp.Body)
	}
}

// TestWithEmulator runs the app against an AWS emulator: UseEmulator
// creates the resources newApp declares (framework/resource) there and
// points the app at them, as ` + "`framework local --aws-endpoint`" + ` does, and
// deletes them when the test ends. Without FRAMEWORK_TEST_AWS_ENDPOINT
// (for moto: http://127.0.0.1:5000) it is skipped, saying so.
func TestWithEmulator(t *testing.T) {
	app := newApp()
	frameworktest.UseEmulator(t, app)
	resp := frameworktest.New(app).Get("/", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /: %d %s, want 200", resp.StatusCode, resp.Body)
	}
}
`

const gitignoreTmpl = `cdk.out/
bootstrap
*.zip
`
