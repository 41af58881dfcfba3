package localres

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/framework-dev/framework/internal/manifest"
)

// A filtered SNS handler gets, locally, only the messages its filter
// policy matches, on the message attributes or on the body: the emulator
// filters the subscription of the handler's queue as SNS does deployed.
func TestTopicFilterPolicyLocally(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, scope, policy string
		match, miss         string // bodies
		matchAttr, missAttr string // the "kind" attribute, when set
	}{
		{name: "attributes", scope: manifest.FilterOnAttributes, policy: `{"kind": ["order"]}`,
			match: "order 2", miss: "refund 1", matchAttr: "order", missAttr: "refund"},
		{name: "body", scope: manifest.FilterOnBody, policy: `{"order": {"status": ["paid"]}}`,
			match: `{"order": {"id": 2, "status": "paid"}}`, miss: `{"order": {"id": 1, "status": "open"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "orders" + tc.name, Kind: manifest.ResourceTopic}},
				Functions: []manifest.Function{{Name: "notify", Kind: manifest.KindSNS, SourceResource: "orders" + tc.name,
					FilterPolicy: []byte(tc.policy), FilterPolicyScope: tc.scope}}}
			if err := manifest.Validate(m); err != nil {
				t.Fatal(err)
			}
			r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
			if err != nil {
				t.Fatal(err)
			}
			fd := feed(t, m, r, nil)
			client := sns.NewFromConfig(moto.Config())
			publish := func(body, kind string) {
				t.Helper()
				in := &sns.PublishInput{TopicArn: aws.String(r.Attrs[m.Resources[0].Name][manifest.AttrARN]), Message: aws.String(body)}
				if kind != "" {
					in.MessageAttributes = map[string]snstypes.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String(kind)}}
				}
				if _, err := client.Publish(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			publish(tc.miss, tc.missAttr)
			publish(tc.match, tc.matchAttr)
			var ev events.SNSEvent
			fd.event(t, "notify", &ev)
			if len(ev.Records) != 1 || ev.Records[0].SNS.Message != tc.match {
				var got []string
				for _, rec := range ev.Records {
					got = append(got, rec.SNS.Message)
				}
				t.Fatalf("notify got %q first, want the matching message %q only", got, tc.match)
			}
			// Everything the handler's queue received is delivered and
			// deleted once it is empty: nothing else may have come.
			u, _, err := (&Deliverer{Manifest: m, Resources: r, App: "shop", Stage: "dev"}).handlerQueue(ctx, &m.Functions[0])
			if err != nil {
				t.Fatal(err)
			}
			waitEmpty(t, moto.Config(), u)
			select {
			case b := <-fd.invoked["notify"]:
				t.Errorf("notify was invoked again, with %s: the filter let the non-matching message %q through", b, tc.miss)
			default:
			}
		})
	}
}

// waitEmpty waits until the queue at u holds no message, visible or in
// flight (polling its counts).
func waitEmpty(t *testing.T, cfg aws.Config, u string) {
	t.Helper()
	q := sqs.NewFromConfig(cfg)
	for {
		if v, f := queueCounts(t, q, u); v == "0" && f == "0" {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal("the test ended first")
		case <-time.After(20 * time.Millisecond): // the poll's pace, not a wait for an outcome
		}
	}
}

// framework local's emulator gets the topic and bucket a declaration
// describes: a FIFO topic named .fifo with content-based deduplication,
// and a bucket with the declared CORS rules, lifecycle rules and
// versioning.
func TestEmulatorTopicAndBucketAsDeclared(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{
		{Name: "orders", Kind: manifest.ResourceTopic, FIFO: true, ContentBasedDeduplication: true},
		{Name: "uploads", Kind: manifest.ResourceBucket, Versioned: true,
			CORS:      []manifest.CORSRule{{AllowedOrigins: []string{"http://localhost:3000"}, AllowedMethods: []string{"PUT", "GET"}, AllowedHeaders: []string{"*"}, MaxAgeSeconds: 600}},
			Lifecycle: []manifest.LifecycleRule{{Prefix: "tmp/", ExpireAfterDays: 7}, {AbortIncompleteUploadsAfterDays: 2}}},
	}}
	if err := manifest.Validate(m); err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	arn := r.Attrs["orders"][manifest.AttrARN]
	attrs, err := sns.NewFromConfig(moto.Config()).GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Attrs["orders"][manifest.AttrName] != "shop-dev-orders.fifo" || attrs.Attributes["FifoTopic"] != "true" || attrs.Attributes["ContentBasedDeduplication"] != "true" {
		t.Errorf("topic %s with attributes %v, want shop-dev-orders.fifo, FIFO with content-based deduplication", arn, attrs.Attributes)
	}

	s := s3.NewFromConfig(moto.Config(), func(o *s3.Options) { o.UsePathStyle = true })
	bucket := aws.String(r.Attrs["uploads"][manifest.AttrName])
	v, err := s.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: bucket})
	if err != nil || v.Status != "Enabled" {
		t.Errorf("versioning %v (%v), want Enabled", v, err)
	}
	cors, err := s.GetBucketCors(ctx, &s3.GetBucketCorsInput{Bucket: bucket})
	if err != nil || len(cors.CORSRules) != 1 || cors.CORSRules[0].AllowedOrigins[0] != "http://localhost:3000" ||
		len(cors.CORSRules[0].AllowedMethods) != 2 || aws.ToInt32(cors.CORSRules[0].MaxAgeSeconds) != 600 {
		t.Errorf("CORS rules %+v (%v), want the declared one", cors, err)
	}
	life, err := s.GetBucketLifecycleConfiguration(ctx, &s3.GetBucketLifecycleConfigurationInput{Bucket: bucket})
	if err != nil || len(life.Rules) != 2 || aws.ToInt32(life.Rules[0].Expiration.Days) != 7 ||
		life.Rules[1].AbortIncompleteMultipartUpload == nil || aws.ToInt32(life.Rules[1].AbortIncompleteMultipartUpload.DaysAfterInitiation) != 2 {
		t.Errorf("lifecycle rules %+v (%v), want the declared two", life, err)
	}
}

// A filter removed from the declaration is removed from the emulator's
// subscription when framework local starts again: the handler then gets
// every message.
func TestTopicFilterRemovedLocally(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceTopic}},
		Functions: []manifest.Function{{Name: "notify", Kind: manifest.KindSNS, SourceResource: "orders",
			FilterPolicy: []byte(`{"kind": ["order"]}`), FilterPolicyScope: manifest.FilterOnAttributes}}}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Manifest: m, Resources: r, App: "shop", Stage: "dev"}
	if _, err := d.subscribe(ctx, &m.Functions[0]); err != nil {
		t.Fatal(err)
	}
	m.Functions[0].FilterPolicy, m.Functions[0].FilterPolicyScope = nil, ""
	fd := feed(t, m, r, nil)
	if _, err := sns.NewFromConfig(moto.Config()).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(r.Attrs["orders"][manifest.AttrARN]), Message: aws.String("no kind")}); err != nil {
		t.Fatal(err)
	}
	var ev events.SNSEvent
	fd.event(t, "notify", &ev)
	if len(ev.Records) != 1 || ev.Records[0].SNS.Message != "no kind" {
		t.Errorf("notify got %+v, want the message the old filter refused", ev.Records)
	}
}
