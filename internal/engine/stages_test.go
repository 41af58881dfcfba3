package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthKeepsEachStagesAssembly: without an output directory, each
// stage's assembly goes to cdk.out/<stage>, so that synthesizing prod
// keeps dev's (to lint, diff or deploy with the CDK CLI); an assembly an
// older synth wrote straight into cdk.out is removed.
func TestSynthKeepsEachStagesAssembly(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	dir := copyProject(t, filepath.Join(testutil.RepoRoot(t), "examples", "hello"))
	legacy := filepath.Join(dir, "cdk.out", "hello-dev.template.json")
	testutil.WriteFiles(t, dir, map[string]string{"cdk.out/manifest.json": "{}", "cdk.out/hello-dev.template.json": "{}"})
	dev, err := Synth(ctx, Options{ProjectDir: dir, Stage: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	prod, err := Synth(ctx, Options{ProjectDir: dir, Stage: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		res   *Result
		stage string
	}{{dev, "dev"}, {prod, "prod"}} {
		want := filepath.Join(dir, "cdk.out", c.stage)
		if c.res.AssemblyDir != want || c.res.TemplatePath != filepath.Join(want, "hello-"+c.stage+".template.json") {
			t.Errorf("stage %s: assembly %s, template %s; want them in %s", c.stage, c.res.AssemblyDir, c.res.TemplatePath, want)
		}
		for _, f := range []string{c.res.TemplatePath, filepath.Join(c.res.AssemblyDir, "manifest.json")} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("stage %s after both synths: %v", c.stage, err)
			}
		}
	}
	for _, f := range []string{legacy, filepath.Join(dir, "cdk.out", "manifest.json")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s, of an assembly written straight into cdk.out, is still there", f)
		}
	}
	// Synthesizing dev again reuses its assembly: prod's did not replace it.
	again, err := Synth(ctx, Options{ProjectDir: dir, Stage: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused {
		t.Errorf("dev synthesized again after prod: its assembly was not reused")
	}
}
