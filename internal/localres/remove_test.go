package localres

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
)

// Remove deletes at the emulator every resource Resolve created there (a
// bucket holding an object, a queue and its dead-letter queue included);
// a second Remove finds nothing to do; a deployed stage's are refused.
func TestRemoveDeletesWhatResolveCreated(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := declared()
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "test-1", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Client
	if _, err := c.s3Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("shop-test-1-uploads"), Key: aws.String("a.txt"), Body: strings.NewReader("a")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, m); err != nil {
		t.Fatalf("remove: %v", err)
	}
	gone := func(what string, err error, codes ...string) {
		t.Helper()
		for _, code := range codes {
			if awscall.IsCode(err, code) {
				return
			}
		}
		t.Errorf("%s after Remove: %v, want it gone (%s)", what, err, strings.Join(codes, " or "))
	}
	gone("table", c.Call(ctx, "dynamodb", "DescribeTable", map[string]any{"TableName": "shop-test-1-todos"}, nil), "ResourceNotFoundException")
	for _, q := range []string{"shop-test-1-jobs", "shop-test-1-jobs-dlq"} {
		gone("queue "+q, c.Call(ctx, "sqs", "GetQueueUrl", map[string]any{"QueueName": q}, nil), "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue")
	}
	gone("secret", c.Call(ctx, "secretsmanager", "DescribeSecret", map[string]any{"SecretId": "shop-test-1-apikey"}, nil), "ResourceNotFoundException")
	gone("parameter", c.Call(ctx, "ssm", "GetParameter", map[string]any{"Name": "shop-test-1-flags"}, nil), "ParameterNotFound")
	if _, err := c.s3Client().HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("shop-test-1-uploads")}); err == nil {
		t.Error("bucket shop-test-1-uploads is still there after Remove")
	}
	var topics struct {
		ARNs []string `xml:"ListTopicsResult>Topics>member>TopicArn"`
	}
	if err := c.sns(ctx, url.Values{"Action": {"ListTopics"}}, &topics); err != nil {
		t.Fatal(err)
	}
	for _, arn := range topics.ARNs {
		if strings.HasSuffix(arn, ":shop-test-1-events") {
			t.Errorf("topic %s is still there after Remove", arn)
		}
	}

	if err := r.Remove(ctx, m); err != nil {
		t.Errorf("a second Remove: %v, want nil (nothing left)", err)
	}
	deployed := &Resources{Client: &Client{}, Attrs: map[string]map[string]string{"todos": {manifest.AttrName: "shop-prod-todos"}}}
	if err := deployed.Remove(ctx, m); err == nil || !strings.Contains(err.Error(), "never a deployed stage's") {
		t.Errorf("Remove of a deployed stage's resources: %v, want a refusal", err)
	}
}
