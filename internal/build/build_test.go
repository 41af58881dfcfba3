package build

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/testutil"
)

// isolate returns a Builder that keeps the binaries the tests build out of
// the user's cache and makes sure nothing is fetched from the network, with
// the variables in set added to its environment. Tests using it run in
// parallel: nothing is changed in the process's environment.
func isolate(t testing.TB, set ...string) *Builder {
	t.Helper()
	env := append(os.Environ(), "GOPROXY=off")
	return &Builder{CacheDir: t.TempDir(), Environ: append(env, set...)}
}

// writeFrameworkApp writes a module whose main package imports this
// repository's framework package through a replace directive, as a
// development project created by new-project does, and lets b's go command
// update the module's requirements.
func writeFrameworkApp(t testing.TB, b *Builder, mainGo string) string {
	t.Helper()
	b.Environ = append(b.Environ, "GOFLAGS=-mod=mod")
	return testutil.WriteModule(t, testutil.FrameworkModule(t, map[string]string{"main.go": mainGo}))
}

// fakeManifestApp prints body on stdout in manifest mode (and fails
// otherwise), standing in for an app that calls app.Run().
func fakeManifestApp(body string) string {
	return `package main

import (
	"fmt"
	"os"
)

func main() {
	if os.Getenv("FRAMEWORK_MODE") != "manifest" {
		fmt.Fprintln(os.Stderr, "not in manifest mode")
		os.Exit(1)
	}
	if os.Getenv("AWS_LAMBDA_RUNTIME_API") != "" || os.Getenv("FRAMEWORK_ADDR") != "" {
		fmt.Fprintln(os.Stderr, "Lambda or server variables leaked into manifest mode")
		os.Exit(1)
	}
	fmt.Print(` + "`" + body + "`" + `)
}
`
}

const goodManifest = `{"version": 2, "app": "hello", "binary_types": ["image/png"],
 "routes": [{"path": "/users/{name}", "methods": ["GET", "PUT"], "handler": "user", "content_types": ["application/json"],
   "cors": {"allow_origin": "*", "allow_headers": ["Authorization"]}, "api_key_required": true,
   "authorizer": {"type": "iam"}}]}`

