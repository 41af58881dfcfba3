package frameworktest_test

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/frameworktest"
)

// The sample events of handlers fed by declared resources come from those
// resources: from the ARN the environment gives, or one made from the
// resource's name.
func TestEventsOfDeclaredSources(t *testing.T) {
	app := framework.New("todo")
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
	files := resource.NewBucket(app, "Files", resource.BucketSpec{})
	todos := resource.NewTable(app, "todos", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, Stream: resource.KeysOnly})
	got := map[string]string{}
	app.OnSQSMessage("worker", jobs.Ref(), func(_ context.Context, ev events.SQSEvent) error {
		got["sqs"] = ev.Records[0].EventSourceARN
		return nil
	})
	app.OnS3Event("uploaded", files.Ref(), func(_ context.Context, ev events.S3Event) error {
		got["s3"] = ev.Records[0].S3.Bucket.Arn
		return nil
	})
	app.OnDynamoDBRecord("audit", todos.Stream(), func(_ context.Context, ev events.DynamoDBEvent) error {
		got["dynamodb"] = ev.Records[0].EventSourceArn
		return nil
	})
	t.Setenv("FRAMEWORK_RES_JOBS_ARN", "")
	t.Setenv("FRAMEWORK_RES_TODOS_STREAM_ARN", "arn:aws:dynamodb:eu-west-1:111122223333:table/todo-dev-todos/stream/2026-02-03T04:05:06.007")
	c := frameworktest.New(app)
	if _, err := c.SQS("worker", "hello"); err != nil {
		t.Fatal(err)
	}
	if err := c.S3("uploaded", "ObjectCreated:Put", "a.txt", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DynamoDB("audit", events.DynamoDBEventRecord{EventName: "INSERT"}); err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[string]string{
		"sqs":      "arn:aws:sqs:us-east-1:123456789012:jobs",
		"s3":       "arn:aws:s3:::files",
		"dynamodb": "arn:aws:dynamodb:eu-west-1:111122223333:table/todo-dev-todos/stream/2026-02-03T04:05:06.007",
	} {
		if got[kind] != want {
			t.Errorf("%s event's source %q, want %q", kind, got[kind], want)
		}
	}
}
