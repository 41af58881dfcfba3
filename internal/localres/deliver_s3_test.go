package localres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/framework-dev/framework/internal/manifest"
)

// feeding is a Deliverer of m at the emulator r, running until the test
// ends, whose handlers answer with handle (nil: success) and whose
// deliveries and invocations are kept per handler.
type feeding struct {
	mu        sync.Mutex
	delivered map[string]chan Delivery
	invoked   map[string]chan []byte
	problems  []error
	cancel    context.CancelFunc
	done      chan struct{}
}

func feed(t *testing.T, m *manifest.Manifest, r *Resources, handle func(fn string, event []byte) (*Outcome, error), opts ...func(*Deliverer)) *feeding {
	t.Helper()
	fd := &feeding{delivered: map[string]chan Delivery{}, invoked: map[string]chan []byte{}, done: make(chan struct{})}
	for _, f := range m.Functions {
		fd.delivered[f.Name], fd.invoked[f.Name] = make(chan Delivery, 100), make(chan []byte, 100)
	}
	ready := make(chan struct{})
	d := &Deliverer{Manifest: m, Resources: r, App: m.App, Stage: "dev", retryWait: time.Millisecond,
		Ready:  func() { close(ready) },
		Report: func(del Delivery) { fd.delivered[del.Function] <- del },
		Problems: func(err error) {
			fd.mu.Lock()
			fd.problems = append(fd.problems, err)
			fd.mu.Unlock()
		},
		Invoke: func(_ context.Context, fn *manifest.Function, event []byte) (*Outcome, error) {
			fd.invoked[fn.Name] <- event
			if handle == nil {
				return &Outcome{Payload: []byte("null")}, nil
			}
			return handle(fn.Name, event)
		}}
	for _, o := range opts {
		o(d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	fd.cancel = cancel
	go func() { defer close(fd.done); d.Run(ctx) }()
	t.Cleanup(fd.stop)
	select {
	case <-ready:
	case <-fd.done:
		t.Fatal("the deliverer ended before its triggers were set up")
	case <-time.After(30 * time.Second):
		t.Fatal("the triggers were not set up within 30 s")
	}
	return fd
}

// stop stops the deliverer and waits for it.
func (fd *feeding) stop() {
	fd.cancel()
	<-fd.done
}

// next returns the next delivery to handler fn.
func (fd *feeding) next(t *testing.T, fn string) Delivery {
	t.Helper()
	select {
	case del := <-fd.delivered[fn]:
		return del
	case <-time.After(20 * time.Second):
		t.Fatalf("no delivery to %s within 20 s", fn)
	}
	return Delivery{}
}

// event returns the next event handler fn was invoked with, decoded into
// v.
func (fd *feeding) event(t *testing.T, fn string, v any) {
	t.Helper()
	select {
	case b := <-fd.invoked[fn]:
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s's event %s: %v", fn, b, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s was not invoked within 20 s", fn)
	}
}

func s3Manifest(fns ...manifest.Function) *manifest.Manifest {
	return &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "uploads", Kind: manifest.ResourceBucket}}, Functions: fns}
}