func TestManifest(t *testing.T) {
	t.Parallel()
	// Variables that would turn a real app into a Lambda function or a
	// server must not reach it.
	b := isolate(t, "AWS_LAMBDA_RUNTIME_API=127.0.0.1:9", "FRAMEWORK_ADDR=127.0.0.1:9")
	dir := testutil.WriteModule(t, map[string]string{"main.go": fakeManifestApp(goodManifest)})
	m, err := b.Manifest(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := manifest.Route{Path: "/users/{name}", Methods: []string{"GET", "PUT"}, Handler: "user",
		ContentTypes: []string{"application/json"}, APIKeyRequired: true}
	if m.App != "hello" || len(m.Routes) != 1 || len(m.BinaryTypes) != 1 {
		t.Fatalf("Manifest = %+v", m)
	}
	r := m.Routes[0]
	if r.Path != want.Path || strings.Join(r.Methods, ",") != "GET,PUT" || r.Handler != want.Handler ||
		!r.APIKeyRequired || r.CORS == nil || r.CORS.AllowOrigin != "*" || r.Authorizer == nil || r.Authorizer.Type != manifest.AuthorizerIAM {
		t.Errorf("route = %+v, want %+v with CORS and the IAM authorizer", r, want)
	}
}

func TestManifestInRepoPackage(t *testing.T) {
	// A package main inside this repository's own module, like
	// examples/kitchensink: the build runs in its directory with the
	// repository's go.mod.
	t.Parallel()
	m, err := isolate(t).Manifest(context.Background(), filepath.Join("testdata", "inrepo"))
	if err != nil {
		t.Fatal(err)
	}
	if m.App != "inrepo" || len(m.Routes) != 1 || m.Routes[0].Handler != "index" {
		t.Errorf("Manifest = %+v", m)
	}
}

func TestManifestReplaceModule(t *testing.T) {
	// A project that is its own module and reaches the framework through a
	// replace directive (what new-project writes for a development build).
	t.Parallel()
	b := isolate(t)
	dir := writeFrameworkApp(t, b, `package main

import "github.com/framework-dev/framework/framework"

func main() {
	app := framework.New("replaced")
	app.Route("/", func(r *framework.Request) (any, error) { return nil, nil })
	app.Run()
}
`)
	m, err := b.Manifest(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.App != "replaced" {
		t.Errorf("App = %q, want replaced", m.App)
	}
}

func TestManifestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mainGo  string
		want    []string
		compile bool
		routes  bool
	}{
		{
			name:    "compile error carries the compiler output",
			mainGo:  "package main\n\nfunc main() {\n\tundefinedThing()\n}\n",
			want:    []string{"for host failed", "main.go:4:2: undefined: undefinedThing"},
			compile: true,
		},
		{
			name: "invalid routes carry the app's messages",
			mainGo: `package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "route \"/users/{id}\": GET declared twice (handlers a and b)")
	os.Exit(2)
}
`,
			want:   []string{"invalid declarations in", `route "/users/{id}": GET declared twice (handlers a and b)`},
			routes: true,
		},
		{
			name:   "app failing otherwise",
			mainGo: "package main\n\nfunc main() { panic(\"boom\") }\n",
			want:   []string{"crashed in manifest mode (exit status 2)", "panic: boom"},
		},
		{
			name:   "not a manifest",
			mainGo: fakeManifestApp("starting up...\n{}"),
			want:   []string{"did not print a route manifest on stdout", `"starting up...`},
		},
		{
			name:   "unknown manifest version",
			mainGo: fakeManifestApp(`{"version": 99, "app": "hello"}`),
			want:   []string{"route manifest of version 99, but this CLI reads version 2"},
		},
		{
			name:   "no app name",
			mainGo: fakeManifestApp(`{"version": 2, "app": ""}`),
			want:   []string{"without an app name"},
		},
		{
			// What the app's Lambda build leaves to the CLI: the rules of
			// manifest.Validate beyond the route table, here a schedule.
			name:   "a manifest Validate refuses",
			mainGo: fakeManifestApp(`{"version": 2, "app": "ticker", "functions": [{"name": "tick", "kind": "schedule", "schedule": "cron(61 * * * ? *)"}]}`),
			want:   []string{"invalid declarations in", "ticker: 1 invalid declaration:\n  ", `"tick"`, "61"},
			routes: true,
		},
	}
	b := isolate(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := testutil.WriteModule(t, map[string]string{"main.go": tt.mainGo})
			_, err := b.Manifest(context.Background(), dir)
			if err == nil {
				t.Fatal("Manifest succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n  %v\ndoes not contain\n  %s", err, w)
				}
			}
			var ce *CompileError
			if errors.As(err, &ce) != tt.compile {
				t.Errorf("errors.As(*CompileError) = %v, want %v", !tt.compile, tt.compile)
			}
			var re *RoutesError
			if errors.As(err, &re) != tt.routes {
				t.Errorf("errors.As(*RoutesError) = %v, want %v", !tt.routes, tt.routes)
			}
		})
	}
}

func TestManifestTimeout(t *testing.T) {
	t.Parallel()
	b := isolate(t)
	b.ManifestTimeout = 500 * time.Millisecond
	// An app that ignores manifest mode and serves forever (its sleep is
	// the hang under test, not a wait of the test's).
	dir := testutil.WriteModule(t, map[string]string{"main.go": "package main\n\nimport \"time\"\n\nfunc main() { time.Sleep(time.Hour) }\n"})
	_, err := b.Manifest(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "did not print its route manifest within 500ms") ||
		!strings.Contains(err.Error(), "app.Run()") {
		t.Errorf("Manifest of a hanging app: %v, want a timeout error that names app.Run()", err)
	}
}

func TestMissingGoToolchain(t *testing.T) {
	t.Parallel()
	b := isolate(t, "PATH="+t.TempDir())
	dir := testutil.WriteModule(t, map[string]string{"main.go": fakeManifestApp(goodManifest)})
	for name, f := range map[string]func() error{
		"Manifest": func() error { _, err := b.Manifest(context.Background(), dir); return err },
		"Package": func() error {
			_, err := b.Package(context.Background(), dir, "arm64", filepath.Join(t.TempDir(), "f.zip"))
			return err
		},
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "the Go toolchain (the `go` command) is not on PATH: install Go") {
			t.Errorf("%s without go on PATH: %v", name, err)
		}
	}
}

