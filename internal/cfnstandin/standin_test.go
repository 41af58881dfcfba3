package cfnstandin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/framework-dev/framework/internal/cfnstandin"
)

func clients(t *testing.T, maxAttempts int) (*cfnstandin.AWS, *cloudformation.Client, *sts.Client) {
	t.Helper()
	a := cfnstandin.Start(t)
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = maxAttempts
			o.MaxBackoff = time.Millisecond
		})
	}
	return a, cloudformation.NewFromConfig(cfg), sts.NewFromConfig(cfg)
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode() + ": " + ae.ErrorMessage()
	}
	return ""
}

const roleTpl = `{"Resources":{"Role":{"Type":"AWS::IAM::Role","Properties":{"Path":"/","Description":"a <b> & c"}}},
"Outputs":{"Arn":{"Value":{"Fn::GetAtt":["Role","Arn"]}},"Where":{"Value":{"Fn::Sub":"${AWS::Region}/${AWS::AccountId}"}}}}`

// describeStack returns the stack "s" and its outputs (key → value).
func describeStack(t *testing.T, c *cloudformation.Client) (types.Stack, map[string]string) {
	t.Helper()
	out, err := c.DescribeStacks(context.Background(), &cloudformation.DescribeStacksInput{StackName: aws.String("s")})
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return out.Stacks[0], outputs
}

// deploy creates a change set for body and executes it, polling until done.
func deploy(t *testing.T, c *cloudformation.Client, typ types.ChangeSetType, body string) *cloudformation.DescribeChangeSetOutput {
	t.Helper()
	ctx := context.Background()
	cs, err := c.CreateChangeSet(ctx, &cloudformation.CreateChangeSetInput{
		StackName: aws.String("s"), ChangeSetName: aws.String(fmt.Sprintf("cs%d", time.Now().UnixNano())), ChangeSetType: typ,
		TemplateBody: aws.String(body), Capabilities: []types.Capability{types.CapabilityCapabilityIam},
	})
	if err != nil {
		t.Fatal(err)
	}
	var d *cloudformation.DescribeChangeSetOutput
	for i := 0; i < 5; i++ {
		if d, err = c.DescribeChangeSet(ctx, &cloudformation.DescribeChangeSetInput{ChangeSetName: cs.Id}); err != nil {
			t.Fatal(err)
		}
		if d.Status == types.ChangeSetStatusCreateComplete || d.Status == types.ChangeSetStatusFailed {
			break
		}
	}
	if d.Status != types.ChangeSetStatusCreateComplete {
		return d
	}
	if _, err := c.ExecuteChangeSet(ctx, &cloudformation.ExecuteChangeSetInput{ChangeSetName: cs.Id}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		out, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String("s")})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(out.Stacks[0].StackStatus), "_IN_PROGRESS") {
			return d
		}
	}
	t.Fatal("stack never finished")
	return nil
}

func TestStackLifecycleThroughTheSDK(t *testing.T) {
	a, c, s := clients(t, 1)
	ctx := context.Background()
	id, err := s.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(id.Account) != "123456789012" {
		t.Fatalf("GetCallerIdentity = %v, %v", id, err)
	}
	if _, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String("s")}); code(err) != "ValidationError: Stack with id s does not exist" {
		t.Errorf("unknown stack: %v", err)
	}
	deploy(t, c, types.ChangeSetTypeCreate, roleTpl)
	stack, outputs := describeStack(t, c)
	if !strings.HasPrefix(outputs["Arn"], "arn:aws:iam::123456789012:role/s-Role-") || outputs["Where"] != "us-east-1/123456789012" {
		t.Errorf("outputs = %v", outputs)
	}
	tpl, err := c.GetTemplate(ctx, &cloudformation.GetTemplateInput{StackName: aws.String("s")})
	if err != nil || aws.ToString(tpl.TemplateBody) != roleTpl {
		t.Errorf("GetTemplate = %q, %v (XML escaping must round-trip)", aws.ToString(tpl.TemplateBody), err)
	}

	// The same template again: a change set without changes.
	d := deploy(t, c, types.ChangeSetTypeUpdate, roleTpl)
	if d.Status != types.ChangeSetStatusFailed || !strings.Contains(aws.ToString(d.StatusReason), "didn't contain changes") {
		t.Errorf("no-change change set: %s %q", d.Status, aws.ToString(d.StatusReason))
	}
	// A path change replaces the role.
	d = deploy(t, c, types.ChangeSetTypeUpdate, strings.Replace(roleTpl, `"Path":"/"`, `"Path":"/x/"`, 1))
	if len(d.Changes) != 1 || d.Changes[0].ResourceChange.Replacement != types.ReplacementTrue {
		t.Errorf("changes = %+v", d.Changes)
	}
	if a.CFN.Status("s") != "UPDATE_COMPLETE" {
		t.Errorf("status %s", a.CFN.Status("s"))
	}

	// Events page with NextToken, newest first.
	a.CFN.EventPageSize = 3
	ev, err := c.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String("s")})
	if err != nil || len(ev.StackEvents) != 3 || ev.NextToken == nil || ev.StackEvents[0].ResourceStatus != "UPDATE_COMPLETE" {
		t.Fatalf("events page: %d events, token %v, err %v", len(ev.StackEvents), ev.NextToken, err)
	}

	if _, err := c.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String("s")}); err != nil {
		t.Fatal(err)
	}
	for a.CFN.Status("s") != "" {
		if _, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: stack.StackId}); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: stack.StackId})
	if err != nil || gone.Stacks[0].StackStatus != types.StackStatusDeleteComplete {
		t.Errorf("deleted stack by id: %v %v", gone, err)
	}
}

