package localres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/framework-dev/framework/internal/manifest"
)

// localNotificationID starts the IDs of the notification configurations
// that send a declared bucket's events to the local queues of its
// handlers.
const localNotificationID = "framework-local-"

// routeBuckets gives each declared bucket at the emulator the notification
// configurations that send the events its S3 handlers declared to a queue
// of the emulator per handler (<app>-<stage>-<bucket>-<handler>): one
// configuration per event type, with the handler's key prefix and suffix,
// as the stage's stack configures the deployed bucket. It returns those
// queues' URLs by handler name.
//
// The bucket's other notification configurations (other queues, topics,
// functions, EventBridge) are kept as they are. The ones an earlier run set
// for handlers (IDs starting "framework-local-") are replaced by the
// current handlers' and removed when the app no longer has the handler.
// They stay on the bucket after the run, so that the queues keep the
// events of the time no session runs, and the next one delivers them. A
// bucket whose configurations are already the current ones is left as it
// is.
func (d *Deliverer) routeBuckets(ctx context.Context) map[string]string {
	urls := map[string]string{}
	for i := range d.Manifest.Resources {
		b := &d.Manifest.Resources[i]
		name := d.Resources.Attrs[b.Name][manifest.AttrName]
		if b.Kind != manifest.ResourceBucket || name == "" {
			continue // not created at the emulator: its error said so
		}
		var fns []*manifest.Function
		for j := range d.Manifest.Functions {
			if f := &d.Manifest.Functions[j]; f.Kind == manifest.KindS3 && f.SourceResource == b.Name {
				fns = append(fns, f)
			}
		}
		if err := d.routeBucket(ctx, name, fns, urls); err != nil {
			for _, f := range fns {
				d.problem(fmt.Errorf("%s: send the events of bucket %q to a local queue: %w", f.Label(), b.Name, err))
			}
		}
	}
	return urls
}

// routeBucket sets the notifications of the bucket named bucket for
// handlers fns (see routeBuckets), adding their queues' URLs to urls.
func (d *Deliverer) routeBucket(ctx context.Context, bucket string, fns []*manifest.Function, urls map[string]string) error {
	s := d.Resources.Client.s3Client()
	cur, err := s.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String(bucket)})
	if err != nil {
		return err
	}
	var want []s3types.QueueConfiguration
	for _, f := range fns {
		u, arn, err := d.handlerQueue(ctx, f)
		if err != nil {
			return err
		}
		urls[f.Name] = u
		var filter *s3types.NotificationConfigurationFilter
		var rules []s3types.FilterRule
		if f.Prefix != "" {
			rules = append(rules, s3types.FilterRule{Name: s3types.FilterRuleNamePrefix, Value: aws.String(f.Prefix)})
		}
		if f.Suffix != "" {
			rules = append(rules, s3types.FilterRule{Name: s3types.FilterRuleNameSuffix, Value: aws.String(f.Suffix)})
		}
		if len(rules) > 0 {
			filter = &s3types.NotificationConfigurationFilter{Key: &s3types.S3KeyFilter{FilterRules: rules}}
		}
		for k, e := range f.Events {
			want = append(want, s3types.QueueConfiguration{
				Id: aws.String(fmt.Sprintf("%s%s-%d", localNotificationID, f.Name, k+1)), QueueArn: aws.String(arn),
				Events: []s3types.Event{s3types.Event(e)}, Filter: filter,
			})
		}
	}
	var kept, had []s3types.QueueConfiguration
	for _, q := range cur.QueueConfigurations {
		if strings.HasPrefix(aws.ToString(q.Id), localNotificationID) {
			had = append(had, q)
		} else {
			kept = append(kept, q)
		}
	}
	if slices.Equal(queueConfigKeys(had), queueConfigKeys(want)) {
		return nil
	}
	noteCreated(ctx, "the notification configuration of bucket "+bucket)
	_, err = s.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(bucket),
		NotificationConfiguration: &s3types.NotificationConfiguration{
			QueueConfigurations: append(kept, want...), TopicConfigurations: cur.TopicConfigurations,
			LambdaFunctionConfigurations: cur.LambdaFunctionConfigurations, EventBridgeConfiguration: cur.EventBridgeConfiguration,
		},
		SkipDestinationValidation: aws.Bool(true),
	})
	return err
}

// queueConfigKeys are qs as sorted strings, to compare configurations.
func queueConfigKeys(qs []s3types.QueueConfiguration) []string {
	keys := make([]string, len(qs))
	for i, q := range qs {
		k := aws.ToString(q.Id) + "|" + aws.ToString(q.QueueArn)
		for _, e := range q.Events {
			k += "|" + string(e)
		}
		if q.Filter != nil && q.Filter.Key != nil {
			var rules []string
			for _, r := range q.Filter.Key.FilterRules {
				rules = append(rules, strings.ToLower(string(r.Name))+"="+aws.ToString(r.Value))
			}
			slices.Sort(rules)
			k += "|" + strings.Join(rules, "|")
		}
		keys[i] = k
	}
	slices.Sort(keys)
	return keys
}

