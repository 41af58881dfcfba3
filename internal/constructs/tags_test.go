package constructs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestNewAppProjectTags: a construct built from a project directory puts
// the tags of the project's .framework/config.json (top level merged with
// the stage's) on its function, role and REST API, as `framework deploy`
// does for the stage stack.
func TestNewAppProjectTags(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	main, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "hello", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, testutil.FrameworkModule(t, map[string]string{
		"main.go": string(main),
		".framework/config.json": `{"version": "1.0", "app_name": "hello", "tags": {"team": "api"},
			"stages": {"prod": {"tags": {"cost-center": "42"}}}}`,
	}))

	stack, synth := hostStack(t)
	a, err := NewApp(stack, "Hello", &AppProps{ProjectDir: dir, Stage: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Config.Tags["team"] != "api" || a.Config.Tags["cost-center"] != "42" {
		t.Errorf("App.Config.Tags = %v, want team and cost-center from config.json", a.Config.Tags)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties struct{ Tags []struct{ Key, Value string } }
		}
	}
	synth(&tpl)
	seen := map[string]bool{}
	for id, r := range tpl.Resources {
		switch r.Type {
		case "AWS::Lambda::Function", "AWS::IAM::Role", "AWS::ApiGateway::RestApi", "AWS::ApiGateway::Stage":
		default:
			continue
		}
		seen[r.Type] = true
		got := map[string]string{}
		for _, tag := range r.Properties.Tags {
			got[tag.Key] = tag.Value
		}
		if got["team"] != "api" || got["cost-center"] != "42" {
			t.Errorf("%s (%s) tags %v, want team=api and cost-center=42 from config.json", id, r.Type, got)
		}
	}
	if len(seen) != 4 {
		t.Errorf("template lacks some of the function, role, REST API and stage: saw %v", fmt.Sprint(seen))
	}
}
