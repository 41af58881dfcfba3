package framework_test

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
)

// TestPartialBatchHoldsFIFOGroups: a partial batch handler of a FIFO
// queue that reports one message of a group as failed gets the later
// messages of that group reported too (Lambda would delete them, and the
// group would go on out of order); the other group's and a standard
// queue's messages are left as the handler reported them.
func TestPartialBatchHoldsFIFOGroups(t *testing.T) {
	app := framework.New("ev")
	app.OnSQSPartialBatch("orders", "q.fifo", func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var r events.SQSEventResponse
		for _, m := range ev.Records {
			if m.Body == "bad" {
				r.BatchItemFailures = append(r.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return r, nil
	})
	fifo := `{"Records":[` +
		`{"messageId":"a1","body":"ok","attributes":{"MessageGroupId":"A"}},` +
		`{"messageId":"b1","body":"ok","attributes":{"MessageGroupId":"B"}},` +
		`{"messageId":"a2","body":"bad","attributes":{"MessageGroupId":"A"}},` +
		`{"messageId":"b2","body":"ok","attributes":{"MessageGroupId":"B"}},` +
		`{"messageId":"a3","body":"ok","attributes":{"MessageGroupId":"A"}},` +
		`{"messageId":"a4","body":"ok","attributes":{"MessageGroupId":"A"}}]}`
	out, err := apphook.Of(app).Invoke(context.Background(), "orders", []byte(fifo))
	if want := `{"batchItemFailures":[{"itemIdentifier":"a2"},{"itemIdentifier":"a3"},{"itemIdentifier":"a4"}]}`; err != nil || string(out) != want {
		t.Errorf("FIFO batch = %s, %v; want %s", out, err, want)
	}
	standard := `{"Records":[{"messageId":"m1","body":"bad"},{"messageId":"m2","body":"ok"}]}`
	out, err = apphook.Of(app).Invoke(context.Background(), "orders", []byte(standard))
	if want := `{"batchItemFailures":[{"itemIdentifier":"m1"}]}`; err != nil || string(out) != want {
		t.Errorf("standard batch = %s, %v; want %s", out, err, want)
	}
}