func TestRefusals(t *testing.T) {
	_, c, _ := clients(t, 1)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		in   cloudformation.CreateChangeSetInput
		want string
	}{
		{"IAM without capability", cloudformation.CreateChangeSetInput{TemplateBody: aws.String(roleTpl)}, "InsufficientCapabilitiesException: Requires capabilities : [CAPABILITY_IAM]"},
		{"named IAM", cloudformation.CreateChangeSetInput{TemplateBody: aws.String(`{"Resources":{"R":{"Type":"AWS::IAM::Role","Properties":{"RoleName":"r"}}}}`),
			Capabilities: []types.Capability{types.CapabilityCapabilityIam}}, "Requires capabilities : [CAPABILITY_NAMED_IAM]"},
		{"inline body too large", cloudformation.CreateChangeSetInput{TemplateBody: aws.String(`{"Description":"` + strings.Repeat("x", 51200) + `","Resources":{}}`)}, "less than or equal to 51200"},
		{"update of a stack that does not exist", cloudformation.CreateChangeSetInput{TemplateBody: aws.String(`{"Resources":{"B":{"Type":"AWS::S3::Bucket"}}}`), ChangeSetType: types.ChangeSetTypeUpdate}, "ValidationError: Stack [s] does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.StackName, in.ChangeSetName = aws.String("s"), aws.String("c")
			if in.ChangeSetType == "" {
				in.ChangeSetType = types.ChangeSetTypeCreate
			}
			_, err := c.CreateChangeSet(ctx, &in)
			if !strings.Contains(code(err), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestThrottlingIsRetriedBySDK(t *testing.T) {
	a, c, _ := clients(t, 3)
	a.CFN.Throttle("DescribeStacks", 2)
	_, err := c.DescribeStacks(context.Background(), &cloudformation.DescribeStacksInput{})
	if err != nil || a.CFN.Calls("DescribeStacks") != 3 {
		t.Errorf("err %v after %d calls, want success on the third", err, a.CFN.Calls("DescribeStacks"))
	}
	a.CFN.Throttle("DescribeStacks", 5)
	_, err = c.DescribeStacks(context.Background(), &cloudformation.DescribeStacksInput{})
	if code(err) != "Throttling: Rate exceeded" {
		t.Errorf("err = %v, want Throttling once retries are exhausted", err)
	}
}

func TestHoldAndSettle(t *testing.T) {
	a, c, _ := clients(t, 1)
	a.CFN.Hold("s")
	ctx := context.Background()
	cs, err := c.CreateChangeSet(ctx, &cloudformation.CreateChangeSetInput{StackName: aws.String("s"), ChangeSetName: aws.String("c"),
		ChangeSetType: types.ChangeSetTypeCreate, TemplateBody: aws.String(`{"Resources":{"B":{"Type":"AWS::S3::Bucket","Properties":{"BucketName":"b"}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := c.DescribeChangeSet(ctx, &cloudformation.DescribeChangeSetInput{ChangeSetName: cs.Id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ExecuteChangeSet(ctx, &cloudformation.ExecuteChangeSetInput{ChangeSetName: cs.Id}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String("s")}); err != nil {
			t.Fatal(err)
		}
	}
	if a.CFN.Status("s") != "CREATE_IN_PROGRESS" {
		t.Fatalf("held stack is %s", a.CFN.Status("s"))
	}
	a.CFN.Settle("s")
	if a.CFN.Status("s") != "CREATE_COMPLETE" {
		t.Fatalf("settled stack is %s", a.CFN.Status("s"))
	}
	// The bucket resource created the bucket in the S3 fake.
	if ok, err := a.S3.BucketExists("b"); !ok || err != nil {
		t.Errorf("bucket b not created in the S3 fake: %v %v", ok, err)
	}
}
