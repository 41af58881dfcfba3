package cli

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
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
	dir := filepath.Join("..", "examples", "bookstore")
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
