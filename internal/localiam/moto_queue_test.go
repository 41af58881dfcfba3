package localiam

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// The stricter reading of queue URLs and query parameters refuses none of
// the calls the SDK makes: through a real Proxy before moto, a function
// sends to its queue and publishes to its topic, and is AccessDenied on
// the dead-letter queue and another topic, which stay empty.
func TestMotoQueuesAndTopicsAsTheSDKCalls(t *testing.T) {
	m := mototest.Start(t)
	ctx := context.Background()
	dsqs, dsns := sqs.NewFromConfig(m.Config()), sns.NewFromConfig(m.Config())
	urls := map[string]string{}
	for _, q := range []string{"jobs", "jobs-dlq"} {
		out, err := dsqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(q)})
		if err != nil {
			t.Fatal(err)
		}
		urls[q] = *out.QueueUrl
	}
	arns := map[string]string{}
	for _, n := range []string{"events", "other"} {
		out, err := dsns.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(n)})
		if err != nil {
			t.Fatal(err)
		}
		arns[n] = *out.TopicArn
	}
	const q = "arn:aws:sqs:us-east-1:123456789012:"
	pol := StaticPolicies{"fn": {
		{Actions: []string{"sqs:SendMessage", "sqs:GetQueueUrl"}, Resources: []string{q + "jobs"}},
		{Actions: []string{"sns:Publish"}, Resources: []string{arns["events"]}},
	}}
	p, err := Start(Options{Target: Target{Upstream: m.URL, Region: mototest.Region, Policies: pol, Env: Env{Account: mototest.AccountID},
		Credentials: func(context.Context) (awscall.Credentials, error) {
			return awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cfg := sdkConfig(p, "fn")
	fsqs, fsns := sqs.NewFromConfig(cfg), sns.NewFromConfig(cfg)

	got, err := fsqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
	if err != nil {
		t.Fatalf("GetQueueUrl of jobs: %v", err)
	}
	if _, err := fsqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: got.QueueUrl, MessageBody: aws.String("x")}); err != nil {
		t.Errorf("SendMessage to jobs at %s: %v", *got.QueueUrl, err)
	}
	_, err = fsqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(urls["jobs-dlq"]), MessageBody: aws.String("x")})
	if errorCode(err) != "AccessDenied" {
		t.Errorf("SendMessage to jobs-dlq: %v, want AccessDenied", err)
	}
	attrs, err := dsqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(urls["jobs-dlq"]), AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages"}})
	if err != nil || attrs.Attributes["ApproximateNumberOfMessages"] != "0" {
		t.Errorf("jobs-dlq holds %v messages (%v), want 0", attrs.Attributes, err)
	}

	if _, err := fsns.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(arns["events"]), Message: aws.String("x")}); err != nil {
		t.Errorf("Publish to events: %v", err)
	}
	_, err = fsns.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(arns["other"]), Message: aws.String("x")})
	if errorCode(err) != "AuthorizationError" || !strings.Contains(err.Error(), arns["other"]) {
		t.Errorf("Publish to other: %v, want AuthorizationError naming the topic", err)
	}
}
