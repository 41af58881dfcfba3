package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/testutil"
)

// sdkApp writes files into a new module requiring this repository's
// framework and every module this repository requires (the SDK's among
// them, at the versions its go.sum holds), so that the app may import
// them without go mod tidy or the network, and returns its directory.
func sdkApp(t *testing.T, files map[string]string) string {
	t.Helper()
	files = testutil.FrameworkModule(t, files)
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var req strings.Builder
	for _, r := range mf.Require {
		fmt.Fprintf(&req, "require %s %s\n", r.Mod.Path, r.Mod.Version)
	}
	// The app's go version is at least the framework module's, as go mod
	// tidy would make it.
	files["go.mod"] = strings.Replace(files["go.mod"], "\ngo 1.25\n", "\ngo "+mf.Go.Version+"\n", 1) + "\n" + req.String()
	return testutil.WriteModule(t, files)
}

// TestCeilingHoldsForEveryRoute: code shared by routes (a closure in a
// variable, a method value, a closure a function returns) is held to the
// declarations of each route reaching it: testdata/sharedcode's routes b,
// d, x and y go beyond theirs, each named with the Allow it needs; a and c
// stay within theirs, and the worker, which reaches none of it, is not
// named.
func TestCeilingHoldsForEveryRoute(t *testing.T) {
	offline(t)
	src, err := os.ReadFile(filepath.Join("testdata", "sharedcode", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := sdkApp(t, map[string]string{"main.go": string(src)})
	rep, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := build.Manifest(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls})
	if err == nil {
		t.Fatal("sharedcode passes its declarations; want routes b, d, x and y refused")
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var handlers []string
	for _, e := range errs {
		var ce *perms.CeilingError
		if !errors.As(e, &ce) {
			t.Fatalf("error %v is no *perms.CeilingError", e)
		}
		handlers = append(handlers, ce.Handler)
	}
	slices.Sort(handlers)
	if want := []string{"b", "d", "x", "y"}; !slices.Equal(handlers, want) {
		t.Errorf("ceiling errors name handlers %q, want %q:\n%v", handlers, want, err)
	}
	msg := err.Error()
	for _, want := range []string{
		`handler "b" calls sqs.SendMessage (sqs:SendMessage) on queue "jobs", but the handler has no access to it`,
		`add jobs.Allow(resource.Send, "b")`,
		`handler "d" calls resource.Secret.Value (secretsmanager:GetSecretValue) on secret "token"`,
		`add token.Allow("d")`,
		`handler "x" calls sns.Publish (sns:Publish) on topic "events"`,
		`add events.Allow("x")`,
		`handler "y" calls sns.Publish (sns:Publish) on topic "events"`,
		`add events.Allow("y")`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("errors lack %q:\n%s", want, msg)
		}
	}
}