// deliverS3 delivers each S3 event notification of msgs, received from
// the queue at url, to handler f as S3 invokes a function: one event per
// notification. A notification delivered is deleted; one that failed is
// received again after retryDelay, until MaxRetries retries, then
// deleted and reported dropped. The notification an emulator sends to
// test a new configuration (s3:TestEvent) is deleted without delivery.
func (d *Deliverer) deliverS3(ctx context.Context, f *manifest.Function, url string, msgs []sqsMessage) {
	for _, m := range msgs {
		ev, n, err := s3Event(m)
		if errors.Is(err, errTestEvent) {
			_ = d.deleteMessages(ctx, url, []sqsMessage{m})
			continue
		}
		del := Delivery{Function: f.Name, Kind: f.Kind, Source: f.SourceResource, Messages: n}
		if err != nil {
			del.Error = err.Error()
			_ = d.deleteMessages(ctx, url, []sqsMessage{m})
			d.report(del)
			continue
		}
		d.deliverAsync(ctx, f, url, m, ev, n)
	}
}

// deliverAsync delivers ev, made of message m of the queue at url, to
// handler f as an asynchronous invocation (S3 and SNS invoke a function so):
// m is deleted once delivered; when the handler fails, m is received again
// after retryDelay, until MaxRetries retries, then deleted and reported
// dropped. n is how many records ev holds.
func (d *Deliverer) deliverAsync(ctx context.Context, f *manifest.Function, url string, m sqsMessage, ev []byte, n int) {
	del := Delivery{Function: f.Name, Kind: f.Kind, Source: sourceOf(f), Messages: n}
	start := time.Now()
	out, err := d.Invoke(ctx, f, ev)
	if ctx.Err() != nil {
		return
	}
	del.Duration = time.Since(start)
	if del.Error = outcomeError(out, err); del.Error == "" {
		if err := d.deleteMessages(ctx, url, []sqsMessage{m}); err != nil {
			del.Error = "delete the delivered notification: " + err.Error()
		}
		d.report(del)
		return
	}
	del.Failed = []string{m.MessageId}
	received, _ := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
	if received > MaxRetries {
		del.Dropped = true
		_ = d.deleteMessages(ctx, url, []sqsMessage{m})
	} else {
		del.Retry = max(received, 1)
		wait := int(d.retryDelay(del.Retry) / time.Second)
		_ = d.Resources.Client.Call(ctx, "sqs", "ChangeMessageVisibility", map[string]any{
			"QueueUrl": url, "ReceiptHandle": m.ReceiptHandle, "VisibilityTimeout": wait}, nil)
	}
	d.report(del)
}

// s3Key is key, URL-encoded by the emulator, as S3 encodes a key in its
// notifications: form-encoded (a space as "+"), its slashes kept, so that
// a handler reading "uploads/a+b.csv" locally reads what it will read
// deployed (moto also encodes the slashes). A key that does not decode is
// kept as it is.
func s3Key(key string) string {
	raw, err := url.QueryUnescape(key)
	if err != nil {
		return key
	}
	return strings.ReplaceAll(url.QueryEscape(raw), "%2F", "/")
}

// errTestEvent is s3Event's answer for a configuration's test message.
var errTestEvent = errors.New("s3:TestEvent")

// s3Event is the S3 event of notification m and how many records it holds.
// A record's time without a time zone (moto writes one) is taken to be
// the time the notification was sent.
func s3Event(m sqsMessage) ([]byte, int, error) {
	var body struct {
		Event   string
		Records []json.RawMessage
	}
	if err := json.Unmarshal([]byte(m.Body), &body); err != nil || body.Event != "s3:TestEvent" && len(body.Records) == 0 {
		return nil, 0, fmt.Errorf("message %s of the bucket's queue is not an S3 event notification; it is dropped", m.MessageId)
	}
	if body.Event == "s3:TestEvent" {
		return nil, 0, errTestEvent
	}
	ev := events.S3Event{Records: make([]events.S3EventRecord, len(body.Records))}
	for i, raw := range body.Records {
		var r struct {
			events.S3EventRecord
			EventTime string `json:"eventTime"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, 0, fmt.Errorf("message %s of the bucket's queue is not an S3 event notification (%v); it is dropped", m.MessageId, err)
		}
		t, err := time.Parse(time.RFC3339Nano, r.EventTime)
		if err != nil {
			ms, _ := strconv.ParseInt(m.Attributes["SentTimestamp"], 10, 64)
			t = time.UnixMilli(ms).UTC()
		}
		ev.Records[i] = r.S3EventRecord
		ev.Records[i].EventTime = t
		ev.Records[i].S3.Object.Key = s3Key(r.S3.Object.Key)
	}
	b, err := json.Marshal(ev)
	return b, len(ev.Records), err
}
