package perms

import (
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// Redrive on a queue grants reading and moving the messages of its
// dead-letter queue, on that queue's ARN, and sending to the queue; the
// handler the queue feeds (Consume) gets nothing on the dead-letter queue.
// Allows resolves the dead-letter queue's ARN as the local IAM check does.
func TestRedriveOnTheDeadLetterQueueOnly(t *testing.T) {
	m := &manifest.Manifest{Version: manifest.Version, App: "shop",
		Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceQueue, FIFO: true, MaxReceiveCount: 3}},
		Functions: []manifest.Function{
			{Name: "fulfil", Kind: manifest.KindSQS, SourceResource: "orders"},
			{Name: "replay", Kind: manifest.KindFunction, Grants: []manifest.Grant{{Resource: "orders", Access: manifest.AccessRedrive}}},
		}}
	pols, err := Compute(Input{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	replay, fulfil := granted(pols.Function("replay")), granted(pols.Function("fulfil"))
	for _, want := range []string{"sqs:ReceiveMessage on ${resource:orders} (dead-letter queue)", "sqs:StartMessageMoveTask on ${resource:orders} (dead-letter queue)",
		"sqs:DeleteMessage on ${resource:orders} (dead-letter queue)", "sqs:SendMessage on ${resource:orders}"} {
		if !slices.Contains(replay, want) {
			t.Errorf("Redrive does not grant %s: %v", want, replay)
		}
	}
	if slices.Contains(replay, "sqs:ReceiveMessage on ${resource:orders}") {
		t.Errorf("Redrive grants receiving from the queue itself: %v", replay)
	}
	for _, g := range fulfil {
		if strings.Contains(g, "dead-letter") {
			t.Errorf("the queue's handler gets %s", g)
		}
	}
	attrs := map[string]string{manifest.AttrARN: "arn:aws:sqs:us-east-1:1:orders.fifo", manifest.AttrDLQARN: "arn:aws:sqs:us-east-1:1:orders-dlq.fifo"}
	attr := func(name, a string) (string, bool) { v, ok := attrs[a]; return v, ok && name == "orders" }
	if !pols.Function("replay").Allows("sqs:ReceiveMessage", attrs[manifest.AttrDLQARN], attr) ||
		pols.Function("fulfil").Allows("sqs:ReceiveMessage", attrs[manifest.AttrDLQARN], attr) ||
		pols.Function("replay").Allows("sqs:ReceiveMessage", attrs[manifest.AttrARN], attr) {
		t.Error("Allows: want replay to receive from the dead-letter queue only, fulfil not from it")
	}
	if got := (Resource{Ref: "orders", Attr: manifest.AttrDLQARN}).Label(m); got != `dead-letter queue of queue "orders"` {
		t.Errorf("Label = %q", got)
	}
}
