package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthEventsExample synthesizes examples/events, one handler of every
// kind, compares the template with its golden file (each trigger resource
// shows there), checks what each kind needs, and runs cfn-lint on it.
func TestSynthEventsExample(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	out := t.TempDir()
	res, err := Synth(context.Background(), Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", "events"), OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(res.TemplatePath)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "events-dev.template.json"), normalize(t, raw), *update)
	tpl := readTemplate(t, res.TemplatePath)
	checkNoRedundantDependsOn(t, tpl)

	// One function per handler, each with its FRAMEWORK_HANDLER, all from
	// the same package.
	handlers := map[string]resource{}
	var codes []string
	for _, r := range tpl.Resources {
		if r.Type != "AWS::Lambda::Function" || r.Properties["Runtime"] != "provided.al2023" {
			continue
		}
		codes = append(codes, fmt.Sprint(r.Properties["Code"]))
		name := ""
		if env, ok := r.Properties["Environment"].(map[string]any); ok {
			name, _ = env["Variables"].(map[string]any)[names.EnvHandler].(string)
		}
		handlers[name] = r
	}
	want := []string{"", "alerts", "clicks", "nightly-cleanup", "order-audit", "order-shipped", "orders", "quote", "uploads"}
	if got := slices.Sorted(maps.Keys(handlers)); !slices.Equal(got, want) {
		t.Errorf("functions by FRAMEWORK_HANDLER = %q, want %q", got, want)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(codes)))) != 1 {
		t.Errorf("the functions do not share one package: %v", codes)
	}
	if p := handlers["nightly-cleanup"].Properties; p["MemorySize"] != 512.0 || p["Timeout"] != 300.0 {
		t.Errorf("nightly-cleanup memory %v timeout %v, want lambda_functions' 512 and 300", p["MemorySize"], p["Timeout"])
	}
	if p := handlers["quote"].Properties; p["MemorySize"] != 128.0 || p["Timeout"] != 60.0 {
		t.Errorf("quote memory %v timeout %v, want the stage's 128 and 60", p["MemorySize"], p["Timeout"])
	}

	// Triggers: two rules, three event source mappings (partial batch
	// failures where the handler reports them), a subscription, the bucket
	// notification, and each push source's invoke permission.
	count := map[string]int{}
	for id, r := range tpl.Resources {
		count[r.Type]++
		if r.Type == "AWS::Lambda::EventSourceMapping" {
			partial := fmt.Sprint(r.Properties["FunctionResponseTypes"]) == "[ReportBatchItemFailures]"
			if wantPartial := !strings.Contains(id, "audit"); partial != wantPartial {
				t.Errorf("%s: FunctionResponseTypes %v", id, r.Properties["FunctionResponseTypes"])
			}
		}
	}
	for typ, n := range map[string]int{"AWS::Events::Rule": 2, "AWS::Lambda::EventSourceMapping": 3, "AWS::SNS::Subscription": 1,
		"Custom::S3BucketNotifications": 1, "AWS::Lambda::Permission": 5} {
		if count[typ] != n {
			t.Errorf("%d %s, want %d", count[typ], typ, n)
		}
	}
	for _, h := range want[1:] {
		if _, ok := tpl.Outputs[names.FunctionOutput(h)]; !ok {
			t.Errorf("no output %s for %s", names.FunctionOutput(h), h)
		}
	}

	cfnLint(t, res.TemplatePath)
}

// cfnLint runs cfn-lint on a template and fails on any error (warnings,
// such as the W3005 redundant DependsOn CDK writes, are logged).
func cfnLint(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Fatalf("cfn-lint is needed to check the template (pip install cfn-lint): %v", err)
	}
	out, err := exec.Command(bin, "--format", "parseable", path).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// Exit status bits: 2 errors, 4 warnings, 8 informational.
		if ee.ExitCode()&2 != 0 || ee.ExitCode()&1 != 0 {
			t.Fatalf("cfn-lint found errors in %s:\n%s", path, out)
		}
	} else if err != nil {
		t.Fatalf("cfn-lint: %v", err)
	}
	t.Logf("cfn-lint: no error (%d warning lines)", strings.Count(string(out), "\n"))
}

// checkNoRedundantDependsOn fails for a function of the app's construct
// whose DependsOn names the role its Role property already references
// with Fn::GetAtt (cfn-lint's W3005): the reference orders them.
func checkNoRedundantDependsOn(t *testing.T, tpl *template) {
	t.Helper()
	for id, r := range tpl.Resources {
		if r.Type != "AWS::Lambda::Function" || !strings.HasPrefix(id, "App") {
			continue
		}
		ga, _ := r.Properties["Role"].(map[string]any)["Fn::GetAtt"].([]any)
		if len(ga) == 0 {
			continue
		}
		deps, _ := r.DependsOn.([]any)
		for _, d := range deps {
			if d == ga[0] {
				t.Errorf("function %s depends on role %s, which its Role property references already", id, d)
			}
		}
	}
}
