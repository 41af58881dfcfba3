package localres

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/framework-dev/framework/internal/manifest"
)

// restartManifest declares a queue, a topic, a bucket and a table with a
// stream, each feeding a handler, and an EventBridge handler.
func restartManifest() *manifest.Manifest {
	m := streamManifest("NEW_IMAGE", manifest.Function{Name: "audit", Kind: manifest.KindDynamoDB, SourceResource: "todos"},
		manifest.Function{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs"},
		manifest.Function{Name: "notify", Kind: manifest.KindSNS, SourceResource: "orders"},
		manifest.Function{Name: "files", Kind: manifest.KindS3, SourceResource: "uploads", Events: []string{"s3:ObjectCreated:*"}},
		manifest.Function{Name: "placed", Kind: manifest.KindEventBridge, EventPattern: json.RawMessage(`{"source":["shop.orders"]}`)})
	m.Resources = append(m.Resources, manifest.Resource{Name: "jobs", Kind: manifest.ResourceQueue},
		manifest.Resource{Name: "orders", Kind: manifest.ResourceTopic}, manifest.Resource{Name: "uploads", Kind: manifest.ResourceBucket})
	return m
}

// notices collects a Deliverer's notices.
type notices chan Notice

// next returns the next notice of kind, skipping others.
func (n notices) next(t *testing.T, kind string) Notice {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case got := <-n:
			if got.Kind == kind {
				return got
			}
		case <-deadline:
			t.Fatalf("no %s notice within 60 s", kind)
		}
	}
}

// After the emulator restarts, its state gone, delivery goes on: while it
// does not answer a notice names it, again and again; once it answers,
// what was set up there is created again, one notice says so, and every
// handler gets its events again.
func TestDeliveryResumesAfterTheEmulatorRestarts(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := restartManifest()
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	said := make(notices, 100)
	var unreachable atomic.Int32
	fd := feed(t, m, r, nil, func(d *Deliverer) {
		d.downEvery = 10 * time.Millisecond
		d.Notices = func(n Notice) {
			if n.Kind == "emulator_unreachable" && unreachable.Add(1) > 3 {
				return // enough of them: the channel must not fill up
			}
			said <- n
		}
	})
	q := sqs.NewFromConfig(moto.Config())
	topic := sns.NewFromConfig(moto.Config())
	bucket := s3.NewFromConfig(moto.Config(), func(o *s3.Options) { o.UsePathStyle = true })
	events := func(round string) {
		t.Helper()
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(r.Attrs["jobs"][manifest.AttrURL]), MessageBody: aws.String(round)}); err != nil {
			t.Fatal(err)
		}
		if _, err := topic.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(r.Attrs["orders"][manifest.AttrARN]), Message: aws.String(round)}); err != nil {
			t.Fatal(err)
		}
		if _, err := bucket.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(r.Attrs["uploads"][manifest.AttrName]), Key: aws.String(round), Body: strings.NewReader(round)}); err != nil {
			t.Fatal(err)
		}
		if err := r.Client.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": r.Attrs["todos"][manifest.AttrName], "Item": item(round, 1)}, nil); err != nil {
			t.Fatal(err)
		}
		if err := r.Client.Call(ctx, "events", "PutEvents", map[string]any{"Entries": []map[string]string{
			{"Source": "shop.orders", "DetailType": "OrderPlaced", "Detail": `{"round":"` + round + `"}`}}}, nil); err != nil {
			t.Fatal(err)
		}
		for _, fn := range []string{"work", "notify", "files", "audit", "placed"} {
			if del := fd.next(t, fn); del.Error != "" || del.Messages != 1 {
				t.Errorf("%s: delivery %+v, want one event of %s delivered", fn, del, round)
			}
			select {
			case ev := <-fd.invoked[fn]:
				if !strings.Contains(string(ev), round) {
					t.Errorf("%s got %s, want the event of %s", fn, ev, round)
				}
			default:
				t.Errorf("%s reported a delivery without an invocation", fn)
			}
		}
	}
	events("before")

	moto.Kill(t)
	for i := range 2 {
		if n := said.next(t, "emulator_unreachable"); !strings.Contains(n.Line, moto.URL) || n.Endpoint != moto.URL {
			t.Errorf("notice %d %+v: want the emulator's endpoint named", i, n)
		}
	}
	moto.Restart(t)
	back := said.next(t, "emulator_answers")
	for _, want := range []string{"table shop-dev-todos", "queue shop-dev-jobs", "topic shop-dev-orders", "bucket shop-dev-uploads",
		"the notification configuration of bucket shop-dev-uploads", "rule framework-local-shop-dev-placed", "queue shop-dev-orders-notify"} {
		if !slices.Contains(back.Recreated, want) {
			t.Errorf("recreated %q, want %s among them", back.Recreated, want)
		}
	}
	if !strings.Contains(back.Line, "answers again") || !strings.Contains(back.Line, "created again: ") || !strings.Contains(back.Line, moto.URL) {
		t.Errorf("notice %q: want one line saying what was created again at the emulator", back.Line)
	}
	events("after")
	if n := len(said); n > 0 {
		var more []string
		for range n {
			more = append(more, (<-said).Line)
		}
		t.Errorf("notices after the emulator answered again: %q, want none", more)
	}
}

// What framework local calls at a reload, when no handler polls the
// emulator (here an app with a table and a secret only): the resources lost
// by a restart of the emulator are created again, and one notice says so.
func TestRecreateAfterTheEmulatorRestarts(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{
		{Name: "todos", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}},
		{Name: "apiKey", Kind: manifest.ResourceSecret}}}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	said := make(notices, 10)
	d := &Deliverer{Manifest: m, Resources: r, App: "shop", Stage: "dev", Notices: func(n Notice) { said <- n }}
	d.Run(ctx) // no handler: it returns once set up
	if err := d.Recreate(ctx); err != nil || len(said) != 0 {
		t.Fatalf("Recreate with nothing missing: %v, %d notices; want nothing to say", err, len(said))
	}
	moto.Kill(t)
	moto.Restart(t)
	if err := d.Recreate(ctx); err != nil {
		t.Fatal(err)
	}
	n := said.next(t, "resources_recreated")
	want := []string{"table shop-dev-todos", "secret shop-dev-apikey (without its value: set it again with `framework secret set`)"}
	if !slices.Equal(n.Recreated, want) || !strings.Contains(n.Line, moto.URL) || !strings.Contains(n.Line, "created again: table shop-dev-todos, secret") {
		t.Errorf("notice %+v: want the table and the secret named", n)
	}
	if err := r.Client.Call(ctx, "dynamodb", "DescribeTable", map[string]any{"TableName": "shop-dev-todos"}, nil); err != nil {
		t.Errorf("the table after Recreate: %v", err)
	}
}
