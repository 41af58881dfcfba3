package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/framework-dev/framework/internal/scaffold"
)

// NewProjectCmd creates a project directory: a Go module with a one-route
// app, .framework/config.json, .gitignore, go.mod and go.sum, ready for
// `framework local`. It refuses, writing nothing, when the directory exists.
type NewProjectCmd struct {
	Name string `arg:"" help:"Name of the app and of the directory to create (letters, digits and hyphens, starting with a letter)."`
	JSON bool   `name:"json" help:"Print the result as JSON."`
}

// Run creates the project in the current directory (or --project-dir). The
// first Ctrl-C (SIGINT) or SIGTERM stops it, leaving nothing behind.
func (c *NewProjectCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	stdout := env.Stdout
	o := scaffold.Options{Name: c.Name, ParentDir: g.ProjectDir, FrameworkDir: sourceDir()}
	if o.FrameworkDir == "" {
		o.FrameworkVersion = "v" + strings.TrimPrefix(version(), "v")
	}
	res, err := scaffold.Create(ctx, o)
	if err != nil {
		return err
	}
	if c.JSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"dir": res.Dir, "files": res.Files})
	}
	rel := res.Dir
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, res.Dir); err == nil && !strings.HasPrefix(r, "..") {
			rel = r
		}
	}
	fmt.Fprintf(stdout, "Created %s/ (%s).\nNext: cd %s && framework local\n", rel, strings.Join(res.Files, ", "), rel)
	return nil
}

// sourceDir returns the framework checkout of a development build: the one
// `make build` recorded in SourceDir, or, for `go install ./cli/framework`
// run in a checkout (no -trimpath), the checkout this file was compiled
// from when it is still there. Released builds return "".
func sourceDir() string {
	if SourceDir != "" {
		return SourceDir
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Dir(filepath.Dir(file))
	if strings.Contains(filepath.Base(root), "@") {
		// The module cache's read-only copy (`go install ...@VERSION`
		// without -trimpath): a released build, which requires the version.
		return ""
	}
	if _, err := os.Stat(filepath.Join(root, "framework", "app.go")); err != nil {
		return ""
	}
	return root
}
