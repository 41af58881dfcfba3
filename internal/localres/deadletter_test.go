package localres

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/manifest"
)

// TestEmulatorUpdatesDeadLetterQueue: a dead-letter queue already at the
// emulator with other attributes than the stack's (one made before its
// 14-day retention, or by hand) gets them, with a line saying so, and
// keeps its messages; one that has them is left alone.
func TestEmulatorUpdatesDeadLetterQueue(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, MaxReceiveCount: 3}},
		Functions: []manifest.Function{{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs"}}}
	o := Options{App: "shop", Stage: "dev", Endpoint: moto.URL}
	c, err := Resolve(ctx, &manifest.Manifest{App: "shop"}, o)
	if err != nil {
		t.Fatal(err)
	}
	var made struct{ QueueUrl string }
	if err := c.Client.Call(ctx, "sqs", "CreateQueue", map[string]any{"QueueName": "shop-dev-jobs-dlq",
		"Attributes": map[string]string{"VisibilityTimeout": "45"}}, &made); err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Call(ctx, "sqs", "SendMessage", map[string]any{"QueueUrl": made.QueueUrl, "MessageBody": "failed before"}, nil); err != nil {
		t.Fatal(err)
	}

	r, err := Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	dlq := r.Attrs["jobs"][manifest.AttrDLQURL]
	if dlq != made.QueueUrl {
		t.Fatalf("dead-letter queue %s, want the one there, %s", dlq, made.QueueUrl)
	}
	if got, want := queueAttr(t, r.Client, dlq, "MessageRetentionPeriod"), strconv.Itoa(declspec.DeadLetterRetentionSeconds); got != want {
		t.Errorf("dead-letter queue's retention %s, want %s (14 days, as deployed)", got, want)
	}
	if got := queueAttr(t, r.Client, dlq, "VisibilityTimeout"); got != "30" {
		t.Errorf("dead-letter queue's visibility timeout %s, want 30 (as deployed)", got)
	}
	want := Change{Resource: "shop-dev-jobs-dlq", Applied: true,
		Line: "Updated queue shop-dev-jobs-dlq at the emulator to its declaration: VisibilityTimeout 45 -> 30, MessageRetentionPeriod 345600 -> 1209600."}
	if !slices.Contains(r.Changes, want) {
		t.Errorf("changes %v\nwant %v", r.Changes, want)
	}
	if got := queueAttr(t, r.Client, dlq, "ApproximateNumberOfMessages"); got != "1" {
		t.Errorf("dead-letter queue's messages after the update: %s, want the 1 it had", got)
	}

	if r, err = Resolve(ctx, m, o); err != nil {
		t.Fatal(err)
	}
	if r.Changes != nil {
		t.Errorf("changes with nothing new: %v", r.Changes)
	}
}
