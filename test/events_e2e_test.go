package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestDeployEventsLifecycle deploys an app with one handler of every kind
// (examples/events' source in a new project) against the CloudFormation
// stand-in, checks the deployed stack's functions and triggers, removes a
// handler (diff names it, deploy removes it) and destroys the stage.
func TestDeployEventsLifecycle(t *testing.T) {
	fake, env := startStandins(t)
	proj := newProject(t, env, "evshop")
	src, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "events", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	mainGo := filepath.Join(proj, "main.go")
	writeFile(t, mainGo, strings.Replace(string(src), `framework.New("events")`, `framework.New("evshop")`, 1))
	run := cliRunner(t, proj, env)

	run(0, "deploy")
	if s := fake.CFN.Status("evshop-dev"); s != "CREATE_COMPLETE" {
		t.Fatalf("stack status %s", s)
	}
	var tpl struct {
		Resources map[string]struct{ Type string }
		Outputs   map[string]any
	}
	if err := json.Unmarshal([]byte(fake.CFN.Template("evshop-dev")), &tpl); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range tpl.Resources {
		count[r.Type]++
	}
	for typ, n := range map[string]int{"AWS::Lambda::Function": 10, "AWS::Events::Rule": 2, "AWS::Lambda::EventSourceMapping": 3,
		"AWS::SNS::Subscription": 1, "Custom::S3BucketNotifications": 1} {
		if count[typ] != n {
			t.Errorf("deployed %d %s, want %d", count[typ], typ, n)
		}
	}
	for _, h := range []string{"nightly-cleanup", "orders", "alerts", "uploads", "order-shipped", "order-audit", "clicks", "quote"} {
		if _, ok := tpl.Outputs[names.FunctionOutput(h)]; !ok {
			t.Errorf("the stack has no output for %s", h)
		}
	}

	// Remove the Kinesis handler: diff names it and its trigger; deploy removes them.
	src2, _ := os.ReadFile(mainGo)
	start := strings.Index(string(src2), "\t// A Kinesis stream")
	end := strings.Index(string(src2), "\t// A plain function")
	if start < 0 || end < start {
		t.Fatalf("main.go has no Kinesis handler block")
	}
	writeFile(t, mainGo, string(src2[:start])+string(src2[end:]))
	out := run(0, "diff")
	for _, want := range []string{"- function clicks", "- clicks trigger: event source arn:${AWS::Partition}:kinesis:"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff lacks %q", want)
		}
	}
	out = run(0, "deploy", "--yes") // the role loses the Kinesis actions: deploy asks
	if !strings.Contains(out, "- kinesis:GetRecords") {
		t.Errorf("deploy did not show the Kinesis actions going:\n%s", out)
	}
	if strings.Contains(fake.CFN.Template("evshop-dev"), "FnclicksName") {
		t.Error("the deployed template still has the clicks function")
	}
	out = run(0, "destroy", "--yes")
	if !strings.Contains(out, "Deleted stage dev (stack evshop-dev).") {
		t.Errorf("destroy:\n%s", out)
	}
}
