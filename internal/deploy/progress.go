package deploy

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"

	"github.com/framework-dev/framework/internal/names"
)

// follower waits for a stack operation to end, reporting the stack's
// events: one plain line per event, or on a terminal one status line
// (resources done of total, elapsed time) rewritten in place.
type follower struct {
	e                *Engine
	name, id         string
	boundary         string // newest event before the operation
	total            int
	done             map[string]bool
	failed           []types.StackEvent
	start            time.Time
	operation, hint  string
	lastStatus       string
	statusLineActive bool
	// shown is the last status printed for each resource, so that a status
	// CloudFormation reports twice (CREATE_IN_PROGRESS, then again with
	// "Resource creation Initiated") is printed once.
	shown map[string]string
}

func (e *Engine) newFollower(name, id, boundary string, total int, operation, hint string) *follower {
	return &follower{e: e, name: name, id: id, boundary: boundary, total: total, done: map[string]bool{},
		shown: map[string]string{}, start: time.Now(), operation: operation, hint: hint}
}

// wait polls until the stack's status is terminal and returns it. When ctx
// ends it returns an *InterruptedError.
//
// A call in flight when ctx ends is let finish (calls use a context
// without ctx's cancellation): tearing it down would only add the SDK's
// warnings about a closed connection to the interruption message.
func (f *follower) wait(ctx context.Context) (string, error) {
	defer f.endStatusLine()
	call := context.WithoutCancel(ctx)
	for {
		if err := f.events(call); err != nil {
			return "", f.interrupted(ctx, err)
		}
		if ctx.Err() != nil {
			return "", f.interrupted(ctx, ctx.Err())
		}
		out, err := f.e.CFN.DescribeStacks(call, &cloudformation.DescribeStacksInput{StackName: aws.String(f.id)})
		if err != nil {
			return "", f.interrupted(ctx, fmt.Errorf("describe stack %s: %w", f.name, err))
		}
		if len(out.Stacks) == 0 {
			return "", fmt.Errorf("stack %s disappeared while waiting for it", f.name)
		}
		f.lastStatus = string(out.Stacks[0].StackStatus)
		if terminal(f.lastStatus) {
			if err := f.events(call); err != nil {
				return "", f.interrupted(ctx, err)
			}
			return f.lastStatus, nil
		}
		if ctx.Err() != nil {
			return "", f.interrupted(ctx, ctx.Err())
		}
		f.statusLine()
		if err := f.e.poll(ctx); err != nil {
			return "", f.interrupted(ctx, err)
		}
	}
}

func (f *follower) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return &InterruptedError{StackName: f.name, Region: f.e.Region, Operation: f.operation, Status: f.lastStatus, Hint: f.hint}
}

// events fetches the events newer than the boundary and reports them
// oldest first.
func (f *follower) events(ctx context.Context) error {
	var fresh []types.StackEvent
	var token *string
pages:
	for {
		out, err := f.e.CFN.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String(f.id), NextToken: token})
		if err != nil {
			return fmt.Errorf("read the events of stack %s: %w", f.name, err)
		}
		for _, ev := range out.StackEvents {
			if aws.ToString(ev.EventId) == f.boundary {
				break pages
			}
			fresh = append(fresh, ev)
		}
		if out.NextToken == nil || f.boundary == "" && len(fresh) > 1000 {
			break
		}
		token = out.NextToken
	}
	if len(fresh) > 0 {
		f.boundary = aws.ToString(fresh[0].EventId)
	}
	for i := len(fresh) - 1; i >= 0; i-- {
		f.event(fresh[i])
	}
	return nil
}

func (f *follower) event(ev types.StackEvent) {
	status := string(ev.ResourceStatus)
	logical := aws.ToString(ev.LogicalResourceId)
	isStack := aws.ToString(ev.ResourceType) == "AWS::CloudFormation::Stack" && logical == f.name
	// DELETE_SKIPPED is a retained resource left in place: done too.
	if !isStack && (strings.HasSuffix(status, "_COMPLETE") || status == "DELETE_SKIPPED") && !f.done[logical] {
		f.done[logical] = true
	}
	if strings.HasSuffix(status, "_FAILED") && !isStack {
		f.failed = append(f.failed, ev)
	}
	if f.e.Terminal {
		f.statusLine()
		return
	}
	if f.shown[logical] == status && !strings.HasSuffix(status, "_FAILED") {
		return
	}
	f.shown[logical] = status
	line := fmt.Sprintf("  %s %-22s %s %s", f.counter(), status, aws.ToString(ev.ResourceType), logical)
	if r := aws.ToString(ev.ResourceStatusReason); r != "" && (strings.HasSuffix(status, "_FAILED") || isStack && r != "User Initiated") {
		line += ": " + r
	}
	f.e.printf("%s\n", line)
}

