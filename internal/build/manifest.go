package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// RoutesError reports declarations the app itself refused in manifest mode
// (exit status 2), or that the manifest it printed fails
// (manifest.Validate); Output is the messages, as the app words them.
type RoutesError struct {
	// Dir is the project directory.
	Dir string
	// Output is what the app printed on stderr, or the manifest's
	// problems worded the same way.
	Output string
}

// Error returns the project directory and the app's messages.
func (e *RoutesError) Error() string {
	return fmt.Sprintf("invalid declarations in %s:\n%s", e.Dir, strings.TrimRight(e.Output, "\n"))
}

// Manifest builds the app in projectDir for the host and runs it with
// FRAMEWORK_MODE=manifest, returning the route table. A compile failure
// returns a *CompileError carrying the compiler's output; invalid
// declarations return a *RoutesError with the app's own messages, or with
// the problems manifest.Validate finds in the manifest it printed.
//
// The binary is kept in the user's cache directory, keyed by the project's
// path, so a call with nothing changed neither compiles nor links again.
func Manifest(ctx context.Context, projectDir string) (*manifest.Manifest, error) {
	return new(Builder).Manifest(ctx, projectDir)
}

// ManifestFlags are the go build flags of the binary Manifest runs, beyond
// the host build's -trimpath and -buildvcs=false:
//   - the Lambda package's build tag, so that the manifest comes from the
//     files the deployed function is built from, and aws-lambda-go's RPC
//     mode (net/rpc, encoding/gob, html/template: about a third of the
//     link) stays out of a binary that only prints its declarations;
//   - no symbol table or DWARF: nobody debugs it, and a link without them
//     takes 0.35 s instead of 0.75 s for examples/hello on 2 cores, on the
//     path of every synth after an edit.
//
// The policy scan loads packages with the same tags so that it finds their
// export data in Go's build cache.
var ManifestFlags = []string{"-tags=" + LambdaTags, "-ldflags=-s -w"}

// LambdaTags are the build tags of the Lambda package (Package).
const LambdaTags = "lambda.norpc"

// Manifest is the package-level Manifest with the Builder's settings.
func (b *Builder) Manifest(ctx context.Context, projectDir string) (*manifest.Manifest, error) {
	abs, bin, release, err := b.hostBuild(ctx, projectDir, "host", "app", ManifestFlags)
	if err != nil {
		return nil, err
	}
	defer release()
	return b.runManifest(ctx, abs, bin)
}

// runManifest runs bin in manifest mode in dir and decodes what it prints.
func (b *Builder) runManifest(ctx context.Context, dir, bin string) (*manifest.Manifest, error) {
	parent := ctx
	timeout := b.manifestTimeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	// The variables that would make the app a Lambda function or a server
	// are dropped: manifest mode must win.
	cmd.Env = b.environWith([]string{names.EnvLambdaRuntimeAPI, names.EnvListenFD, names.EnvAddr}, names.EnvMode+"="+names.ModeManifest)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	switch {
	case parent.Err() != nil:
		return nil, fmt.Errorf("read route manifest of %s: %w", dir, parent.Err())
	case ctx.Err() != nil:
		return nil, fmt.Errorf("the app in %s did not print its route manifest within %s: does its main function call app.Run() before doing anything else?", dir, timeout)
	case err != nil:
		var ee *exec.ExitError
		crashed := goCrash(stderr.Bytes())
		if errors.As(err, &ee) && ee.ExitCode() == 2 && !crashed {
			return nil, &RoutesError{Dir: dir, Output: stderr.String()}
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "(no output on stderr)"
		}
		what := "failed"
		if crashed {
			what = "crashed"
		}
		return nil, fmt.Errorf("the app in %s %s in manifest mode (%v):\n%s", dir, what, err, msg)
	}
	return decodeManifest(dir, stdout.Bytes())
}

// decodeManifest parses and checks the JSON an app printed in manifest mode.
func decodeManifest(dir string, out []byte) (*manifest.Manifest, error) {
	var m manifest.Manifest
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("the app in %s did not print a route manifest on stdout (%v); got %s: does its main function call app.Run(), and does nothing else print to stdout at start-up?", dir, err, excerpt(out))
	}
	if m.Version != manifest.Version {
		return nil, fmt.Errorf("the app in %s printed a route manifest of version %d, but this CLI reads version %d: build the app and the CLI from the same framework version", dir, m.Version, manifest.Version)
	}
	if m.App == "" {
		return nil, fmt.Errorf("the app in %s printed a route manifest without an app name: pass one to framework.New", dir)
	}
	// The app, built with the Lambda build's tags, checked its routes
	// only (manifest.Validate is left out of that build); the rest is
	// checked here, and reported as the app reports what it refuses.
	if err := manifest.Validate(&m); err != nil {
		return nil, &RoutesError{Dir: dir, Output: m.App + ": " + declarationsText(err) + "\n"}
	}
	return &m, nil
}

// declarationsText words the problems joined in err as package framework
// words the declarations an app refuses: their count, then one a line,
// sorted.
func declarationsText(err error) string {
	var msgs []string
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			msgs = append(msgs, e.Error())
		}
	} else {
		msgs = []string{err.Error()}
	}
	slices.Sort(msgs)
	noun := "declarations"
	if len(msgs) == 1 {
		noun = "declaration"
	}
	return fmt.Sprintf("%d invalid %s:\n  %s", len(msgs), noun, strings.Join(msgs, "\n  "))
}

// excerpt quotes the start of out for an error message.
func excerpt(out []byte) string {
	const n = 200
	s := strings.TrimSpace(string(out))
	if s == "" {
		return "nothing"
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// goCrash reports whether stderr is a Go runtime crash (an unrecovered panic
// or a fatal error), which exits with status 2 like refused routes do.
func goCrash(stderr []byte) bool {
	for _, line := range bytes.Split(stderr, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("panic: ")) || bytes.HasPrefix(line, []byte("fatal error: ")) {
			return bytes.Contains(stderr, []byte("\ngoroutine ")) || bytes.Contains(stderr, []byte("\n[signal "))
		}
	}
	return false
}

// ManifestOf runs bin, a host build of the app in projectDir (Host's), in
// manifest mode and returns its route table, as Manifest does without
// building again.
func ManifestOf(ctx context.Context, projectDir, bin string) (*manifest.Manifest, error) {
	abs, err := projectDirAbs(projectDir)
	if err != nil {
		return nil, err
	}
	return new(Builder).runManifest(ctx, abs, bin)
}
