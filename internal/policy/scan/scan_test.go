package scan

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// offline makes the go command fail rather than download: the fixture's
// dependencies must come from the module cache, as on a machine without
// network, and go.mod/go.sum must be complete (never rewritten by a test).
func offline(t testing.TB) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=readonly")
	t.Setenv("GOWORK", "off")
}

func TestGenerateFixture(t *testing.T) {
	offline(t)
	doc, err := Generate("../testdata/fixture")
	if err != nil {
		t.Fatalf("Generate: %v (if a module is missing from the cache: cd internal/policy/testdata/fixture && go mod download)", err)
	}
	got, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("..", "testdata", "fixture.policy.json"), got, *update)

	// What a user of the fixture must get, independent of the golden file.
	want := []string{
		"dynamodb:DescribeTable", // waiter in a helper package
		"dynamodb:GetItem",       // direct call in a helper method
		"dynamodb:PutItem",       // through an interface a client satisfies
		"dynamodb:Query",         // paginator
		"dynamodb:UpdateItem",    // method expression in a package-level var
		"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents",
		"s3:DeleteObject",        // helper never called from main: the package counts
		"s3:GetObject",           // HeadObject, embedded client, presigned link
		"s3:GetObjectAttributes", // through a generic type parameter
		"s3:ListBucket",          // ListObjectsV2 paginator
		"s3:PutObject",           // method value
	}
	if got := policy.Actions(doc); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("actions:\n got %v\nwant %v", got, want)
	}
	for _, notWanted := range []string{"s3:CopyObject", "dynamodb:DeleteItem", "s3:HeadObject", "s3:ListObjectsV2"} {
		for _, a := range policy.Actions(doc) {
			if a == notWanted {
				t.Errorf("policy grants %s, which no client call in the fixture needs", a)
			}
		}
	}

	// The same source gives the same bytes.
	again, err := Generate("../testdata/fixture")
	if err != nil {
		t.Fatal(err)
	}
	againBytes, _ := again.Marshal()
	if !bytes.Equal(got, againBytes) {
		t.Error("two Generate runs on the same source gave different documents")
	}
}

func TestScanFixtureCalls(t *testing.T) {
	offline(t)
	rep, err := Scan("../testdata/fixture")
	if err != nil {
		t.Fatal(err)
	}
	if rep.UsesFramework {
		t.Errorf("UsesFramework true for an app that does not import %s", policy.FrameworkPackage)
	}
	if rep.Module != "example.com/fixture" {
		t.Errorf("module = %q", rep.Module)
	}
	wantPkgs := "example.com/fixture example.com/fixture/audit example.com/fixture/blob example.com/fixture/store"
	if got := strings.Join(rep.Packages, " "); got != wantPkgs {
		t.Errorf("packages = %s, want %s", got, wantPkgs)
	}
	var b strings.Builder
	for _, c := range rep.Calls {
		fmt.Fprintf(&b, "%s\t%s.%s\t%s\t%s\n", c.Pos, filepath.Base(c.Package), c.Operation, strings.Join(c.Actions, ","), c.Via)
	}
	testutil.Golden(t, filepath.Join("..", "testdata", "fixture.calls.txt"), []byte(b.String()), *update)
}

