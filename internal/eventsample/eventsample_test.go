package eventsample

import (
	"context"
	"github.com/framework-dev/framework/internal/apphook"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/manifest"
)

// TestSamplesFitTheirKind: the sample of every kind decodes into the
// events type its handlers take, with the handler's source in it.
func TestSamplesFitTheirKind(t *testing.T) {
	app := framework.New("s")
	got := map[string]string{}
	app.OnSchedule("tick", framework.Rate(time.Hour), func(_ context.Context, ev events.EventBridgeEvent) error {
		got["tick"] = ev.DetailType
		return nil
	})
	app.OnEventBridge("eb", map[string]any{"source": []string{"shop"}, "detail-type": []string{"Placed"}}, func(_ context.Context, ev events.EventBridgeEvent) error {
		got["eb"] = ev.Source + "/" + ev.DetailType
		return nil
	})
	app.OnSQSMessage("q", "orders", func(_ context.Context, ev events.SQSEvent) error {
		got["q"] = ev.Records[1].EventSourceARN
		return nil
	})
	app.OnSNSMessage("n", "alerts", func(_ context.Context, ev events.SNSEvent) error {
		got["n"] = ev.Records[0].SNS.TopicArn
		return nil
	})
	app.OnS3Event("b", "arn:aws:s3:::bkt", func(_ context.Context, ev events.S3Event) error {
		got["b"] = ev.Records[0].EventName + " " + ev.Records[0].S3.Bucket.Name + "/" + ev.Records[0].S3.Object.Key
		return nil
	}, framework.S3Filter("in/", ".csv", "s3:ObjectRemoved:*"))
	const stream = "arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2024"
	app.OnDynamoDBRecord("d", stream, func(_ context.Context, ev events.DynamoDBEvent) error {
		got["d"] = ev.Records[0].EventName + " " + ev.Records[0].Change.Keys["id"].String()
		return nil
	})
	app.OnKinesisRecord("k", "clicks", func(_ context.Context, ev events.KinesisEvent) error {
		got["k"] = ev.Records[0].EventSourceArn + " " + string(ev.Records[0].Kinesis.Data)
		return nil
	})
	framework.LambdaFunction(app, "f", func(_ context.Context, in map[string]any) (int, error) { return len(in), nil })
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Functions {
		ev, err := For(f)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if _, err := apphook.Of(app).Invoke(context.Background(), f.Name, ev); err != nil {
			t.Errorf("%s: %v\n%s", f.Name, err, ev)
		}
	}
	for name, want := range map[string]string{
		"tick": "Scheduled Event", "eb": "shop/Placed", "q": "arn:aws:sqs:us-east-1:123456789012:orders",
		"n": "arn:aws:sns:us-east-1:123456789012:alerts", "b": "ObjectRemoved:Delete bkt/in/sample.csv",
		"d": "INSERT sample-1", "k": `arn:aws:kinesis:us-east-1:123456789012:stream/clicks {"sample": 1}`,
	} {
		if got[name] != want {
			t.Errorf("%s: got %q, want %q", name, got[name], want)
		}
	}
	if _, err := For(manifest.Function{Kind: framework.KindHTTP}); err == nil {
		t.Error("a sample for the REST API's function: want an error saying to give an event")
	}
}

// The sample event of a handler fed by a declared queue comes from that
// queue (`framework invoke --local`).
func TestForDeclaredSource(t *testing.T) {
	t.Setenv("FRAMEWORK_RES_JOBS_ARN", "")
	b, err := For(manifest.Function{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs"})
	if err != nil || !strings.Contains(string(b), `"eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:jobs"`) {
		t.Fatalf("sample %s, %v: want the queue jobs as its source", b, err)
	}
}
