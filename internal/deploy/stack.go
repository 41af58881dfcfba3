package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/smithy-go"
)

// Stack is a deployed stack as DescribeStacks reports it.
type Stack struct {
	ID, Name, Status, StatusReason string
	Outputs                        map[string]string
}

// DescribeStack returns the live stack named name, or nil when there is
// none (never created, or deleted).
func (e *Engine) DescribeStack(ctx context.Context, name string) (*Stack, error) {
	out, err := e.CFN.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("describe stack %s: %w", name, e.explain(err))
	}
	if len(out.Stacks) == 0 {
		return nil, nil
	}
	s := out.Stacks[0]
	st := &Stack{
		ID: aws.ToString(s.StackId), Name: aws.ToString(s.StackName),
		Status: string(s.StackStatus), StatusReason: aws.ToString(s.StackStatusReason),
		Outputs: map[string]string{},
	}
	if st.Status == string(types.StackStatusDeleteComplete) {
		return nil, nil
	}
	for _, o := range s.Outputs {
		st.Outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return st, nil
}

// isNotExist tells CloudFormation's "Stack with id X does not exist".
func isNotExist(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationError" && strings.Contains(ae.ErrorMessage(), "does not exist")
}

// DeployedTemplate returns the template of the live stack (as deployed,
// the Original stage).
func (e *Engine) DeployedTemplate(ctx context.Context, stackName string) ([]byte, error) {
	out, err := e.CFN.GetTemplate(ctx, &cloudformation.GetTemplateInput{
		StackName: aws.String(stackName), TemplateStage: types.TemplateStageOriginal,
	})
	if err != nil {
		return nil, fmt.Errorf("get the deployed template of stack %s: %w", stackName, err)
	}
	return []byte(aws.ToString(out.TemplateBody)), nil
}

// WaitIdle waits until no operation runs on the stack named name (its
// status no longer ends in _IN_PROGRESS; REVIEW_IN_PROGRESS, a change set
// never executed, is idle), saying once what it waits for, and returns the
// stack then: nil when there is none, or when it was deleted meanwhile.
// Interrupted, it is an *InterruptedError saying nothing was deployed.
func (e *Engine) WaitIdle(ctx context.Context, name string) (*Stack, error) {
	interrupted := &InterruptedError{StackName: name, Region: e.Region, NotStarted: true,
		Hint: "run " + e.command("deploy") + " again once it finished"}
	said := false
	for {
		st, err := e.DescribeStack(ctx, name)
		if err != nil && ctx.Err() != nil {
			return nil, interrupted
		}
		if err != nil || st == nil || terminal(st.Status) || st.Status == "REVIEW_IN_PROGRESS" {
			return st, err
		}
		if !said {
			e.printf("Stack %s is %s: another operation is running on it; waiting for it to finish...\n", name, st.Status)
			said = true
		}
		if err := e.poll(ctx); err != nil {
			return nil, interrupted
		}
	}
}

// terminal reports whether a stack status ends an operation.
func terminal(status string) bool {
	return !strings.HasSuffix(status, "_IN_PROGRESS")
}

// succeeded reports whether an operation ending in status went through.
func succeeded(status string) bool {
	switch status {
	case "CREATE_COMPLETE", "UPDATE_COMPLETE", "DELETE_COMPLETE", "IMPORT_COMPLETE":
		return true
	}
	return false
}

// Capabilities returns the capabilities CloudFormation requires to deploy
// template: CAPABILITY_NAMED_IAM when an IAM resource has a custom name,
// CAPABILITY_IAM for other IAM resources, CAPABILITY_AUTO_EXPAND for
// transforms.
func Capabilities(template []byte) ([]types.Capability, error) {
	var t struct {
		Transform any `json:"Transform"`
		Resources map[string]struct {
			Type       string         `json:"Type"`
			Properties map[string]any `json:"Properties"`
		} `json:"Resources"`
	}
	if err := json.Unmarshal(template, &t); err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}
	iam, named, expand := false, false, t.Transform != nil
	for _, r := range t.Resources {
		if strings.HasPrefix(r.Type, "AWS::IAM::") {
			iam = true
			for _, k := range []string{"RoleName", "UserName", "GroupName", "ManagedPolicyName", "InstanceProfileName"} {
				if _, ok := r.Properties[k]; ok {
					named = true
				}
			}
		}
		if r.Type == "AWS::Serverless::Function" || r.Type == "AWS::CloudFormation::Macro" {
			expand = true
		}
	}
	var caps []types.Capability
	switch {
	case named:
		caps = append(caps, types.CapabilityCapabilityNamedIam)
	case iam:
		caps = append(caps, types.CapabilityCapabilityIam)
	}
	if expand {
		caps = append(caps, types.CapabilityCapabilityAutoExpand)
	}
	return caps, nil
}

// ChangeSet is a created change set.
type ChangeSet struct {
	ID, StackID string
	// NoChanges is true when CloudFormation found nothing to change; the
	// change set has then been deleted.
	NoChanges bool
	// Changes are the resource changes.
	Changes []types.ResourceChange
}

type changeSetInput struct {
	stackName   string
	template    []byte
	templateURL string
	create      bool
	tags        map[string]string
	description string
}

