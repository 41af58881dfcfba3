package constructs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// TestFunctionsKnowTheirStage: every function of the app embedded in a
// CDK app (the routes' and each event handler's) has FRAMEWORK_STAGE, the
// stage of the construct's props, so that its logs and metrics carry the
// stage as framework local's do.
func TestFunctionsKnowTheirStage(t *testing.T) {
	zip := filepath.Join(t.TempDir(), "function.zip")
	if err := os.WriteFile(zip, []byte("stand-in package"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Version: manifest.Version, App: "todo",
		Routes:    []manifest.Route{{Path: "/", Methods: []string{"GET"}, Handler: "index", ContentTypes: []string{"application/json"}}},
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}},
		Functions: []manifest.Function{{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs"}},
	}
	stack, synth := hostStack(t)
	if _, err := NewApp(stack, "Todo", &AppProps{Manifest: m, PackageZip: zip, Stage: "qa"}); err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties struct {
				Handler     string
				Environment struct{ Variables map[string]any }
			}
		}
	}
	raw := synth(&tpl)
	n := 0
	for id, r := range tpl.Resources {
		if r.Type != "AWS::Lambda::Function" || r.Properties.Handler != "bootstrap" {
			continue
		}
		n++
		if got := r.Properties.Environment.Variables[names.EnvStage]; got != "qa" {
			t.Errorf("function %s: %s = %v, want qa", id, names.EnvStage, got)
		}
	}
	if n != 2 {
		t.Errorf("%d functions of the app, want 2 (the routes' and the worker's):\n%s", n, raw)
	}
}
