package localres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/manifest"
)

// queueAttr returns attribute name of the queue at url.
func queueAttr(t *testing.T, c *Client, url, name string) string {
	t.Helper()
	var out struct{ Attributes map[string]string }
	if err := c.Call(context.Background(), "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": url, "AttributeNames": []string{"All"}}, &out); err != nil {
		t.Fatal(err)
	}
	return out.Attributes[name]
}

// A queue declared without a visibility timeout gets at the emulator what
// the stack gives it (declspec.QueueOf): 6 × the 60 s timeout of the
// handler it feeds, not SQS's 30 s; one feeding nothing gets 30 s. The
// stage's lambda_timeout counts.
func TestEmulatorQueueDefaults(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}, {Name: "spare", Kind: manifest.ResourceQueue}},
		Functions: []manifest.Function{{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs"}}}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := queueAttr(t, r.Client, r.Attrs["jobs"][manifest.AttrURL], "VisibilityTimeout"); got != "360" {
		t.Errorf("fed queue's visibility timeout %s, want 360 (6 × 60 s)", got)
	}
	if got := queueAttr(t, r.Client, r.Attrs["spare"][manifest.AttrURL], "VisibilityTimeout"); got != "30" {
		t.Errorf("queue feeding nothing: visibility timeout %s, want 30", got)
	}
	r, err = Resolve(ctx, m, Options{App: "shop", Stage: "prod", Endpoint: moto.URL, Config: declspec.Stage{TimeoutSeconds: 20}})
	if err != nil {
		t.Fatal(err)
	}
	if got := queueAttr(t, r.Client, r.Attrs["jobs"][manifest.AttrURL], "VisibilityTimeout"); got != "120" {
		t.Errorf("with lambda_timeout 20: visibility timeout %s, want 120", got)
	}
}

// A declaration that changes while its resource is at the emulator: a
// queue's visibility timeout and dead-letter queue are set in place, with
// a line saying so; a table's keys cannot change, so the table stays with
// its items and a line says what differs and how to recreate it; its
// time-to-live attribute changes in place. Nothing changed, nothing said.
func TestEmulatorUpdatesChangedDeclarations(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{
			{Name: "jobs", Kind: manifest.ResourceQueue, VisibilityTimeoutSeconds: 100},
			{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, TTLAttribute: "expires"},
		},
		Functions: []manifest.Function{{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs"}}}
	o := Options{App: "shop", Stage: "dev", Endpoint: moto.URL}
	r, err := Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	url := r.Attrs["jobs"][manifest.AttrURL]
	if err := r.Client.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": "shop-dev-todos", "Item": map[string]any{"id": map[string]string{"S": "a"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if r.Changes != nil {
		t.Errorf("changes at creation: %v", r.Changes)
	}

	// The visibility timeout removed (the default, 360 s, applies), a
	// dead-letter queue added, the table's key renamed, its TTL changed.
	m.Resources[0].VisibilityTimeoutSeconds, m.Resources[0].MaxReceiveCount = 0, 4
	m.Resources[1].PartitionKey, m.Resources[1].TTLAttribute = &manifest.KeyAttr{Name: "pk", Type: "S"}, "ttl"
	r, err = Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := queueAttr(t, r.Client, url, "VisibilityTimeout"); got != "360" {
		t.Errorf("visibility timeout after the change %s, want 360", got)
	}
	if got := queueAttr(t, r.Client, url, "RedrivePolicy"); !strings.Contains(got, "shop-dev-jobs-dlq") || !strings.Contains(got, "4") {
		t.Errorf("redrive policy after the change %q, want the dead-letter queue after 4 receives", got)
	}
	lines := fmt.Sprint(r.Changes)
	for _, want := range []string{
		"Updated queue shop-dev-jobs at the emulator to its declaration: VisibilityTimeout 100 -> 360, dead-letter queue after 4 receives.",
		"Table shop-dev-todos at the emulator differs from its declaration and DynamoDB cannot change that in place: its keys are id (S) at the emulator and pk (S) declared. It stays as it is, with its items; to recreate it (its items are lost), delete it (aws dynamodb delete-table --table-name shop-dev-todos --endpoint-url " + moto.URL + ") and save a file.",
		"Updated table shop-dev-todos at the emulator to its declaration: time-to-live attribute expires -> ttl.",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("changes %s\nwant the line %q", lines, want)
		}
	}
	var scan struct{ Count int }
	if err := r.Client.Call(ctx, "dynamodb", "Scan", map[string]any{"TableName": "shop-dev-todos"}, &scan); err != nil || scan.Count != 1 {
		t.Errorf("the table's items after the key change: %d, %v; want its item kept", scan.Count, err)
	}

	// The same declarations again: nothing to update; the table's keys
	// still differ, which is said again.
	r, err = Resolve(ctx, m, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].Applied || r.Changes[0].Resource != "shop-dev-todos" {
		t.Errorf("changes with nothing new: %v, want the table's keys only", r.Changes)
	}

	// FIFO cannot change in place: a new queue, and a line about the old
	// one, which keeps its messages.
	m.Resources[0].FIFO = true
	if r, err = Resolve(ctx, m, o); err != nil {
		t.Fatal(err)
	}
	if lines := fmt.Sprint(r.Changes); !strings.Contains(lines, "Queue shop-dev-jobs was declared as a standard queue before: SQS cannot change that in place, so framework local created shop-dev-jobs.fifo. The old queue stays, with its messages; delete it when you no longer need them (aws sqs delete-queue --queue-url "+url) {
		t.Errorf("changes after FIFO: %s", lines)
	}
}