func TestGenerateErrors(t *testing.T) {
	offline(t)
	tests := []struct {
		name    string
		files   map[string]string
		compile []string // expected policy.CompileError lines, in order
		want    string   // expected substring of any other error
	}{
		{
			name: "type error in main",
			files: map[string]string{"main.go": `package main

func main() {
	var n int = "one"
	_ = n
}
`},
			compile: []string{`main.go:4:14: cannot use "one" (untyped string constant) as int value in variable declaration`},
		},
		{
			name: "errors in a helper package are reported with its file",
			files: map[string]string{
				"main.go": "package main\n\nimport \"example.com/app/helper\"\n\nfunc main() { helper.Do() }\n",
				"helper/helper.go": `package helper

func Do() {
	undefinedCall()
	return 1
}
`,
			},
			compile: []string{
				"helper/helper.go:4:2: undefined: undefinedCall",
				"helper/helper.go:5:9: too many return values\n\thave (number)\n\twant ()",
			},
		},
		{
			name:    "syntax error",
			files:   map[string]string{"main.go": "package main\n\nfunc main() {\n"},
			compile: []string{"main.go:3:15: expected ';', found 'EOF'", "main.go:3:15: expected '}', found 'EOF'"},
		},
		{
			name:    "import of a package the module does not have",
			files:   map[string]string{"main.go": "package main\n\nimport _ \"example.com/app/missing\"\n\nfunc main() {}\n"},
			compile: []string{"main.go:3:8: cannot find module providing package example.com/app/missing"},
		},
		{
			name:  "not package main",
			files: map[string]string{"lib.go": "package lib\n"},
			want:  "holds package lib, not package main",
		},
		{
			name:  "no Go files",
			files: map[string]string{"README": "nothing here\n"},
			want:  "no Go files",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testutil.WriteModule(t, tt.files)
			doc, err := Generate(dir)
			if err == nil {
				t.Fatalf("Generate succeeded with %d statements; want an error", len(doc.Statement))
			}
			var ce *policy.CompileError
			if tt.compile != nil {
				if !errors.As(err, &ce) {
					t.Fatalf("error is %T, not *CompileError: %v", err, err)
				}
				if len(ce.Errors) != len(tt.compile) {
					t.Fatalf("compile errors:\n%s\nwant:\n%s", strings.Join(ce.Errors, "\n"), strings.Join(tt.compile, "\n"))
				}
				for i, want := range tt.compile {
					if !strings.HasPrefix(ce.Errors[i], want) {
						t.Errorf("compile error %d = %q, want prefix %q", i, ce.Errors[i], want)
					}
				}
				if !strings.Contains(err.Error(), "does not compile") || !strings.Contains(err.Error(), dir) {
					t.Errorf("message does not say which app fails to compile: %v", err)
				}
				return
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestGenerateWithoutSDKCallsGrantsLoggingOnly(t *testing.T) {
	offline(t)
	dir := testutil.WriteModule(t, map[string]string{"main.go": `package main

import "fmt"

type Client struct{}

// GetObject has an SDK operation's name on a type that is not an SDK client.
func (Client) GetObject() {}

func main() { Client{}.GetObject(); fmt.Println("hi") }
`})
	doc, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Statement) != 1 || doc.Statement[0].Sid != "AllowLogging" {
		t.Fatalf("statements = %+v, want only AllowLogging", doc.Statement)
	}
	if got := strings.Join(doc.Statement[0].Action, " "); got != "logs:CreateLogGroup logs:CreateLogStream logs:PutLogEvents" {
		t.Errorf("logging actions = %s", got)
	}
	if got := doc.Statement[0].Resource; len(got) != 1 || got[0] != policy.LoggingResource {
		t.Errorf("logging resource = %v", got)
	}
}

func BenchmarkGenerate(b *testing.B) {
	offline(b)
	if _, err := Generate("../testdata/fixture"); err != nil { // warm the go command's caches
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Generate("../testdata/fixture"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGenerateOutsideAModule(t *testing.T) {
	offline(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{dir, "go.mod file not found"},
		{filepath.Join(dir, "absent"), "no such file or directory"},
		{filepath.Join(dir, "main.go"), "not a directory"},
	} {
		_, err := Generate(tt.dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.dir) {
			t.Errorf("Generate(%s) error = %v, want it to name the directory and say %q", tt.dir, err, tt.want)
		}
	}
}

// TestGenerateExampleHello runs on an app of this repository: its module is
// the framework's own, and the packages it reaches (framework/) make no SDK
// calls, so it gets the logging statement only.
func TestGenerateExampleHello(t *testing.T) {
	offline(t)
	rep, err := Scan("../../../examples/hello")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Module != "github.com/framework-dev/framework" {
		t.Errorf("module = %q", rep.Module)
	}
	if !rep.UsesFramework {
		t.Errorf("UsesFramework false for an app importing %s", policy.FrameworkPackage)
	}
	for _, p := range rep.Packages {
		if !strings.HasPrefix(p, rep.Module+"/") {
			t.Errorf("scanned package %s outside the module", p)
		}
	}
	if len(rep.Calls) != 0 {
		t.Errorf("calls in examples/hello: %+v", rep.Calls)
	}
	if doc := policy.FromCalls(rep.Calls); len(doc.Statement) != 1 || doc.Statement[0].Sid != "AllowLogging" {
		t.Errorf("policy = %+v, want the logging statement only", doc)
	}
}

// TestScanAfterHostBuildCompilesNothing: on a fresh machine (an empty Go
// build cache), synth builds the app for the host and then scans it; the
// scan must find the dependencies' export data in the build cache rather
// than compile every one of them, the standard library included, a second
// time (18 s for examples/hello on 2 cores).
func TestScanAfterHostBuildCompilesNothing(t *testing.T) {
	offline(t)
	t.Setenv("GOCACHE", t.TempDir())
	dir := testutil.WriteModule(t, map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.22\n",
		// prints a route manifest as a framework app does in manifest mode
		"main.go": fmt.Sprintf("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(`{\"version\": %d, \"app\": \"tiny\"}`) }\n", manifest.Version),
	})
	// the build synth runs the scan beside: the manifest's
	b := &build.Builder{CacheDir: t.TempDir()}
	if _, err := b.Manifest(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	before := compiledPackages(t)
	if _, err := Scan(dir); err != nil {
		t.Fatal(err)
	}
	if n := compiledPackages(t) - before; n > 0 {
		t.Errorf("the scan compiled %d packages that the host build had compiled already: it must load them with the host build's flags", n)
	}
}

// compiledPackages counts the compiled packages (archives) in GOCACHE.
func compiledPackages(t *testing.T) int {
	n := 0
	err := filepath.WalkDir(os.Getenv("GOCACHE"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "-d") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, 8)
		if k, _ := f.Read(head); k == 8 && string(head) == "!<arch>\n" {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
