package localiam

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
)

// A call on a queue's dead-letter queue is allowed with Redrive only, and
// its refusal names the Redrive to declare (Consume, which the handler
// the queue feeds has, grants nothing there).
func TestDeadLetterQueueNeedsRedrive(t *testing.T) {
	m := &manifest.Manifest{App: "a",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, MaxReceiveCount: 3}},
		Functions: []manifest.Function{
			{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs"},
			{Name: "replay", Kind: manifest.KindFunction, Grants: []manifest.Grant{{Resource: "jobs", Access: manifest.AccessRedrive}}},
		}}
	const q, dlq = "arn:aws:sqs:us-east-1:123456789012:a-dev-jobs", "arn:aws:sqs:us-east-1:123456789012:a-dev-jobs-dlq"
	pols, err := perms.Compute(perms.Input{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	d := FromPerms(pols, m, map[string]map[string]string{"jobs": {manifest.AttrName: "a-dev-jobs", manifest.AttrARN: q, manifest.AttrDLQARN: dlq}})
	for _, tc := range []struct {
		fn, action, resource string
		want                 bool
	}{
		{"replay", "sqs:ReceiveMessage", dlq, true},
		{"replay", "sqs:StartMessageMoveTask", dlq, true},
		{"replay", "sqs:SendMessage", q, true},
		{"replay", "sqs:ReceiveMessage", q, false},
		{"work", "sqs:ReceiveMessage", dlq, false},
	} {
		if allowed, _ := d.Allows(tc.fn, tc.action, tc.resource); allowed != tc.want {
			t.Errorf("%s: %s on %s allowed %v, want %v", tc.fn, tc.action, tc.resource, allowed, tc.want)
		}
	}
	if got, want := d.Hint("work", Check{"sqs:ReceiveMessage", dlq}), `declare jobs.Allow(resource.Redrive, "work") on the dead-letter queue of queue "jobs"`; !strings.Contains(got, want) {
		t.Errorf("Hint = %q, want it to hold %q", got, want)
	}
}
