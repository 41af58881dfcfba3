package cfnstandin_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
)

// triggerTpl has a function with a schedule rule, an event source mapping
// whose StartingPosition is %s, and an SNS subscription.
func triggerTpl(startingPosition string) string {
	return `{"Resources":{
"Fn":{"Type":"AWS::Lambda::Function","Properties":{"Runtime":"provided.al2023"}},
"Rule":{"Type":"AWS::Events::Rule","Properties":{"ScheduleExpression":"rate(1 day)","Targets":[{"Arn":{"Fn::GetAtt":["Fn","Arn"]},"Id":"H"}]}},
"Source":{"Type":"AWS::Lambda::EventSourceMapping","Properties":{"FunctionName":{"Ref":"Fn"},` + startingPosition + `
  "EventSourceArn":{"Fn::Join":["",["arn:aws:kinesis:",{"Ref":"AWS::Region"},":123456789012:stream/clicks"]]}}},
"Sub":{"Type":"AWS::SNS::Subscription","Properties":{"Protocol":"lambda","TopicArn":"arn:aws:sns:us-east-1:123456789012:alerts","Endpoint":{"Fn::GetAtt":["Fn","Arn"]}}}},
"Outputs":{"RuleArn":{"Value":{"Fn::GetAtt":["Rule","Arn"]}},"Mapping":{"Value":{"Ref":"Source"}},"Sub":{"Value":{"Ref":"Sub"}}}}`
}

// TestTriggerResources: trigger resources missing what AWS requires fail
// their creation with AWS's reason; valid ones get AWS-shaped ids.
func TestTriggerResources(t *testing.T) {
	a, c, _ := clients(t, 1)
	ctx := context.Background()
	deploy(t, c, types.ChangeSetTypeCreate, triggerTpl(""))
	if st := a.CFN.Status("s"); st != "ROLLBACK_COMPLETE" {
		t.Fatalf("a Kinesis mapping without StartingPosition: status %s, want ROLLBACK_COMPLETE", st)
	}
	ev, err := c.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String("s")})
	if err != nil {
		t.Fatal(err)
	}
	var reason string
	for _, e := range ev.StackEvents {
		if e.ResourceStatus == types.ResourceStatusCreateFailed {
			reason = aws.ToString(e.LogicalResourceId) + ": " + aws.ToString(e.ResourceStatusReason)
		}
	}
	if !strings.Contains(reason, "Source: 1 validation error detected: Value null at 'startingPosition'") {
		t.Errorf("failure reason %q", reason)
	}
	if _, err := c.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String("s")}); err != nil {
		t.Fatal(err)
	}
	for a.CFN.Status("s") != "" {
		if _, err := c.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String("s")}); err != nil {
			break
		}
	}

	deploy(t, c, types.ChangeSetTypeCreate, triggerTpl(`"StartingPosition":"LATEST",`))
	if st := a.CFN.Status("s"); st != "CREATE_COMPLETE" {
		t.Fatalf("status %s", st)
	}
	_, got := describeStack(t, c)
	for k, re := range map[string]string{
		"RuleArn": `^arn:aws:events:us-east-1:123456789012:rule/s-Rule-[0-9A-F]{12}$`,
		"Mapping": `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`,
		"Sub":     `^arn:aws:sns:us-east-1:123456789012:alerts:[0-9a-f-]{36}$`,
	} {
		if !regexp.MustCompile(re).MatchString(got[k]) {
			t.Errorf("output %s = %q, want %s", k, got[k], re)
		}
	}
	// A new stream replaces the mapping.
	d := deploy(t, c, types.ChangeSetTypeUpdate, strings.Replace(triggerTpl(`"StartingPosition":"LATEST",`), "stream/clicks", "stream/views", 1))
	if len(d.Changes) != 1 || d.Changes[0].ResourceChange.Replacement != types.ReplacementTrue {
		t.Errorf("changes = %+v", d.Changes)
	}
}