// The events of a declared bucket reach its S3 handlers as S3 events,
// through the event types and key filters each declared; the bucket's
// other notifications are kept; a failed event is retried, then dropped.
func TestBucketEventsReachTheirHandlers(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	csv := manifest.Function{Name: "csv", Kind: manifest.KindS3, SourceResource: "uploads", Events: []string{"s3:ObjectCreated:*"}, Prefix: "in/", Suffix: ".csv"}
	gone := manifest.Function{Name: "gone", Kind: manifest.KindS3, SourceResource: "uploads", Events: []string{"s3:ObjectRemoved:*"}}
	external := manifest.Function{Name: "theirs", Kind: manifest.KindS3, Source: "someone-elses-bucket", Events: []string{"s3:ObjectCreated:*"}}
	m := s3Manifest(csv, gone, external)
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	bucket := r.Attrs["uploads"][manifest.AttrName]
	s := s3.NewFromConfig(moto.Config(), func(o *s3.Options) { o.UsePathStyle = true })

	// A notification the bucket already has, to a queue of its own.
	otherURL, err := r.Client.queueURL(ctx, "audit-copy", map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	otherARN, err := r.Client.QueueARN(ctx, otherURL)
	if err != nil {
		t.Fatal(err)
	}
	other := s3types.QueueConfiguration{Id: aws.String("audit-copy"), QueueArn: aws.String(otherARN), Events: []s3types.Event{"s3:ObjectCreated:*"}}
	if _, err := s.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{Bucket: aws.String(bucket),
		NotificationConfiguration: &s3types.NotificationConfiguration{QueueConfigurations: []s3types.QueueConfiguration{other}}}); err != nil {
		t.Fatal(err)
	}

	fd := feed(t, m, r, func(fn string, event []byte) (*Outcome, error) {
		if bytes.Contains(event, []byte("poison")) {
			return &Outcome{Error: "Boom: bad file"}, nil
		}
		return &Outcome{Payload: []byte("null")}, nil
	})
	if fd.mu.Lock(); len(fd.problems) > 0 {
		t.Errorf("problems %v: want none (a handler of a bucket the app does not declare is silently not fed)", fd.problems)
	}
	fd.mu.Unlock()
	put := func(key, body string) {
		t.Helper()
		if _, err := s.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	// object returns the key (as S3 encodes it) and size of the one record of the
	// next event of fn, and checks its event name and bucket.
	object := func(fn, eventName string) (string, int64) {
		t.Helper()
		var ev events.S3Event
		fd.event(t, fn, &ev)
		if len(ev.Records) != 1 {
			t.Fatalf("%s's event has %d records, want 1", fn, len(ev.Records))
		}
		rec := ev.Records[0]
		if rec.EventName != eventName || rec.EventSource != "aws:s3" || rec.S3.Bucket.Name != bucket || rec.S3.Bucket.Arn != "arn:aws:s3:::"+bucket || rec.EventTime.IsZero() {
			t.Errorf("%s's record %+v: want %s of bucket %s, with its time", fn, rec, eventName, bucket)
		}
		return rec.S3.Object.Key, rec.S3.Object.Size
	}

	// Keys outside the prefix or suffix are not delivered: the first
	// event is the one put after them.
	put("in/skip.txt", "x")
	put("out/skip.csv", "x")
	put("in/a b.csv", "hello")
	if key, size := object("csv", "ObjectCreated:Put"); key != "in/a+b.csv" || size != 5 {
		t.Errorf("csv got %q (%d bytes), want in/a+b.csv (5 bytes): the key as S3 encodes it, slashes kept", key, size)
	}
	if del := fd.next(t, "csv"); del.Kind != manifest.KindS3 || del.Source != "uploads" || del.Messages != 1 || del.Error != "" || len(del.Failed) != 0 {
		t.Errorf("delivery %+v: want one record of uploads delivered", del)
	}

	// A removal reaches the handler of removals only.
	if _, err := s.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("in/a b.csv")}); err != nil {
		t.Fatal(err)
	}
	if key, _ := object("gone", "ObjectRemoved:Delete"); key != "in/a+b.csv" {
		t.Errorf("gone got %q, want in/a+b.csv", key)
	}
	put("in/c.csv", "c")
	if key, _ := object("csv", "ObjectCreated:Put"); key != "in/c.csv" {
		t.Errorf("csv got %q after a removal, want in/c.csv (removals are not its events)", key)
	}
	fd.next(t, "csv")

	// A failing handler gets the event again MaxRetries times, then it is
	// dropped.
	put("in/poison.csv", "b")
	for retry := 1; retry <= MaxRetries+1; retry++ {
		if key, _ := object("csv", "ObjectCreated:Put"); key != "in/poison.csv" {
			t.Fatalf("attempt %d: csv got %q, want in/poison.csv again", retry, key)
		}
		del := fd.next(t, "csv")
		if del.Error != "Boom: bad file" || len(del.Failed) != 1 {
			t.Errorf("attempt %d: delivery %+v, want the handler's error and the message", retry, del)
		}
		if retry <= MaxRetries && (del.Retry != retry || del.Dropped) {
			t.Errorf("attempt %d: delivery %+v, want retry %d to follow", retry, del, retry)
		}
		if retry == MaxRetries+1 && (!del.Dropped || del.Retry != 0) {
			t.Errorf("last attempt: delivery %+v, want it dropped", del)
		}
	}
	put("in/d.csv", "d")
	if key, _ := object("csv", "ObjectCreated:Put"); key != "in/d.csv" {
		t.Errorf("after the drop, csv got %q, want in/d.csv", key)
	}
	fd.next(t, "csv")
	fd.stop()

	ids := func() []string {
		t.Helper()
		out, err := s.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String(bucket)})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, q := range out.QueueConfigurations {
			ids = append(ids, aws.ToString(q.Id))
		}
		slices.Sort(ids)
		return ids
	}
	if got := ids(); !slices.Equal(got, []string{"audit-copy", "framework-local-csv-1", "framework-local-gone-1"}) {
		t.Errorf("the bucket's notifications: %v, want the one it had and one per handler", got)
	}
	// A handler removed from the app loses its notification; the others
	// stay.
	feed(t, s3Manifest(csv), r, nil).stop()
	if got := ids(); !slices.Equal(got, []string{"audit-copy", "framework-local-csv-1"}) {
		t.Errorf("after the handler gone is removed, the bucket's notifications: %v", got)
	}
}

// A message of the handler's queue that is not an S3 event is reported
// and dropped; moto's test message is not delivered.
func TestS3EventOfAMessage(t *testing.T) {
	_, _, err := s3Event(sqsMessage{MessageId: "m-1", Body: `{"Service":"Amazon S3","Event":"s3:TestEvent"}`})
	if !errors.Is(err, errTestEvent) {
		t.Errorf("test event: %v, want errTestEvent", err)
	}
	_, _, err = s3Event(sqsMessage{MessageId: "m-2", Body: `hello`})
	if err == nil || !strings.Contains(err.Error(), "message m-2 of the bucket's queue is not an S3 event notification; it is dropped") {
		t.Errorf("not an event: %v", err)
	}
	b, n, err := s3Event(sqsMessage{MessageId: "m-3", Attributes: map[string]string{"SentTimestamp": "1795631086475"},
		Body: `{"Records":[{"eventName":"ObjectCreated:Put","eventTime":"2026-11-25T18:24:46.474870","s3":{"object":{"key":"k","size":3}}}]}`})
	var ev events.S3Event
	if err != nil || n != 1 || json.Unmarshal(b, &ev) != nil || !ev.Records[0].EventTime.Equal(time.UnixMilli(1795631086475)) || ev.Records[0].S3.Object.Size != 3 {
		t.Errorf("an event without a time zone: %s, %d, %v; want its time from the message's", b, n, err)
	}
}
