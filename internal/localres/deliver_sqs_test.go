package localres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/runtimeapi"
)

// queueCounts are the visible and in-flight messages of the queue at url.
func queueCounts(t *testing.T, sdk *sqs.Client, url string) (visible, inFlight string) {
	t.Helper()
	out, err := sdk.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []sqstypes.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"]
}

// sizeLimited is a handler that refuses an event over limit bytes, as the
// local Runtime API does, and otherwise records the bodies it got.
func sizeLimited(limit int, bodies chan<- []string) func(fn string, event []byte) (*Outcome, error) {
	return func(fn string, event []byte) (*Outcome, error) {
		if len(event) > limit {
			return nil, fmt.Errorf("%w: %d bytes", runtimeapi.ErrEventTooLarge, len(event))
		}
		var ev events.SQSEvent
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, err
		}
		var got []string
		for _, r := range ev.Records {
			got = append(got, r.Body)
		}
		bodies <- got
		return &Outcome{Payload: []byte("null")}, nil
	}
}

// Ten messages of 900 KB received together make an event over Lambda's
// 6 MB payload limit: the batch stops at the limit, the rest is delivered
// next, none fails nor burns a receive (maxReceiveCount 1 would send a
// message received twice to the dead-letter queue).
func TestQueueBatchSplitAtThePayloadLimit(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, MaxReceiveCount: 1, VisibilityTimeoutSeconds: 60}},
		Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs"}},
	}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	url := r.Attrs["jobs"][manifest.AttrURL]
	sdk := sqs.NewFromConfig(moto.Config())
	var want []string
	for i := range 10 {
		body := fmt.Sprintf("%02d", i) + strings.Repeat("x", 900_000)
		want = append(want, body[:2])
		if _, err := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
			t.Fatal(err)
		}
	}
	bodies := make(chan []string, 10)
	fd := feed(t, m, r, sizeLimited(runtimeapi.MaxEventBytes, bodies))
	var got []string
	for len(got) < 10 {
		del := fd.next(t, "work")
		if del.Error != "" || len(del.Failed) > 0 {
			t.Fatalf("delivery %+v: want the batch cut at the payload limit, not failed", del)
		}
		if del.Messages+del.Deferred > 10 || del.Messages == 0 {
			t.Errorf("delivery of %d messages, %d deferred", del.Messages, del.Deferred)
		}
		for _, b := range <-bodies {
			got = append(got, b[:2])
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the handler got %v, want each of the ten once", got)
	}
	fd.stop()
	if v, nv := queueCounts(t, sdk, url); v != "0" || nv != "0" {
		t.Errorf("the queue holds %s visible and %s in flight messages, want none", v, nv)
	}
	if v, nv := queueCounts(t, sdk, strings.TrimSuffix(url, "jobs")+"jobs-dlq"); v != "0" || nv != "0" {
		t.Errorf("the dead-letter queue holds %s visible and %s in flight messages, want none", v, nv)
	}
}

// A message that alone makes an event over the payload limit fails without
// an invocation and stays on the queue; the messages after it are
// delivered.
func TestQueueMessageOverThePayloadLimitFails(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, VisibilityTimeoutSeconds: 60}},
		Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs"}},
	}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	url := r.Attrs["jobs"][manifest.AttrURL]
	sdk := sqs.NewFromConfig(moto.Config())
	big, err := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strings.Repeat("b", 5000))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sdk.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("small")}); err != nil {
		t.Fatal(err)
	}
	const limit = 4000
	bodies := make(chan []string, 10)
	fd := feed(t, m, r, sizeLimited(limit, bodies), func(d *Deliverer) { d.maxEventBytes = limit })
	var small bool
	for !small {
		del := fd.next(t, "work")
		switch {
		case del.Error != "":
			if del.Messages != 1 || !slices.Equal(del.Failed, []string{aws.ToString(big.MessageId)}) || !strings.Contains(del.Error, "alone makes an event of") || !strings.Contains(del.Error, "payload limit") {
				t.Errorf("delivery %+v: want the big message alone failed, for its size", del)
			}
		default:
			got := <-bodies
			if !slices.Equal(got, []string{"small"}) {
				t.Errorf("the handler got %v, want the small message only", got)
			}
			small = true
		}
	}
	fd.stop()
	if v, nv := queueCounts(t, sdk, url); v != "0" || nv != "1" {
		t.Errorf("the queue holds %s visible and %s in flight messages, want the big one in flight", v, nv)
	}
}

// A partial batch response that names an item not in the batch, or an
// empty one, fails the whole batch, as with Lambda: no message is deleted.
func TestQueuePartialBatchResponseWithUnknownItemFailsTheBatch(t *testing.T) {
	for _, id := range []string{"not-a-message-id", ""} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			moto := startMoto(t)
			ctx := context.Background()
			m := &manifest.Manifest{App: "shop",
				Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, VisibilityTimeoutSeconds: 60}},
				Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs", ReportBatchItemFailures: true}},
			}
			r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
			if err != nil {
				t.Fatal(err)
			}
			url := r.Attrs["jobs"][manifest.AttrURL]
			sdk := sqs.NewFromConfig(moto.Config())
			if _, err := sdk.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []sqstypes.SendMessageBatchRequestEntry{
				{Id: aws.String("a"), MessageBody: aws.String("one")}, {Id: aws.String("b"), MessageBody: aws.String("two")},
			}}); err != nil {
				t.Fatal(err)
			}
			answer, _ := json.Marshal(events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: id}}})
			fd := feed(t, m, r, func(string, []byte) (*Outcome, error) { return &Outcome{Payload: answer}, nil })
			n := 0
			for n < 2 {
				del := fd.next(t, "work")
				n += del.Messages
				if !strings.Contains(del.Error, fmt.Sprintf("reported item %q as failed, which is not the ID of a message of the batch", id)) || len(del.Failed) != del.Messages {
					t.Errorf("delivery %+v: want the whole batch failed, naming the item", del)
				}
			}
			fd.stop()
			if v, nv := queueCounts(t, sdk, url); v != "0" || nv != "2" {
				t.Errorf("the queue holds %s visible and %s in flight messages, want both kept (in flight)", v, nv)
			}
		})
	}
}
