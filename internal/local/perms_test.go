package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/policy"
)

// TestLocalRefusesCallsBeyondDeclarations: at start-up, `framework local`
// checks the scan's calls against the declarations as synth does: a
// handler reading a secret it was not allowed, or writing to a bucket it
// may only read, is a start-up error naming the call site and the Allow
// to add, and the app is not started.
func TestLocalRefusesCallsBeyondDeclarations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an app")
	}
	t.Setenv(names.EnvCacheDir, t.TempDir())
	// A stand-in app printing the manifest of an app declaring a secret
	// and a bucket, which only the importer may read.
	m := fmt.Sprintf(`{"version": %d, "app": "links", "routes": [{"path": "/", "methods": ["GET"], "handler": "index", "content_types": ["application/json"]}],
		"functions": [{"name": "importer", "kind": "function", "grants": [{"resource": "imports", "access": "read"}]}],
		"resources": [{"name": "adminToken", "kind": "secret"}, {"name": "imports", "kind": "bucket"}]}`, manifest.Version)
	app := fmt.Sprintf("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tif os.Getenv(%q) == %q {\n\t\tfmt.Println(%q)\n\t\treturn\n\t}\n\tos.NewFile(4, \"ready\").Write([]byte(\"ready\\n\"))\n\tselect {}\n}\n",
		names.EnvMode, names.ModeManifest, m)
	dir := t.TempDir()
	for name, body := range map[string]string{"go.mod": "module app\n\ngo 1.21\n", "main.go": app} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scan := func(ctx context.Context, dir string) (*policy.Report, error) {
		return &policy.Report{Calls: []policy.Call{
			{Pos: "auth.go:12:20", Package: policy.HandlePackage, Operation: "Secret.Value", Via: "handle", Actions: []string{"secretsmanager:GetSecretValue"},
				Functions: []string{policy.RoutePrefix + "index"}, Target: &policy.Target{Kind: "secret", Name: "adminToken"}},
			{Pos: "importer.go:30:9", Package: "github.com/aws/aws-sdk-go-v2/service/s3", Operation: "PutObject", Actions: []string{"s3:PutObject"},
				Functions: []string{"importer"}, Target: &policy.Target{Kind: "bucket", Name: "imports"}},
		}}, nil
	}
	var out lockedbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{ProjectDir: dir, Port: 0, NoAutoreload: true, Stdout: &out, Stderr: &out, Scan: scan})
	}()
	defer func() { cancel(); <-done }()
	deadline := time.After(2 * time.Minute)
	for !strings.Contains(out.String(), "requests get 503") {
		select {
		case err := <-done:
			t.Fatalf("Run returned %v; output:\n%s", err, out.String())
		case <-deadline:
			t.Fatalf("no start-up error within 2 minutes; output:\n%s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	got := out.String()
	for _, want := range []string{
		`auth.go:12: handler "index" calls resource.Secret.Value (secretsmanager:GetSecretValue) on secret "adminToken", but the handler has no access to it`,
		`add adminToken.Allow("index")`,
		`importer.go:30: handler "importer" calls s3.PutObject (s3:PutObject) on bucket "imports", beyond the declared read`,
		`add imports.Allow(resource.ReadWrite, "importer")`,
		"The app is not running",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestNoScanSaidOnce: when the code cannot be scanned yet (the synthesis
// engine is not built: a new user's first `framework local`), one line
// says that neither check runs; the IAM check no longer said it again in
// a second line.
func TestNoScanSaidOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an app")
	}
	t.Setenv(names.EnvCacheDir, t.TempDir())
	m := fmt.Sprintf(`{"version": %d, "app": "hello", "routes": [{"path": "/", "methods": ["GET"], "handler": "index", "content_types": ["application/json"]}]}`, manifest.Version)
	app := fmt.Sprintf("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tif os.Getenv(%q) == %q {\n\t\tfmt.Println(%q)\n\t\treturn\n\t}\n\tos.NewFile(4, \"ready\").Write([]byte(\"ready\\n\"))\n\tselect {}\n}\n",
		names.EnvMode, names.ModeManifest, m)
	dir := t.TempDir()
	for name, body := range map[string]string{"go.mod": "module app\n\ngo 1.21\n", "main.go": app} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scan := func(context.Context, string) (*policy.Report, error) { return nil, ErrNoScan }
	var out lockedbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{ProjectDir: dir, Port: 0, NoAutoreload: true, Stdout: &out, Stderr: &out, Scan: scan})
	}()
	defer func() { cancel(); <-done }()
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	got, ok := out.Wait(wctx, func(s string) bool { return strings.Contains(s, "Serving on") })
	if !ok {
		t.Fatalf("not serving within 2 minutes; output:\n%s", got)
	}
	if n := strings.Count(got, "not checked"); n != 1 || strings.Contains(got, "IAM:") {
		t.Errorf("%d lines say the calls are not checked, want one (and no IAM: line):\n%s", n, got)
	}
}
