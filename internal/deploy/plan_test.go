package deploy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/cfnstandin"
)

// planCalls plans the deploy of hello-dev from dir and returns the plan
// with the number of DescribeStacks and GetTemplate calls it made.
func planCalls(t *testing.T, e *Engine, fake *cfnstandin.AWS, dir string) (p *Plan, describes, templates int) {
	t.Helper()
	d, g := fake.CFN.Calls("DescribeStacks"), fake.CFN.Calls("GetTemplate")
	p, err := e.Plan(context.Background(), dir, "hello-dev")
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return p, fake.CFN.Calls("DescribeStacks") - d, fake.CFN.Calls("GetTemplate") - g
}

func TestPlanCreate(t *testing.T) {
	e, fake, _ := newEngine(t)
	p, describes, templates := planCalls(t, e, fake, assembly(t, nil))
	if p.Action != Create || p.Stack != nil || p.DeployedTemplate != nil {
		t.Errorf("action %s, stack %+v, deployed template %d bytes; want create with no stack", p.Action, p.Stack, len(p.DeployedTemplate))
	}
	if p.Report.Deployed || len(p.Report.Resources) != 6 || p.PolicyChanged() {
		t.Errorf("report deployed %v with %d resources, policy changed %v; want 6 resources added and no policy question", p.Report.Deployed, len(p.Report.Resources), p.PolicyChanged())
	}
	if got := p.Summary(); got != "Deploy would create stack hello-dev." {
		t.Errorf("summary %q", got)
	}
	if describes != 1 || templates != 0 {
		t.Errorf("plan described the stack %d times and read %d templates, want 1 and 0", describes, templates)
	}
	if p.Env.Account != "123456789012" || p.Env.Region != "us-east-1" {
		t.Errorf("env %+v", p.Env)
	}
}

func TestPlanReviewInProgressIsCreate(t *testing.T) {
	e, fake, _ := newEngine(t)
	fake.CFN.SetStatus("hello-dev", "REVIEW_IN_PROGRESS")
	p, _, templates := planCalls(t, e, fake, assembly(t, nil))
	if p.Action != Create || p.Stack == nil || p.Report.Deployed || templates != 0 {
		t.Errorf("action %s, stack %v, report deployed %v, %d templates read; want create of the stack left by a change set never executed", p.Action, p.Stack, p.Report.Deployed, templates)
	}
}

func TestPlanUpdateAndNoOp(t *testing.T) {
	e, fake, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}

	p, describes, templates := planCalls(t, e, fake, assembly(t, nil))
	if p.Action != NoOp || !p.Report.Empty() || p.PolicyChanged() {
		t.Errorf("same assembly: action %s, report empty %v, policy changed %v; want no-op", p.Action, p.Report.Empty(), p.PolicyChanged())
	}
	if got := p.Summary(); got != "Deploy would find stack hello-dev up to date." {
		t.Errorf("summary %q", got)
	}
	if describes != 1 || templates != 1 {
		t.Errorf("plan described the stack %d times and read %d templates, want 1 and 1", describes, templates)
	}

	changes := fake.CFN.Calls("CreateChangeSet")
	p, _, _ = planCalls(t, e, fake, assembly(t, func(tpl map[string]any) { addRoute(tpl); grantS3(tpl) }))
	if p.Action != Update || p.Stack == nil || p.Stack.Status != "CREATE_COMPLETE" || p.Stack.Outputs["EndpointURL"] == "" {
		t.Fatalf("changed assembly: action %s, stack %+v; want update of the deployed stack with its outputs", p.Action, p.Stack)
	}
	if !slices.Equal(p.PolicyAdded, []string{"s3:GetObject", "s3:PutObject"}) || len(p.PolicyRemoved) != 0 {
		t.Errorf("policy added %q removed %q, want s3:GetObject, s3:PutObject added", p.PolicyAdded, p.PolicyRemoved)
	}
	if len(p.Report.Routes) != 1 || p.Report.Routes[0].Path != "/users/{name}" || len(p.Report.IAM) != 1 {
		t.Errorf("report routes %+v, iam %+v", p.Report.Routes, p.Report.IAM)
	}
	if got := p.Summary(); got != "Deploy would update stack hello-dev." {
		t.Errorf("summary %q", got)
	}
	if fake.CFN.Calls("CreateChangeSet") != changes || fake.CFN.ChangeSetCount() != 0 {
		t.Error("planning created a change set")
	}
}