// counter is "[done/total elapsed]", done padded to the width of total so
// that the lines' columns stay aligned past 9 resources.
func (f *follower) counter() string {
	return fmt.Sprintf("[%*d/%d %s]", len(strconv.Itoa(f.total)), f.doneCount(), f.total, elapsed(time.Since(f.start)))
}

// doneCount is the number of resources done, at most the total (a
// rollback completes resources a second time).
func (f *follower) doneCount() int {
	if len(f.done) > f.total {
		return f.total
	}
	return len(f.done)
}

func elapsed(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func (f *follower) statusLine() {
	if !f.e.Terminal {
		return
	}
	status := f.lastStatus
	if status == "" {
		status = "starting"
	}
	line := fmt.Sprintf("  %s: %d/%d resources, %s elapsed (%s)", f.name, f.doneCount(), f.total, elapsed(time.Since(f.start)), status)
	// A line as wide as the terminal wraps, and the carriage return then
	// rewrites only its last row: keep it within the width.
	width := f.e.Width
	if width <= 0 {
		width = 80
	}
	if len([]rune(line)) >= width {
		line = fmt.Sprintf("  %s %d/%d %s %s", f.name, f.doneCount(), f.total, elapsed(time.Since(f.start)), status)
	}
	if r := []rune(line); len(r) >= width {
		line = string(r[:width-1])
	}
	f.e.printf("\r\x1b[K%s", line)
	f.statusLineActive = true
}

func (f *follower) endStatusLine() {
	if f.statusLineActive {
		f.e.printf("\n")
		f.statusLineActive = false
	}
}

// report prints each failed resource with CloudFormation's reason and what
// the final status means.
func (f *follower) report(status string) {
	if len(f.failed) > 0 {
		f.e.printf("Failed resources of stack %s:\n", f.name)
		for _, ev := range f.failed {
			reason := aws.ToString(ev.ResourceStatusReason)
			if reason == "" {
				reason = "(no reason given)"
			}
			f.e.printf("  %s (%s) %s: %s\n", aws.ToString(ev.LogicalResourceId), aws.ToString(ev.ResourceType), ev.ResourceStatus, reason)
		}
	}
	f.e.printf("%s\n", f.e.explainStatus(f.name, status))
}

// explainStatus says what a stack status left by a failed operation means
// and what to do.
func (e *Engine) explainStatus(name, status string) string {
	switch status {
	case "ROLLBACK_COMPLETE":
		return fmt.Sprintf("Rolled back: stack %s is ROLLBACK_COMPLETE and holds no resources; the next %s deletes it and creates it again.", name, e.command("deploy"))
	case "UPDATE_ROLLBACK_COMPLETE":
		return fmt.Sprintf("Rolled back: stack %s is UPDATE_ROLLBACK_COMPLETE, as it was before this deploy.", name)
	case "ROLLBACK_FAILED":
		return fmt.Sprintf("The rollback failed: stack %s is ROLLBACK_FAILED; delete it with %s and deploy again.", name, e.deleteCommand(name))
	case "UPDATE_ROLLBACK_FAILED":
		return updateRollbackFailed(name, e.Region)
	case "DELETE_FAILED":
		return fmt.Sprintf("Stack %s is DELETE_FAILED: remove what blocks the deletion of the resources above and %s.", name, e.deleteAgain(name))
	}
	return fmt.Sprintf("Stack %s is %s.", name, status)
}

// deleteCommand is the command that deletes the stack: `framework destroy`
// for the stage's stack, the AWS CLI's for the assets stack, which no
// framework command deletes.
func (e *Engine) deleteCommand(name string) string {
	if name == names.AssetsStackName {
		return fmt.Sprintf("`aws cloudformation delete-stack --stack-name %s --region %s`", name, e.Region)
	}
	return e.command("destroy")
}

// deleteAgain says to run the stack's deleteCommand again.
func (e *Engine) deleteAgain(name string) string {
	return "run " + e.deleteCommand(name) + " again"
}

func updateRollbackFailed(name, region string) string {
	return fmt.Sprintf("stack %s is UPDATE_ROLLBACK_FAILED: CloudFormation could not roll back a failed update. Fix what blocked the rollback (see the stack's events), then run `aws cloudformation continue-update-rollback --stack-name %s --region %s` (add --resources-to-skip LogicalId for resources that cannot be rolled back) and deploy again once the stack is UPDATE_ROLLBACK_COMPLETE", name, name, region)
}

// ErrFailed is wrapped by the error of a deploy or destroy that CloudFormation did not complete.
var ErrFailed = errors.New("see the failed resources above")
