package engine

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/cfnstandin"
	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/diff"
	"github.com/framework-dev/framework/internal/manifest"
)

// TestDeployResourcesLifecycle deploys the synthesized stack of an app
// declaring one resource of every kind to the CloudFormation stand-in:
// the stack's outputs carry every declared resource's attributes; a
// changed table key is flagged as replacing data and deploy stops when
// the user declines; a production stage's destroy keeps every declared
// resource, names them, and a new deploy of the stage says what the
// deletion kept and succeeds.
func TestDeployResourcesLifecycle(t *testing.T) {
	fake := cfnstandin.Start(t)
	ctx := context.Background()
	cfg, err := deploy.LoadConfig(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	e := deploy.New(cfg, &out)
	e.PollInterval = time.Millisecond
	synthAndPlan := func(m *manifest.Manifest, stage string) *deploy.Plan {
		t.Helper()
		res, err := assemble(ctx, prebuilt(t, m, stage, nil, nil), t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := e.Plan(ctx, res.AssemblyDir, res.StackName)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	// Create: every resource, its outputs with AWS's shapes.
	got, err := e.Deploy(ctx, synthAndPlan(resourcesManifest(), "dev"), deploy.Options{})
	if err != nil {
		t.Fatalf("deploy: %v\n%s", err, out.String())
	}
	for _, r := range resourcesManifest().Resources {
		for _, attr := range manifest.ResourceKinds[r.Kind].Attrs {
			if got.Outputs[manifest.ResourceOutput(r.Name, attr)] == "" {
				t.Errorf("deployed stack has no output %s", manifest.ResourceOutput(r.Name, attr))
			}
		}
	}
	if u := got.Outputs[manifest.ResourceOutput("jobs", manifest.AttrURL)]; !strings.HasPrefix(u, "https://sqs.") {
		t.Errorf("queue URL output %q", u)
	}
	if a := got.Outputs[manifest.ResourceOutput("todos", manifest.AttrStreamARN)]; !strings.Contains(a, ":table/todo-dev-") || !strings.Contains(a, "/stream/") {
		t.Errorf("table stream ARN output %q", a)
	}
	if n, arn := got.Outputs[manifest.ResourceOutput("apiKey", manifest.AttrName)], got.Outputs[manifest.ResourceOutput("apiKey", manifest.AttrARN)]; !strings.HasPrefix(n, "AppResApiKey") ||
		strings.Count(n, "-") != 1 || !strings.HasSuffix(arn, ":secret:"+n+arn[len(arn)-7:]) {
		t.Errorf("secret name output %q, want the name without the ARN and Secrets Manager's suffix", n)
	}

	// The table's sort key changes: diff flags the replacement, deploy asks.
	m := resourcesManifest()
	m.Resources[0].SortKey = &manifest.KeyAttr{Name: "when", Type: "S"}
	p := synthAndPlan(m, "dev")
	r, err := e.Diff(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Data) != 1 || r.Data[0].Type != "AWS::DynamoDB::Table" || r.Data[0].Action != diff.Modify || r.Data[0].Kept ||
		strings.Join(r.Data[0].Because, ",") != "KeySchema" {
		t.Fatalf("data changes %+v, want the table replaced because of KeySchema", r.Data)
	}
	if line := r.Data[0].Line(); !strings.HasPrefix(line, `table "todos" (AppResTodos`) {
		t.Errorf("data change %q: want the table named as declared", line)
	}
	before := fake.CFN.Template("todo-dev")
	_, err = e.Deploy(ctx, synthAndPlan(m, "dev"), deploy.Options{ConfirmData: func([]diff.DataChange) (bool, error) { return false, nil }})
	if !errors.Is(err, deploy.ErrDeclined) || fake.CFN.Template("todo-dev") != before {
		t.Fatalf("declined replacement: %v, template changed %v", err, fake.CFN.Template("todo-dev") != before)
	}

	// A production stage keeps every declared resource on destroy.
	if _, err := e.Deploy(ctx, synthAndPlan(resourcesManifest(), "prod"), deploy.Options{}); err != nil {
		t.Fatalf("deploy prod: %v\n%s", err, out.String())
	}
	var data []deploy.StackResource
	if _, err := e.Destroy(ctx, "todo-prod", func(st *deploy.Stack) (bool, error) {
		var err error
		data, err = e.DataResources(ctx, st)
		return true, err
	}); err != nil {
		t.Fatal(err)
	}
	if len(data) != 6 { // table, two queues, bucket, secret, parameter
		t.Errorf("data resources %v, want 6", data)
	}
	var declared []string
	for _, d := range data {
		if !d.Retained || d.PhysicalID == "" {
			t.Errorf("%s: retained %v, want kept with its name", d, d.Retained)
		}
		if d.Declared != "" {
			declared = append(declared, d.String())
		}
	}
	slices.Sort(declared)
	if len(declared) != 5 || !strings.HasPrefix(declared[0], `bucket "uploads" (`) || !strings.HasPrefix(declared[4], `table "todos" (todo-prod-`) {
		t.Errorf("declared data resources %q: want the five declared ones named as declared (the dead-letter queue is not)", declared)
	}
	if len(fake.CFN.Kept) != 7 { // and the topic
		t.Errorf("kept in the account: %d resources, want 7", len(fake.CFN.Kept))
	}
	out.Reset()
	if _, err := e.Deploy(ctx, synthAndPlan(resourcesManifest(), "prod"), deploy.Options{}); err != nil {
		t.Fatalf("deploy prod again: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "Note: stack todo-prod was deleted on") || !strings.Contains(out.String(), "kept 6 resources holding data") {
		t.Errorf("second deploy of prod does not say what the deletion kept:\n%s", out.String())
	}
}
