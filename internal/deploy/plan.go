package deploy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/diff"
)

// Action is what a deploy does with a stack, as the planner decides it.
type Action string

// The actions of a plan.
const (
	// Create creates the stack: there is none, or one created by a change
	// set never executed (REVIEW_IN_PROGRESS).
	Create Action = "create"
	// Update updates the deployed stack through a change set.
	Update Action = "update"
	// NoOp is an Update whose templates do not differ: the report is
	// empty and the role's policy is unchanged. Deploy still lets
	// CloudFormation confirm it with a change set, since CloudFormation
	// also compares what the report does not (stack tags, the template's
	// description and metadata), and reports "No changes" when it agrees.
	NoOp Action = "no-op"
	// Recreate deletes the stack and creates it again: its first
	// deployment failed and left it ROLLBACK_COMPLETE, holding no
	// resources, a state CloudFormation cannot update.
	Recreate Action = "recreate"
	// Refuse changes nothing: the stack is in a state no deploy can
	// start from (another operation running, a failed rollback or
	// deletion). The plan's Reason says why and what to do.
	Refuse Action = "refuse"
)

// Plan is what a deploy would do, read once from the cloud assembly and
// the deployed stack. Diff prints it; Deploy executes it.
type Plan struct {
	// Assembly is the synthesized stack.
	Assembly *Assembly
	// Env is the account, region and partition deployed to.
	Env Env
	// Stack is the deployed stack, nil when there is none.
	Stack *Stack
	// DeployedTemplate is the template of the deployed stack; nil when
	// the stack is created (Create, Recreate).
	DeployedTemplate []byte
	// Action is what the deploy does; Reason says why for Recreate and
	// Refuse (for Refuse, a message for the user saying what to do).
	Action Action
	Reason string
	// Report is the difference between the deployed template (nothing,
	// for Create and Recreate) and the synthesized one, with the plan's
	// action and reason.
	Report *diff.Report
	// PolicyAdded and PolicyRemoved are the IAM actions the function's
	// role gains and loses, sorted; both empty unless the stack is
	// updated.
	PolicyAdded, PolicyRemoved []string
	// PermissionChanges are, one line each, every change of what IAM lets
	// the stack's roles do (diff.PermissionChanges): statements added and
	// removed, those that keep their actions but change their resources
	// included, and managed policies attached and detached; empty unless
	// the stack is updated.
	PermissionChanges []string
}

// PolicyChanged reports whether the deploy changes what the stack's roles,
// the function's included, may do.
func (p *Plan) PolicyChanged() bool {
	return len(p.PolicyAdded) > 0 || len(p.PolicyRemoved) > 0 || len(p.PermissionChanges) > 0
}

// Refuse makes the plan a refusal for reason, a message for the user
// saying what to do: Deploy then changes nothing and Summary says why.
func (p *Plan) Refuse(reason string) {
	p.Action, p.Reason = Refuse, reason
	p.Report.Action, p.Report.ActionReason = string(Refuse), reason
}

// Summary is one sentence saying what a deploy of the plan does.
func (p *Plan) Summary() string {
	name := p.Assembly.StackName
	switch p.Action {
	case Create:
		return fmt.Sprintf("Deploy would create stack %s.", name)
	case Recreate:
		return fmt.Sprintf("Deploy would delete stack %s (%s) and create it again.", name, p.Reason)
	case NoOp:
		return fmt.Sprintf("Deploy would find stack %s up to date.", name)
	case Refuse:
		return "Deploy would stop: " + p.Reason + "."
	}
	return fmt.Sprintf("Deploy would update stack %s.", name)
}

// Plan reads the stack named stackName from the cloud assembly in
// assemblyDir and the deployed stack of that name (DescribeStacks, then
// GetTemplate when there is a template to compare with), and decides what
// a deploy does. A stack no deploy can start from is not an error: the
// plan's Action is Refuse.
func (e *Engine) Plan(ctx context.Context, assemblyDir, stackName string) (*Plan, error) {
	a, err := ReadAssembly(assemblyDir, stackName)
	if err != nil {
		return nil, err
	}
	env, err := e.Environment(ctx)
	if err != nil {
		return nil, err
	}
	st, err := e.DescribeStack(ctx, a.StackName)
	if err != nil {
		return nil, err
	}
	p := &Plan{Assembly: a, Env: env, Stack: st}
	p.Action, p.Reason = e.action(st)
	if p.Action != Create && p.Action != Recreate {
		if p.DeployedTemplate, err = e.DeployedTemplate(ctx, st.ID); err != nil {
			return nil, err
		}
	}
	if p.Report, err = diff.Templates(a.StackName, p.DeployedTemplate, a.Template); err != nil {
		return nil, err
	}
	if p.Action == Update {
		if p.PolicyAdded, p.PolicyRemoved, err = policyChange(p.DeployedTemplate, a.Template); err != nil {
			return nil, err
		}
		if p.PermissionChanges, err = diff.PermissionChanges(p.DeployedTemplate, a.Template); err != nil {
			return nil, err
		}
		if p.Report.Empty() && !p.PolicyChanged() {
			p.Action = NoOp
		}
	}
	p.Report.Action, p.Report.ActionReason = string(p.Action), p.Reason
	if p.Action == Update && len(p.Report.IndexProblems) > 0 {
		// CloudFormation would fail the update and roll it back.
		p.Refuse(strings.Join(p.Report.IndexProblems, "; "))
	}
	return p, nil
}

// action decides what a deploy does with the deployed stack st (nil when
// none), and why when it does not simply create or update it.
func (e *Engine) action(st *Stack) (Action, string) {
	switch {
	case st == nil, st.Status == "REVIEW_IN_PROGRESS":
		return Create, ""
	case st.Status == "ROLLBACK_COMPLETE":
		return Recreate, "ROLLBACK_COMPLETE: its first deployment failed and left no resources"
	case st.Status == "UPDATE_ROLLBACK_FAILED":
		return Refuse, updateRollbackFailed(st.Name, e.Region)
	case strings.HasSuffix(st.Status, "_IN_PROGRESS"):
		return Refuse, fmt.Sprintf("stack %s is %s: another operation is running on it; wait for it to finish (`aws cloudformation describe-stacks --stack-name %s --region %s` shows its status) and deploy again, or deploy with --wait, which waits for it", st.Name, st.Status, st.Name, e.Region)
	case st.Status == "ROLLBACK_FAILED", st.Status == "DELETE_FAILED", st.Status == "CREATE_FAILED":
		return Refuse, fmt.Sprintf("stack %s is %s and cannot be updated: delete it with %s (fixing what blocks the deletion) and deploy again", st.Name, st.Status, e.command("destroy"))
	}
	return Update, ""
}

// policyChange returns the IAM actions the synthesized template grants
// that the deployed one does not, and the reverse, both sorted (as
// diff.PolicyActions returns them).
func policyChange(deployed, synthesized []byte) (added, removed []string, err error) {
	before, err := diff.PolicyActions(deployed)
	if err != nil {
		return nil, nil, fmt.Errorf("read the IAM policy of the deployed template: %w", err)
	}
	after, err := diff.PolicyActions(synthesized)
	if err != nil {
		return nil, nil, fmt.Errorf("read the IAM policy of the synthesized template: %w", err)
	}
	return missing(after, before), missing(before, after), nil
}

// missing returns the elements of list that other lacks.
func missing(list, other []string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return slices.Contains(other, s) })
}