// createChangeSet creates a change set and waits until CloudFormation has
// computed it. A change set without changes is deleted and reported with
// NoChanges.
func (e *Engine) createChangeSet(ctx context.Context, in changeSetInput) (*ChangeSet, error) {
	caps, err := Capabilities(in.template)
	if err != nil {
		return nil, fmt.Errorf("stack %s: %w", in.stackName, err)
	}
	typ := types.ChangeSetTypeUpdate
	if in.create {
		typ = types.ChangeSetTypeCreate
	}
	name := fmt.Sprintf("framework-%d", time.Now().UnixNano())
	input := &cloudformation.CreateChangeSetInput{
		StackName:     aws.String(in.stackName),
		ChangeSetName: aws.String(name),
		ChangeSetType: typ,
		Capabilities:  caps,
		Description:   aws.String(in.description),
	}
	if in.templateURL != "" {
		input.TemplateURL = aws.String(in.templateURL)
	} else {
		input.TemplateBody = aws.String(string(in.template))
	}
	for _, k := range slices.Sorted(maps.Keys(in.tags)) {
		input.Tags = append(input.Tags, types.Tag{Key: aws.String(k), Value: aws.String(in.tags[k])})
	}
	out, err := e.CFN.CreateChangeSet(ctx, input)
	if err != nil {
		return nil, fmt.Errorf("create a change set for stack %s: %w", in.stackName, err)
	}
	cs := &ChangeSet{ID: aws.ToString(out.Id), StackID: aws.ToString(out.StackId)}
	for waited := false; ; waited = true {
		d, err := e.CFN.DescribeChangeSet(ctx, &cloudformation.DescribeChangeSetInput{ChangeSetName: aws.String(cs.ID), StackName: aws.String(cs.StackID)})
		if err != nil {
			e.discardChangeSet(ctx, cs)
			return nil, fmt.Errorf("describe change set %s of stack %s: %w", name, in.stackName, err)
		}
		switch d.Status {
		case types.ChangeSetStatusCreateComplete:
			cs.Changes = cs.Changes[:0]
			for _, c := range d.Changes {
				if c.ResourceChange != nil {
					cs.Changes = append(cs.Changes, *c.ResourceChange)
				}
			}
			for d.NextToken != nil {
				d, err = e.CFN.DescribeChangeSet(ctx, &cloudformation.DescribeChangeSetInput{ChangeSetName: aws.String(cs.ID), StackName: aws.String(cs.StackID), NextToken: d.NextToken})
				if err != nil {
					e.discardChangeSet(ctx, cs)
					return nil, fmt.Errorf("describe change set %s of stack %s: %w", name, in.stackName, err)
				}
				for _, c := range d.Changes {
					if c.ResourceChange != nil {
						cs.Changes = append(cs.Changes, *c.ResourceChange)
					}
				}
			}
			return cs, nil
		case types.ChangeSetStatusFailed:
			reason := aws.ToString(d.StatusReason)
			e.discardChangeSet(ctx, cs)
			if noChanges(reason) {
				cs.NoChanges = true
				return cs, nil
			}
			return nil, fmt.Errorf("CloudFormation refused the change set for stack %s: %s", in.stackName, reason)
		}
		if !waited { // CloudFormation takes seconds to tens of seconds: say what is awaited
			e.printf("Waiting for CloudFormation to work out the changes to stack %s (a change set)...\n", in.stackName)
		}
		if err := e.poll(ctx); err != nil {
			e.discardChangeSet(ctx, cs)
			return nil, err
		}
	}
}

func noChanges(reason string) bool {
	return strings.Contains(reason, "didn't contain changes") || strings.Contains(reason, "No updates are to be performed")
}

// discardChangeSet deletes a change set, also when ctx has ended (Ctrl-C),
// so that none is left behind.
func (e *Engine) discardChangeSet(ctx context.Context, cs *ChangeSet) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, _ = e.CFN.DeleteChangeSet(ctx, &cloudformation.DeleteChangeSetInput{ChangeSetName: aws.String(cs.ID), StackName: aws.String(cs.StackID)})
}

// lastEventID returns the id of the stack's newest event, the boundary
// after which a follower reports events.
func (e *Engine) lastEventID(ctx context.Context, stack string) (string, error) {
	out, err := e.CFN.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String(stack)})
	if err != nil {
		if isNotExist(err) {
			return "", nil
		}
		return "", fmt.Errorf("read the events of stack %s: %w", stack, err)
	}
	if len(out.StackEvents) == 0 {
		return "", nil
	}
	return aws.ToString(out.StackEvents[0].EventId), nil
}

// deleteStack deletes a stack and waits for the deletion to end.
func (e *Engine) deleteStack(ctx context.Context, st *Stack, hint string) error {
	boundary, err := e.lastEventID(ctx, st.ID)
	if err != nil {
		return err
	}
	tpl, err := e.DeployedTemplate(ctx, st.ID)
	if err != nil {
		return err
	}
	if _, err := e.CFN.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String(st.ID)}); err != nil {
		return fmt.Errorf("delete stack %s: %w", st.Name, err)
	}
	f := e.newFollower(st.Name, st.ID, boundary, resourceCount(tpl), "deletion", hint)
	status, err := f.wait(ctx)
	if err != nil {
		return err
	}
	if status != "DELETE_COMPLETE" {
		f.report(status)
		return fmt.Errorf("deleting stack %s failed: it is %s; fix the causes above and %s", st.Name, status, e.deleteAgain(st.Name))
	}
	return nil
}

func resourceCount(template []byte) int {
	var t struct {
		Resources map[string]json.RawMessage `json:"Resources"`
	}
	_ = json.Unmarshal(template, &t)
	return len(t.Resources)
}
