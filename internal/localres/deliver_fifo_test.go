package localres

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/manifest"
)

// fifoLog is what a FIFO queue's handler saw: the messages it processed
// (delivered and not counted as failed), by group, in order.
type fifoLog struct {
	mu        sync.Mutex
	processed map[string][]string // group -> bodies
	receipt   map[string]string   // body -> its latest receipt handle
	changed   chan struct{}
}

func (l *fifoLog) done(group string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.processed[group])
}

// waitFor waits until cond holds on the log (checked at each delivery),
// failing after a generous deadline.
func (l *fifoLog) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for !cond() {
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("still waiting for %s; processed: %v", what, l.processed)
		}
	}
}

// TestFIFOGroupOrderAndBlocking: against moto, a FIFO queue's handler
// gets each group's messages in order, and a failed message holds back
// the rest of its group (here a2, although the handler reported only a1
// as failed) while the other group goes on; once a1 comes back (its
// visibility timeout ended) and succeeds, a2 follows it.
func TestFIFOGroupOrderAndBlocking(t *testing.T) {
	moto := startMoto(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceQueue, FIFO: true, ContentBasedDeduplication: true, VisibilityTimeoutSeconds: 600}},
		Functions: []manifest.Function{{Name: "fulfil", Kind: manifest.KindSQS, SourceResource: "orders", ReportBatchItemFailures: true, BatchSize: 10}},
	}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	url := r.Attrs["orders"][manifest.AttrURL]
	sdk := sqs.NewFromConfig(moto.Config())

	log := &fifoLog{processed: map[string][]string{}, receipt: map[string]string{}, changed: make(chan struct{}, 100)}
	failing := true // a1 fails while set
	d := &Deliverer{Manifest: m, Resources: r, App: "shop", Stage: "dev",
		Invoke: func(_ context.Context, fn *manifest.Function, event []byte) (*Outcome, error) {
			var ev events.SQSEvent
			if err := json.Unmarshal(event, &ev); err != nil {
				return nil, err
			}
			// A handler unaware of FIFO: it reports only the message
			// that failed.
			var resp events.SQSEventResponse
			log.mu.Lock()
			for _, rec := range ev.Records {
				log.receipt[rec.Body] = rec.ReceiptHandle
				if rec.Body == "a1" && failing {
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
				}
			}
			log.mu.Unlock()
			b, _ := json.Marshal(resp)
			return &Outcome{Payload: b}, nil
		},
	}
	// What was processed: the batch's messages the deliverer did not
	// count as failed, in the batch's order.
	invoke := d.Invoke
	var batch []events.SQSMessage
	d.Invoke = func(ctx context.Context, fn *manifest.Function, event []byte) (*Outcome, error) {
		var ev events.SQSEvent
		_ = json.Unmarshal(event, &ev)
		log.mu.Lock()
		batch = ev.Records
		log.mu.Unlock()
		return invoke(ctx, fn, event)
	}
	d.Report = func(del Delivery) {
		log.mu.Lock()
		for _, rec := range batch {
			if !slices.Contains(del.Failed, rec.MessageId) {
				g := rec.Attributes["MessageGroupId"]
				log.processed[g] = append(log.processed[g], rec.Body)
			}
		}
		batch = nil
		log.mu.Unlock()
		log.changed <- struct{}{}
	}
	runDone := make(chan struct{})
	go func() { defer close(runDone); d.Run(ctx) }()

	send := func(entries ...[2]string) {
		t.Helper()
		var in []sqstypes.SendMessageBatchRequestEntry
		for i, e := range entries {
			in = append(in, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(string(rune('a' + i))), MessageBody: aws.String(e[1]), MessageGroupId: aws.String(e[0])})
		}
		out, err := sdk.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: in})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send: %v %v", err, out)
		}
	}
	send([2]string{"A", "a1"}, [2]string{"A", "a2"}, [2]string{"B", "b1"}, [2]string{"B", "b2"})
	log.waitFor(t, "b1 and b2", func() bool { return len(log.done("B")) == 2 })
	// Group B goes on while a1 fails: b3, sent now, is processed.
	send([2]string{"B", "b3"})
	log.waitFor(t, "b3", func() bool { return len(log.done("B")) == 3 })
	if got := log.done("B"); !slices.Equal(got, []string{"b1", "b2", "b3"}) {
		t.Errorf("group B processed %v, want b1 b2 b3 in order", got)
	}
	if got := log.done("A"); len(got) != 0 {
		t.Errorf("group A processed %v while a1 fails, want nothing (a2 waits behind a1)", got)
	}

	// a1 succeeds when it comes back: end its visibility timeout now.
	log.mu.Lock()
	failing = false
	rh := log.receipt["a1"]
	log.mu.Unlock()
	if _, err := sdk.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(rh), VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "a1 and a2", func() bool { return len(log.done("A")) == 2 })
	if got := log.done("A"); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("group A processed %v, want a1 then a2", got)
	}
	cancel()
	<-runDone
}

// TestEmulatorQueueOptions: the emulator's queue has the declared FIFO,
// deduplication, retention and delay attributes; its dead-letter queue is
// FIFO too, and its name, URL and ARN reach the app.
func TestEmulatorQueueOptions(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceQueue, FIFO: true,
		ContentBasedDeduplication: true, MessageRetentionSeconds: 7200, DeliveryDelaySeconds: 45, MaxReceiveCount: 4}}}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(url string) map[string]string {
		var q struct{ Attributes map[string]string }
		if err := r.Client.Call(ctx, "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": url, "AttributeNames": []string{"All"}}, &q); err != nil {
			t.Fatal(err)
		}
		return q.Attributes
	}
	q := attrs(r.Attrs["orders"][manifest.AttrURL])
	for k, v := range map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "MessageRetentionPeriod": "7200", "DelaySeconds": "45"} {
		if q[k] != v {
			t.Errorf("queue %s = %q, want %q", k, q[k], v)
		}
	}
	env := envMap(r.Env)
	dlqURL := env["FRAMEWORK_RES_ORDERS_DLQ_URL"]
	if env["FRAMEWORK_RES_ORDERS_DLQ_NAME"] != "shop-dev-orders-dlq.fifo" || !strings.HasSuffix(dlqURL, "/shop-dev-orders-dlq.fifo") ||
		!strings.HasSuffix(env["FRAMEWORK_RES_ORDERS_DLQ_ARN"], ":shop-dev-orders-dlq.fifo") {
		t.Errorf("dead-letter queue variables: %q %q %q", env["FRAMEWORK_RES_ORDERS_DLQ_NAME"], dlqURL, env["FRAMEWORK_RES_ORDERS_DLQ_ARN"])
	}
	if !strings.Contains(q["RedrivePolicy"], env["FRAMEWORK_RES_ORDERS_DLQ_ARN"]) {
		t.Errorf("redrive policy %s, want the dead-letter queue's ARN", q["RedrivePolicy"])
	}
	if dq := attrs(dlqURL); dq["FifoQueue"] != "true" || dq["MessageRetentionPeriod"] != "1209600" {
		t.Errorf("dead-letter queue FIFO %q retention %q, want true and 14 days as deployed", dq["FifoQueue"], dq["MessageRetentionPeriod"])
	}
}
