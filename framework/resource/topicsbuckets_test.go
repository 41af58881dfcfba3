package resource_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/internal/apphook"
)

func noSNS(context.Context, events.SNSEvent) error { return nil }

// A FIFO topic, a filtered subscription and a bucket's rules reach the
// manifest the stack and framework local read.
func TestTopicAndBucketSpecsReachTheManifest(t *testing.T) {
	app := framework.New("shop")
	resource.NewTopic(app, "orders", resource.TopicSpec{FIFO: true, ContentBasedDeduplication: true})
	events := resource.NewTopic(app, "events")
	resource.NewBucket(app, "files", resource.BucketSpec{Versioning: true,
		CORS:      []resource.CORSRule{{AllowedOrigins: []string{"https://shop.example.com"}, AllowedMethods: []string{"PUT"}, AllowedHeaders: []string{"*"}, MaxAge: time.Hour}},
		Lifecycle: []resource.LifecycleRule{{Prefix: "tmp/", ExpireAfterDays: 1, AbortIncompleteUploadsAfterDays: 2}}})
	app.OnSNSMessage("big", events.Ref(), noSNS, framework.SNSFilter(map[string]any{"kind": []any{"order"}}))
	app.OnSNSMessage("paid", events.Ref(), noSNS, framework.SNSBodyFilter(map[string]any{"order": map[string]any{"status": []any{"paid"}}}))
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m.Resources)
	for _, want := range []string{
		`{"name":"files","kind":"bucket","cors":[{"allowed_origins":["https://shop.example.com"],"allowed_methods":["PUT"],"allowed_headers":["*"],"max_age_seconds":3600}],"lifecycle":[{"prefix":"tmp/","expire_after_days":1,"abort_incomplete_uploads_after_days":2}],"versioned":true}`,
		`{"name":"orders","kind":"topic","fifo":true,"content_based_deduplication":true}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("resources %s\nlack %s", b, want)
		}
	}
	b, _ = json.Marshal(m.Functions)
	for _, want := range []string{
		`"filter_policy":{"kind":["order"]},"filter_policy_scope":"MessageAttributes"`,
		`"filter_policy":{"order":{"status":["paid"]}},"filter_policy_scope":"MessageBody"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("functions %s\nlack %s", b, want)
		}
	}
}

// What cannot work is refused when the app starts (and so by framework
// local and synth alike): an SNS handler on a FIFO topic, a filter on
// another kind of handler, two filters, a CORS max age in fractions of a
// second.
func TestTopicAndBucketMisuseRefused(t *testing.T) {
	app := framework.New("shop")
	orders := resource.NewTopic(app, "orders", resource.TopicSpec{FIFO: true})
	events := resource.NewTopic(app, "events")
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
	resource.NewBucket(app, "files", resource.BucketSpec{CORS: []resource.CORSRule{{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}, MaxAge: 1500 * time.Millisecond}}})
	app.OnSNSMessage("onorder", orders.Ref(), noSNS)
	app.OnSNSMessage("twice", events.Ref(), noSNS, framework.SNSFilter(map[string]any{"a": []any{"1"}}), framework.SNSBodyFilter(map[string]any{"b": []any{"2"}}))
	app.OnSQSMessage("worker", jobs.Ref(), noSQS, framework.SNSFilter(map[string]any{"a": []any{"1"}}))
	err := app.Validate()
	if err == nil {
		t.Fatal("Validate accepted them")
	}
	for _, want := range []string{
		`sns handler "onorder": its topic is FIFO, and SNS delivers a FIFO topic's messages to SQS queues only, never to a Lambda function`,
		`sns handler "twice": two filter policies: give one`,
		`option SNSFilter does not apply to an sqs handler`,
		`CORS rule 1: max age 1.5s is not whole seconds: round it`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the errors do not say %q:\n%v", want, err)
		}
	}
}
