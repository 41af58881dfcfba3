package deploy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/framework-dev/framework/internal/diff"
	"github.com/framework-dev/framework/internal/names"
)

// Options are the choices of Deploy beyond the plan.
type Options struct {
	// ConfirmPolicy is asked, before anything is changed, when the deploy
	// changes what the stack's roles may do (Plan.PolicyChanged): any
	// permission statement or managed policy, not only the actions. It
	// returns false to stop the deploy with ErrDeclined. Nil answers yes.
	ConfirmPolicy func(PolicyChange) (bool, error)
	// BeforeExecute, when not nil, runs once the change set is ready and
	// confirmed, just before it is executed (the CLI writes the policy
	// file there). An error stops the deploy and deletes the change set.
	BeforeExecute func() error
	// ConfirmData is asked once the change set is ready, before it is
	// executed, when the deploy replaces a resource that holds data or
	// deletes one that is not kept (diff.Report.DataAtRisk, completed
	// with CloudFormation's replacement answers). It returns false to stop
	// the deploy with ErrDeclined, the change set deleted. Nil answers yes.
	ConfirmData func([]diff.DataChange) (bool, error)
}

// PolicyChange is what a deploy changes in what the stack's roles may do.
type PolicyChange struct {
	// Added and Removed are the IAM action names granted and no longer
	// granted.
	Added, Removed []string
	// Changes are the permission changes, one line each: statements and
	// managed policies added ("+ ...") and removed ("- ...").
	Changes []string
}

// Result describes a finished deploy.
type Result struct {
	StackName string
	// FirstDeploy is true when the stack was created.
	FirstDeploy bool
	// NoChanges is true when the deployed stack already matched.
	NoChanges bool
	// Status is the stack's final status.
	Status string
	// Outputs are the stack outputs.
	Outputs map[string]string
}

// Deploy executes the plan through CloudFormation: it publishes the
// stack's assets and deploys its template through a change set, waiting
// for CloudFormation and reporting progress on e.Out. A plan whose action
// is Refuse returns its reason as the error, having changed nothing.
func (e *Engine) Deploy(ctx context.Context, p *Plan, o Options) (*Result, error) {
	a, st, env := p.Assembly, p.Stack, p.Env
	if p.Action == Refuse {
		return nil, errors.New(p.Reason)
	}
	// The role's policy: ask before changing what the function may do.
	if p.PolicyChanged() && o.ConfirmPolicy != nil {
		ok, err := o.ConfirmPolicy(PolicyChange{Added: p.PolicyAdded, Removed: p.PolicyRemoved, Changes: p.PermissionChanges})
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrDeclined
		}
	}

	hint := "run " + e.command("deploy") + " again once it has finished"
	first := p.Action == Create || p.Action == Recreate
	if p.Action == Recreate {
		e.printf("Stack %s is ROLLBACK_COMPLETE: its first deployment failed and left no resources. Deleting it to create it again.\n", st.Name)
		if err := e.deleteStack(ctx, st, hint); err != nil {
			return nil, err
		}
	}
	if first {
		e.printf("Initiating first time deployment...\n")
		e.noteKept(ctx, a.StackName)
	}
	// notStarted is an error before the change set runs: when interrupted
	// (Ctrl-C), it says that nothing was deployed.
	notStarted := func(err error) error {
		var ie *InterruptedError
		if ctx.Err() != nil && !errors.As(err, &ie) {
			return &InterruptedError{StackName: a.StackName, Region: e.Region, NotStarted: true, Hint: "run " + e.command("deploy") + " again"}
		}
		return err
	}
	if len(a.Files) > 0 || len(a.Template) > MaxTemplateBody {
		if usesAssetsBucket(a, env) {
			if err := e.EnsureAssetsBucket(ctx, env); err != nil {
				return nil, notStarted(err)
			}
		}
		if _, err := e.PublishAssets(ctx, a.Files, env); err != nil {
			return nil, notStarted(err)
		}
	}
	templateURL := ""
	if len(a.Template) > MaxTemplateBody {
		var err error
		if templateURL, err = e.templateURL(ctx, a, env); err != nil {
			return nil, notStarted(err)
		}
	}

	cs, err := e.createChangeSet(ctx, changeSetInput{
		stackName: a.StackName, template: a.Template, templateURL: templateURL,
		create: first, tags: a.Tags, description: "framework deploy",
	})
	if err != nil {
		return nil, notStarted(err)
	}
	res := &Result{StackName: a.StackName, FirstDeploy: first}
	if cs.NoChanges {
		e.printf("No changes: stack %s is up to date.\n", a.StackName)
		res.NoChanges = true
		cur, err := e.DescribeStack(ctx, a.StackName)
		if err != nil {
			return nil, err
		}
		if cur != nil {
			res.Status, res.Outputs = cur.Status, cur.Outputs
		}
		return res, nil
	}
	if !first && o.ConfirmData != nil && p.Report != nil {
		repl := map[string]string{}
		for _, c := range cs.Changes {
			repl[aws.ToString(c.LogicalResourceId)] = string(c.Replacement)
		}
		p.Report.SetReplacement(repl)
		if risk := p.Report.DataAtRisk(); len(risk) > 0 {
			ok, err := o.ConfirmData(risk)
			if err == nil && !ok {
				err = ErrDeclined
			}
			if err != nil {
				e.discardChangeSet(ctx, cs)
				return nil, err
			}
		}
	}
	if o.BeforeExecute != nil {
		if err := o.BeforeExecute(); err != nil {
			e.discardChangeSet(ctx, cs)
			return nil, err
		}
	}
	total := len(cs.Changes)
	if first {
		total = resourceCount(a.Template)
	}
	boundary, err := e.lastEventID(ctx, cs.StackID)
	if err != nil {
		e.discardChangeSet(ctx, cs)
		return nil, err
	}
	if _, err := e.CFN.ExecuteChangeSet(ctx, &cloudformation.ExecuteChangeSetInput{ChangeSetName: aws.String(cs.ID), StackName: aws.String(cs.StackID)}); err != nil {
		e.discardChangeSet(ctx, cs)
		return nil, fmt.Errorf("execute the change set of stack %s: %w", a.StackName, err)
	}
	verb := "Updating"
	if first {
		verb = "Creating"
	}
	e.printf("%s stack %s (%d resource changes)...\n", verb, a.StackName, total)
	f := e.newFollower(a.StackName, cs.StackID, boundary, total, "deployment", hint)
	status, err := f.wait(ctx)
	if err != nil {
		return nil, err
	}
	res.Status = status
	if !succeeded(status) {
		f.report(status)
		return nil, fmt.Errorf("deploying stack %s failed (%s): %w", a.StackName, status, ErrFailed)
	}
	cur, err := e.DescribeStack(ctx, cs.StackID)
	if err != nil {
		return nil, err
	}
	if cur != nil {
		res.Outputs = cur.Outputs
	}
	return res, nil
}