func TestPlanRecreateFromRollbackComplete(t *testing.T) {
	e, fake, out := newEngine(t)
	fake.CFN.SetStatus("hello-dev", "ROLLBACK_COMPLETE")
	dir := assembly(t, nil)
	p, _, templates := planCalls(t, e, fake, dir)
	if p.Action != Recreate || p.Report.Deployed || templates != 0 {
		t.Errorf("action %s, report deployed %v, %d templates read; want recreate, everything added", p.Action, p.Report.Deployed, templates)
	}
	if got := p.Summary(); got != "Deploy would delete stack hello-dev (ROLLBACK_COMPLETE: its first deployment failed and left no resources) and create it again." {
		t.Errorf("summary %q", got)
	}
	res, err := e.Deploy(context.Background(), p, Options{})
	if err != nil || !res.FirstDeploy || res.Status != "CREATE_COMPLETE" {
		t.Fatalf("deploy of the plan: %+v, %v\n%s", res, err, out)
	}
	if !strings.Contains(out.String(), "Stack hello-dev is ROLLBACK_COMPLETE: its first deployment failed and left no resources. Deleting it to create it again.") {
		t.Errorf("output:\n%s", out)
	}
}

func TestPlanRefuses(t *testing.T) {
	for _, tc := range []struct{ status, want string }{
		{"UPDATE_IN_PROGRESS", "stack hello-dev is UPDATE_IN_PROGRESS: another operation is running on it; wait for it to finish (`aws cloudformation describe-stacks --stack-name hello-dev --region us-east-1` shows its status) and deploy again"},
		{"CREATE_IN_PROGRESS", "stack hello-dev is CREATE_IN_PROGRESS: another operation is running on it"},
		{"DELETE_IN_PROGRESS", "stack hello-dev is DELETE_IN_PROGRESS: another operation is running on it"},
		{"UPDATE_ROLLBACK_FAILED", "stack hello-dev is UPDATE_ROLLBACK_FAILED: CloudFormation could not roll back a failed update. Fix what blocked the rollback (see the stack's events), then run `aws cloudformation continue-update-rollback --stack-name hello-dev --region us-east-1`"},
		{"DELETE_FAILED", "stack hello-dev is DELETE_FAILED and cannot be updated: delete it with `framework destroy` (fixing what blocks the deletion) and deploy again"},
		{"ROLLBACK_FAILED", "stack hello-dev is ROLLBACK_FAILED and cannot be updated"},
		{"CREATE_FAILED", "stack hello-dev is CREATE_FAILED and cannot be updated"},
	} {
		t.Run(tc.status, func(t *testing.T) {
			e, fake, _ := newEngine(t)
			fake.CFN.SetStatus("hello-dev", tc.status)
			p, _, _ := planCalls(t, e, fake, assembly(t, nil))
			if p.Action != Refuse || !strings.Contains(p.Reason, tc.want) {
				t.Fatalf("action %s, reason %q; want refuse with %q", p.Action, p.Reason, tc.want)
			}
			if got := p.Summary(); !strings.HasPrefix(got, "Deploy would stop: "+tc.want) {
				t.Errorf("summary %q", got)
			}
			if _, err := e.Deploy(context.Background(), p, Options{}); err == nil || err.Error() != p.Reason {
				t.Errorf("deploy of the plan: %v, want the reason", err)
			}
			if fake.CFN.Calls("CreateChangeSet") != 0 || fake.CFN.Status("hello-dev") != tc.status {
				t.Error("a refused plan changed the stack")
			}
		})
	}
}

func TestDiffOfRefusedPlanLeavesReplacementUnknown(t *testing.T) {
	e, fake, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	fake.CFN.SetStatus("hello-dev", "UPDATE_ROLLBACK_FAILED")
	r, err := diffAssembly(ctx, e, assembly(t, addRoute))
	if err != nil {
		t.Fatal(err)
	}
	if r.ReplacementUnknown != "stack hello-dev is UPDATE_ROLLBACK_FAILED, no change set can be created" || len(r.Routes) != 1 {
		t.Errorf("replacement unknown %q, routes %+v", r.ReplacementUnknown, r.Routes)
	}
	if fake.CFN.Calls("CreateChangeSet") != 2 { // the assets stack's and the first deploy's
		t.Errorf("%d change sets created, want none by diff", fake.CFN.Calls("CreateChangeSet")-2)
	}
}
