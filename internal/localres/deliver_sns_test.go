package localres

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/framework-dev/framework/internal/manifest"
)

// A declared topic's notifications reach its handler as SNS events; one
// the handler fails is delivered again MaxRetries times, then dropped, as
// Lambda retries an asynchronous invocation, and the next one goes on.
func TestTopicEventRetriedThenDropped(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceTopic}},
		Functions: []manifest.Function{{Name: "notify", Kind: manifest.KindSNS, SourceResource: "orders"}}}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	fd := feed(t, m, r, func(fn string, event []byte) (*Outcome, error) {
		if strings.Contains(string(event), "poison") {
			return &Outcome{Error: "Boom: bad order"}, nil
		}
		return &Outcome{Payload: []byte("null")}, nil
	})
	client := sns.NewFromConfig(moto.Config())
	publish := func(msg string) {
		t.Helper()
		if _, err := client.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(r.Attrs["orders"][manifest.AttrARN]), Message: aws.String(msg)}); err != nil {
			t.Fatal(err)
		}
	}
	message := func() string {
		t.Helper()
		var ev events.SNSEvent
		fd.event(t, "notify", &ev)
		if len(ev.Records) != 1 {
			t.Fatalf("event with %d records, want 1", len(ev.Records))
		}
		return ev.Records[0].SNS.Message
	}

	publish("poison order 1")
	for attempt := 1; attempt <= MaxRetries+1; attempt++ {
		if got := message(); got != "poison order 1" {
			t.Fatalf("attempt %d: notify got %q, want the failing message again", attempt, got)
		}
		del := fd.next(t, "notify")
		if del.Error != "Boom: bad order" || len(del.Failed) != 1 || del.Kind != manifest.KindSNS || del.Source != "orders" {
			t.Errorf("attempt %d: delivery %+v, want the handler's error and the message", attempt, del)
		}
		if attempt <= MaxRetries && (del.Retry != attempt || del.Dropped) {
			t.Errorf("attempt %d: delivery %+v, want retry %d to follow", attempt, del, attempt)
		}
		if attempt == MaxRetries+1 && (!del.Dropped || del.Retry != 0) {
			t.Errorf("last attempt: delivery %+v, want it dropped", del)
		}
	}
	publish("good order 2")
	if got := message(); got != "good order 2" {
		t.Errorf("after the drop, notify got %q, want the next message", got)
	}
	if del := fd.next(t, "notify"); del.Error != "" || del.Messages != 1 || len(del.Failed) != 0 {
		t.Errorf("delivery %+v, want one message delivered", del)
	}
}