func TestNotAMainPackage(t *testing.T) {
	t.Parallel()
	b := isolate(t)
	dir := testutil.WriteModule(t, map[string]string{"lib.go": "package lib\n\nfunc F() {}\n"})
	const want = "holds no command: its Go package is not package main"
	if _, err := b.Manifest(context.Background(), dir); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Manifest of a library: %v, want %q", err, want)
	}
	zipPath := filepath.Join(t.TempDir(), "f.zip")
	if _, err := b.Package(context.Background(), dir, "arm64", zipPath); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Package of a library: %v, want %q", err, want)
	}
	if _, err := os.Stat(zipPath); err == nil {
		t.Errorf("Package of a library wrote %s", zipPath)
	}
}

func TestMissingProjectDir(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Manifest(context.Background(), missing); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Manifest of a missing directory: %v", err)
	}
}

const lambdaApp = `package main

import "fmt"

var greeting = "hello"

func main() { fmt.Println(greeting) }
`

// readZip opens the zip at path and returns its entries.
func readZip(t *testing.T, path string) []*zip.File {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r.File
}

func TestPackageDeterministic(t *testing.T) {
	t.Parallel()
	b := isolate(t)
	ctx := context.Background()
	dir := testutil.WriteModule(t, map[string]string{"main.go": lambdaApp})

	first, err := b.Package(ctx, dir, "arm64", filepath.Join(t.TempDir(), "a", "function.zip"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Package(ctx, dir, "arm64", filepath.Join(t.TempDir(), "function.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if first.SHA256 != second.SHA256 || first.Size != second.Size {
		t.Errorf("two packages of the same source differ: %+v vs %+v", first, second)
	}
	// The same source in another directory (another checkout, another
	// machine) gives the same bytes too.
	copyDir := testutil.WriteModule(t, map[string]string{"main.go": lambdaApp})
	third, err := b.Package(ctx, copyDir, "arm64", filepath.Join(t.TempDir(), "function.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if third.SHA256 != first.SHA256 {
		t.Errorf("the same source in %s and %s packages to different hashes %s and %s", dir, copyDir, first.SHA256, third.SHA256)
	}
	// The hash is that of the file's bytes.
	data, err := os.ReadFile(first.ZipPath)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != first.SHA256 || int64(len(data)) != first.Size {
		t.Errorf("SHA256/Size %s/%d do not describe the file (%x/%d)", first.SHA256, first.Size, sum, len(data))
	}

	// Editing the source changes the hash.
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.Replace(lambdaApp, `"hello"`, `"hello, world"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := b.Package(ctx, dir, "arm64", filepath.Join(t.TempDir(), "function.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if changed.SHA256 == first.SHA256 {
		t.Errorf("a source change kept the hash %s", first.SHA256)
	}
}

func TestPackageContents(t *testing.T) {
	t.Parallel()
	b := isolate(t)
	dir := testutil.WriteModule(t, map[string]string{"main.go": lambdaApp})
	tests := []struct {
		arch    string
		machine elf.Machine
	}{
		{"arm64", elf.EM_AARCH64},
		{"x86_64", elf.EM_X86_64},
	}
	hashes := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.arch, func(t *testing.T) {
			zipPath := filepath.Join(t.TempDir(), "function.zip")
			res, err := b.Package(context.Background(), dir, tt.arch, zipPath)
			if err != nil {
				t.Fatal(err)
			}
			hashes[tt.arch] = res.SHA256
			files := readZip(t, zipPath)
			if len(files) != 1 || files[0].Name != "bootstrap" {
				t.Fatalf("zip entries = %v, want only bootstrap", files)
			}
			f := files[0]
			if f.Mode() != 0o755 {
				t.Errorf("bootstrap mode = %v, want -rwxr-xr-x", f.Mode())
			}
			if !f.Modified.Equal(time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("bootstrap modified = %v, want the fixed 1980-01-01", f.Modified)
			}
			if int64(f.UncompressedSize64) != res.BinarySize {
				t.Errorf("BinarySize = %d, entry holds %d bytes", res.BinarySize, f.UncompressedSize64)
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			bin, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			ef, err := elf.NewFile(bytes.NewReader(bin))
			if err != nil {
				t.Fatalf("bootstrap is not an ELF binary: %v", err)
			}
			if ef.Machine != tt.machine || ef.OSABI != elf.ELFOSABI_NONE && ef.OSABI != elf.ELFOSABI_LINUX {
				t.Errorf("bootstrap is %v/%v, want %v for Linux", ef.Machine, ef.OSABI, tt.machine)
			}
			if ef.Section(".symtab") != nil {
				t.Errorf("bootstrap has a symbol table: it was not stripped (-s)")
			}
			if bytes.Contains(bin, []byte(dir)) {
				t.Errorf("bootstrap contains the project path %s: -trimpath missing", dir)
			}
			if !bytes.Contains(bin, []byte("lambda.norpc")) {
				t.Errorf("bootstrap's build info does not record -tags lambda.norpc")
			}
		})
	}
	if hashes["arm64"] == hashes["x86_64"] {
		t.Errorf("arm64 and x86_64 packages have the same hash")
	}
}

func TestPackageErrors(t *testing.T) {
	t.Parallel()
	b := isolate(t)
	good := testutil.WriteModule(t, map[string]string{"main.go": lambdaApp})
	broken := testutil.WriteModule(t, map[string]string{"main.go": "package main\n\nfunc main() { x := 1 }\n"})
	// A cgo-only program cannot build with CGO_ENABLED=0 for Linux.
	cgo := testutil.WriteModule(t, map[string]string{"main.go": "package main\n\n// int one(void) { return 1; }\nimport \"C\"\n\nfunc main() { println(C.one()) }\n"})
	tests := []struct {
		name, dir, arch string
		want            string
		compile         bool
	}{
		{"unknown architecture", good, "amd64", `unknown Lambda architecture "amd64": use "arm64" or "x86_64"`, false},
		{"compile error", broken, "arm64", "for linux/arm64 failed:\n# example.com/app\n./main.go:3:15: declared and not used: x", true},
		{"cgo program", cgo, "x86_64", "for linux/amd64 failed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zipPath := filepath.Join(t.TempDir(), "function.zip")
			_, err := b.Package(context.Background(), tt.dir, tt.arch, zipPath)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Package: %v, want an error containing %q", err, tt.want)
			}
			var ce *CompileError
			if errors.As(err, &ce) != tt.compile {
				t.Errorf("errors.As(*CompileError) = %v, want %v", !tt.compile, tt.compile)
			}
			if _, err := os.Stat(zipPath); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a failed Package left %s behind (%v)", zipPath, err)
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(zipPath), "*"))
			if len(left) != 0 {
				t.Errorf("a failed Package left files behind: %v", left)
			}
		})
	}
}

func TestPackageCancelled(t *testing.T) {
	t.Parallel()
	b := isolate(t)
	dir := testutil.WriteModule(t, map[string]string{"main.go": lambdaApp})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Package(ctx, dir, "arm64", filepath.Join(t.TempDir(), "f.zip")); !errors.Is(err, context.Canceled) {
		t.Errorf("Package with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestManifestExamples(t *testing.T) {
	// The repository's own examples, built with the real runtime.
	t.Parallel()
	b := isolate(t)
	tests := []struct {
		dir       string
		app       string
		minRoutes int
		path      string
	}{
		{"hello", "hello", 1, "/"},
		{"kitchensink", "kitchensink", 10, "/cors-custom"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join(testutil.RepoRoot(t), "examples", tt.dir)
			if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
				t.Skipf("examples/%s is not there: %v", tt.dir, err)
			}
			m, err := b.Manifest(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if m.App != tt.app || len(m.Routes) < tt.minRoutes {
				t.Fatalf("Manifest of examples/%s = app %q with %d routes, want %q with at least %d", tt.dir, m.App, len(m.Routes), tt.app, tt.minRoutes)
			}
			found := false
			for _, r := range m.Routes {
				found = found || r.Path == tt.path
			}
			if !found {
				t.Errorf("Manifest of examples/%s has no route %s: %+v", tt.dir, tt.path, m.Routes)
			}
		})
	}
}

func TestManifestInvalidRoutesFromRuntime(t *testing.T) {
	// An app on the real runtime whose declarations the runtime refuses:
	// the error carries the runtime's own message.
	t.Parallel()
	b := isolate(t)
	dir := writeFrameworkApp(t, b, `package main

import "github.com/framework-dev/framework/framework"

func main() {
	app := framework.New("clash")
	h := func(r *framework.Request) (any, error) { return nil, nil }
	app.Route("/things", h, framework.Name("a"))
	app.Route("/things", h, framework.Name("b"))
	app.Run()
}
`)
	_, err := b.Manifest(context.Background(), dir)
	var re *RoutesError
	if !errors.As(err, &re) {
		t.Fatalf("Manifest: %v, want a *RoutesError", err)
	}
	if !strings.Contains(re.Output, `route /things: method GET is served by both "a" and "b"`) {
		t.Errorf("RoutesError output = %q, want the runtime's message about GET /things", re.Output)
	}
}

func TestManifestInvalidScheduleFromRuntime(t *testing.T) {
	// The app's manifest mode runs its Lambda build, which checks its
	// route table only; a bad schedule is still refused before synth or
	// framework local go on, worded as the app words its own problems.
	t.Parallel()
	b := isolate(t)
	dir := writeFrameworkApp(t, b, `package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("ticker")
	app.Route("/", func(r *framework.Request) (any, error) { return nil, nil })
	app.OnSchedule("tick", framework.Cron("61 * * * ? *"), func(context.Context, events.EventBridgeEvent) error { return nil })
	app.Run()
}
`)
	_, err := b.Manifest(context.Background(), dir)
	var re *RoutesError
	if !errors.As(err, &re) {
		t.Fatalf("Manifest: %v, want a *RoutesError", err)
	}
	if !strings.HasPrefix(re.Output, "ticker: 1 invalid declaration:\n  ") || !strings.Contains(re.Output, `"tick"`) || !strings.Contains(re.Output, "61") {
		t.Errorf("RoutesError output = %q, want the app's name and one problem naming handler \"tick\" and its minute 61", re.Output)
	}
}

func TestPackageHelloInTwoCopies(t *testing.T) {
	// examples/hello copied into two directories as projects of their own
	// (the new-project layout) packages to identical bytes.
	t.Parallel()
	b := isolate(t)
	src, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "hello", "main.go"))
	if err != nil {
		t.Skipf("examples/hello: %v", err)
	}
	var hashes []string
	for i := 0; i < 2; i++ {
		dir := writeFrameworkApp(t, b, string(src))
		res, err := b.Package(context.Background(), dir, "arm64", filepath.Join(t.TempDir(), "function.zip"))
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, res.SHA256)
	}
	if hashes[0] != hashes[1] {
		t.Errorf("two copies of examples/hello package to %s and %s", hashes[0], hashes[1])
	}
}

func TestManifestConcurrent(t *testing.T) {
	// Several commands reading the manifest of one project at once all get it.
	t.Parallel()
	b := isolate(t)
	dir := testutil.WriteModule(t, map[string]string{"main.go": fakeManifestApp(goodManifest)})
	errs := make(chan error, 4)
	for i := 0; i < cap(errs); i++ {
		go func() {
			m, err := b.Manifest(context.Background(), dir)
			if err == nil && m.App != "hello" {
				err = errors.New("wrong app " + m.App)
			}
			errs <- err
		}()
	}
	for i := 0; i < cap(errs); i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestCacheDirFromEnvironment(t *testing.T) {
	// FRAMEWORK_CACHE_DIR moves the built binaries; Builder.CacheDir wins over it.
	t.Parallel()
	fromEnv, explicit := t.TempDir(), t.TempDir()
	dir := testutil.WriteModule(t, map[string]string{"main.go": lambdaApp})
	b := isolate(t, CacheDirEnv+"="+fromEnv)
	b.CacheDir = ""
	bin, err := b.Host(context.Background(), dir, "app-a")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(fromEnv, BuildCacheName) + string(filepath.Separator); !strings.HasPrefix(bin, want) {
		t.Errorf("Host built %s, want it under %s (the build subdirectory of %s)", bin, want, CacheDirEnv)
	}
	b.CacheDir = explicit
	cache, err := b.ProjectCacheDir(dir, "package/arm64")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cache, explicit+string(filepath.Separator)) {
		t.Errorf("ProjectCacheDir = %s, want it under the Builder's CacheDir %s", cache, explicit)
	}
}

func TestCacheEntryRecordsItsProjectAndUse(t *testing.T) {
	// The cache's trimming tells an entry whose project was deleted, or
	// unused for long, by its record.
	t.Parallel()
	b := isolate(t)
	dir := t.TempDir()
	cache, err := b.ProjectCacheDir(dir, "local")
	if err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(filepath.Dir(cache), ProjectRecord)
	if got, err := os.ReadFile(record); err != nil || strings.TrimSpace(string(got)) != dir {
		t.Fatalf("entry record %q (%v), want the project's path %s", got, err, dir)
	}
	old := time.Now().Add(-2 * UseInterval)
	os.Chtimes(record, old, old)
	if _, err := b.ProjectCacheDir(dir, "linux-arm64"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(record); err != nil || !fi.ModTime().After(old.Add(UseInterval)) {
		t.Errorf("a use of the entry left its record's time at %v, want now", old)
	}
}
