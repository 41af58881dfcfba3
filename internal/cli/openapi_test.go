package cli

import (
	"bytes"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

// TestOpenAPICommand runs `framework openapi` on examples/bookstore as a
// user would, and checks the document with openapi-spec-validator.
func TestOpenAPICommand(t *testing.T) {
	if out, err := exec.Command("python3", "-c", "import openapi_spec_validator").CombinedOutput(); err != nil {
		t.Fatalf("openapi-spec-validator is needed to check the document and is not installed (pip install openapi-spec-validator): %v\n%s", err, out)
	}
	dir := filepath.Join("..", "..", "examples", "bookstore")
	out := filepath.Join(t.TempDir(), "openapi.json")
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", dir, "openapi", "--stage", "dev", "--out", out, "--json"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res openapiResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res.File != out || res.Paths != 3 || res.Operations != 6 {
		t.Errorf("--json printed %q (%v), want the file, 3 paths and 6 operations", stdout.String(), err)
	}
	var doc map[string]any
	data := testutil.ReadJSON(t, out, &doc)
	if doc["openapi"] != "3.0.3" || !strings.Contains(string(data), `"url": "/dev"`) || !strings.Contains(string(data), `"#/components/schemas/NewBook"`) {
		t.Errorf("document %.400s...", data)
	}
	if v, err := exec.Command("python3", "-m", "openapi_spec_validator", out).CombinedOutput(); err != nil {
		t.Errorf("openapi-spec-validator: %v\n%s", err, v)
	}

	stdout.Reset()
	stderr.Reset()
	if code := MainEnv([]string{"-C", dir, "openapi"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 || !json.Valid(stdout.Bytes()) {
		t.Errorf("without --out: exit %d, stdout not one JSON document (%s)", code, stderr.String())
	}
	stderr.Reset()
	if code := MainEnv([]string{"-C", dir, "openapi", "--stage", "no such"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 1 || !strings.Contains(stderr.String(), `stage "no such"`) {
		t.Errorf("bad stage: exit %d, stderr %q", code, stderr.String())
	}
}

// fakeApp is the main.go of an app that prints manifest m in manifest mode
// and fails otherwise: a stand-in that builds in a moment.
func fakeApp(t *testing.T, m string) string {
	t.Helper()
	return "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n" +
		"\tif os.Getenv(\"FRAMEWORK_MODE\") != \"manifest\" {\n\t\tos.Exit(1)\n\t}\n" +
		"\tfmt.Print(`" + m + "`)\n}\n"
}

// gatedApp is a project whose one route is behind an app authorizer, with
// a stage per front door: dev (REST API, stage name v1), web (HTTP API)
// and fn (function URL, which has no app authorizers).
func gatedApp(t *testing.T) string {
	t.Helper()
	const m = `{"version": 2, "app": "gated",
 "routes": [{"path": "/items", "methods": ["GET"], "handler": "items", "content_types": ["application/json"],
   "authorizer": {"type": "app", "name": "gate", "header": "Authorization"}}],
 "functions": [{"name": "gate", "kind": "authorizer"}]}`
	return testutil.WriteModule(t, map[string]string{
		"main.go": fakeApp(t, m),
		".framework/config.json": `{"version": "1.0", "app_name": "gated", "stages": {
  "dev": {"api_gateway_stage": "v1"}, "web": {"api_type": "http"}, "fn": {"api_type": "function_url"}}}`,
	})
}

// TestOpenAPIFrontDoors: the document's server path is the stage's:
// /<api_gateway_stage> behind a REST API, / behind an HTTP API or a
// function URL (their URLs have no stage segment); a route behind an app
// authorizer lists 401 and 403 (its deny); a stage whose front door cannot
// serve the app (an app authorizer behind a function URL) is refused with
// the message framework synth and framework local give.
func TestOpenAPIFrontDoors(t *testing.T) {
	dir := gatedApp(t)
	for stage, want := range map[string]string{"dev": "/v1", "web": "/"} {
		var stdout, stderr bytes.Buffer
		if code := MainEnv([]string{"-C", dir, "openapi", "--stage", stage}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
			t.Fatalf("openapi --stage %s: exit %d: %s", stage, code, stderr.String())
		}
		var doc struct {
			Servers []struct{ URL string }
			Paths   map[string]map[string]struct{ Responses map[string]any }
		}
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != want {
			t.Errorf("openapi --stage %s: servers %+v, want one, %q", stage, doc.Servers, want)
		}
		res := doc.Paths["/items"]["get"].Responses
		if res["401"] == nil || res["403"] == nil {
			t.Errorf("openapi --stage %s: GET /items answers %v, want 401 and 403 among them", stage, slices.Sorted(maps.Keys(res)))
		}
	}
	var stdout, stderr bytes.Buffer
	code := MainEnv([]string{"-C", dir, "openapi", "--stage", "webb"}, &Env{Stdout: &stdout, Stderr: &stderr})
	if code != 1 || !strings.Contains(stderr.String(), `stage "webb" is not declared in `) || !strings.Contains(stderr.String(), `did you mean "web"?`) {
		t.Errorf("openapi --stage webb: exit %d, stderr %q; want the typo of web refused", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = MainEnv([]string{"-C", dir, "openapi", "--stage", "fn"}, &Env{Stdout: &stdout, Stderr: &stderr})
	want := `Error: route /items (handler items): its authorizer "gate" is an app authorizer, which a function URL has not`
	if code != 1 || !strings.HasPrefix(strings.TrimPrefix(stderr.String(), "Building the app...\n"), want) || !strings.Contains(stderr.String(), `set api_type to "http" for the stage`) || stdout.Len() != 0 {
		t.Errorf("openapi --stage fn: exit %d, stdout %q, stderr %q; want exit 1 and %q...", code, stdout.String(), stderr.String(), want)
	}
}