// usesAssetsBucket reports whether the assets go to the framework's assets
// bucket (and so need it created).
func usesAssetsBucket(a *Assembly, env Env) bool {
	bucket := env.Resolve(names.AssetsBucketName)
	if len(a.Template) > MaxTemplateBody {
		return true
	}
	for _, f := range a.Files {
		for _, d := range f.Destinations {
			if env.Resolve(d.Bucket) == bucket {
				return true
			}
		}
	}
	return false
}

// Destroy deletes the stack and waits for the deletion to end. It returns
// false when there was no stack to delete. confirm, when not nil, is asked
// once the stack is known to exist; false stops with ErrDeclined.
func (e *Engine) Destroy(ctx context.Context, stackName string, confirm func(*Stack) (bool, error)) (bool, error) {
	st, err := e.DescribeStack(ctx, stackName)
	if err != nil {
		return false, err
	}
	if st == nil {
		return false, nil
	}
	hint := "run " + e.command("destroy") + " again if it fails"
	if st.Status == "DELETE_IN_PROGRESS" {
		e.printf("Stack %s is already being deleted: waiting for it.\n", stackName)
		boundary, _ := e.lastEventID(ctx, st.ID)
		tpl, err := e.DeployedTemplate(ctx, st.ID)
		if err != nil {
			return false, err
		}
		f := e.newFollower(stackName, st.ID, boundary, resourceCount(tpl), "deletion", hint)
		status, err := f.wait(ctx)
		if err != nil {
			return false, err
		}
		if status != "DELETE_COMPLETE" {
			f.report(status)
			return false, fmt.Errorf("deleting stack %s failed (%s): %w", stackName, status, ErrFailed)
		}
		return true, nil
	}
	if strings.HasSuffix(st.Status, "_IN_PROGRESS") && st.Status != "REVIEW_IN_PROGRESS" {
		return false, fmt.Errorf("stack %s is %s: wait for that operation to finish (`aws cloudformation describe-stacks --stack-name %s --region %s` shows its status), then run %s again", stackName, st.Status, stackName, e.Region, e.command("destroy"))
	}
	if confirm != nil {
		ok, err := confirm(st)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, ErrDeclined
		}
	}
	e.printf("Deleting stack %s...\n", stackName)
	if err := e.deleteStack(ctx, st, hint); err != nil {
		return false, err
	}
	return true, nil
}

// Diff returns the plan's report completed with CloudFormation's answers
// on which modified resources it would replace: a change set is created,
// described and deleted, never executed. The answers are left unknown, and
// the report says why, when the stack is in a state no change set can be
// created from.
func (e *Engine) Diff(ctx context.Context, p *Plan) (*diff.Report, error) {
	a, st, r := p.Assembly, p.Stack, p.Report
	if p.DeployedTemplate == nil || !slices.ContainsFunc(r.Resources, func(c diff.ResourceChange) bool { return c.Action == diff.Modify }) {
		return r, nil
	}
	if p.Action == Refuse || strings.HasSuffix(st.Status, "_IN_PROGRESS") || strings.HasSuffix(st.Status, "_FAILED") {
		r.ReplacementUnknown = fmt.Sprintf("stack %s is %s, no change set can be created", st.Name, st.Status)
		return r, nil
	}
	templateURL := ""
	if len(a.Template) > MaxTemplateBody {
		var err error
		if templateURL, err = e.templateURL(ctx, a, p.Env); err != nil {
			r.ReplacementUnknown = fmt.Sprintf("the template is larger than %d bytes and could not be uploaded: %v", MaxTemplateBody, err)
			return r, nil
		}
	}
	cs, err := e.createChangeSet(ctx, changeSetInput{stackName: a.StackName, template: a.Template, templateURL: templateURL, tags: a.Tags, description: "framework diff (never executed)"})
	if err != nil {
		return nil, err
	}
	if !cs.NoChanges {
		e.discardChangeSet(ctx, cs)
	}
	repl := map[string]string{}
	for _, c := range cs.Changes {
		repl[aws.ToString(c.LogicalResourceId)] = string(c.Replacement)
	}
	r.SetReplacement(repl)
	return r, nil
}

// MaxTemplateBody is CloudFormation's limit on a template sent inline;
// larger templates go through S3.
const MaxTemplateBody = 51200
