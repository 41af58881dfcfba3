package frameworktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/framework-dev/framework/internal/eventsample"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// Invoke sends event (JSON bytes, or any value encoding/json writes) to
// the handler named name through the dispatch point the
// deployed function's Lambda adapter calls, and returns the handler's JSON
// result. An error is what Lambda would report as the invocation's error.
// As Lambda does, it gives each invocation a request id of its own (the
// Lambda context's AwsRequestID); the invocation serves the Client's
// Stage (dev when empty, as framework local), which the handler's Logger
// and Metrics lines carry.
func (c *Client) Invoke(name string, event any) ([]byte, error) {
	payload, ok := event.([]byte)
	if !ok {
		var err error
		if payload, err = json.Marshal(event); err != nil {
			return nil, fmt.Errorf("frameworktest: encode the event for %s: %w", name, err)
		}
	}
	stage := c.Stage
	if stage == "" {
		stage = names.DefaultStage
	}
	ctx := lambdacontext.NewContext(apphook.WithStage(context.Background(), stage),
		&lambdacontext.LambdaContext{AwsRequestID: newRequestID()})
	return apphook.Of(c.app).Invoke(ctx, name, payload)
}

// newRequestID returns a random request id in Lambda's form, a UUID
// (version 4).
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// spec returns the manifest entry of the function named name.
func (c *Client) spec(name string) (manifest.Function, error) {
	m, err := apphook.Of(c.app).Manifest()
	if err != nil {
		return manifest.Function{}, err
	}
	for _, f := range m.Functions {
		if f.Name == name {
			f.Source = eventsample.Source(f)
			return f, nil
		}
	}
	return manifest.Function{}, fmt.Errorf("frameworktest: the app %s has no function named %q", m.App, name)
}

// Schedule sends the scheduled handler name one tick: the "Scheduled
// Event" EventBridge sends when its rule fires.
func (c *Client) Schedule(name string) error {
	_, err := c.Invoke(name, eventsample.Schedule(name))
	return err
}

// SQS sends the SQS handler name one batch, a message per body (message i,
// from 1, has MessageId "message-i"), and returns the MessageIds the
// handler reported as failed. An error fails the whole batch.
func (c *Client) SQS(name string, bodies ...string) (failed []string, err error) {
	f, err := c.spec(name)
	if err != nil {
		return nil, err
	}
	return c.batch(name, eventsample.SQS(f.Source, bodies...))
}

// SNS sends the SNS handler name one notification.
func (c *Client) SNS(name, subject, message string) error {
	f, err := c.spec(name)
	if err != nil {
		return err
	}
	_, err = c.Invoke(name, eventsample.SNS(f.Source, subject, message))
	return err
}

// S3 sends the S3 handler name one object event of its bucket, eventName
// as S3 spells it in records ("ObjectCreated:Put", "ObjectRemoved:Delete").
func (c *Client) S3(name, eventName, key string, size int64) error {
	f, err := c.spec(name)
	if err != nil {
		return err
	}
	_, err = c.Invoke(name, eventsample.S3(f.Source, eventName, key, size))
	return err
}

// EventBridge sends the EventBridge handler name one event with source,
// detail type and detail (any value encoding/json writes).
func (c *Client) EventBridge(name, source, detailType string, detail any) error {
	b, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("frameworktest: encode the detail: %w", err)
	}
	_, err = c.Invoke(name, eventsample.EventBridge(source, detailType, b))
	return err
}

// DynamoDB sends the DynamoDB stream handler name the given records (their
// source fields filled in when empty) and returns the sequence numbers the
// handler reported as failed.
func (c *Client) DynamoDB(name string, records ...events.DynamoDBEventRecord) (failed []string, err error) {
	f, err := c.spec(name)
	if err != nil {
		return nil, err
	}
	for i := range records {
		r := &records[i]
		r.EventSource, r.EventSourceArn, r.AWSRegion = "aws:dynamodb", f.Source, eventsample.Region
		if r.EventVersion == "" {
			r.EventVersion = "1.1"
		}
	}
	return c.batch(name, events.DynamoDBEvent{Records: records})
}

// Kinesis sends the Kinesis handler name one batch, a record per data
// (record i, from 1, has the sequence number eventsample.KinesisSequence(i)),
// and returns the sequence numbers the handler reported as failed.
func (c *Client) Kinesis(name string, data ...[]byte) (failed []string, err error) {
	f, err := c.spec(name)
	if err != nil {
		return nil, err
	}
	return c.batch(name, eventsample.Kinesis(f.Source, data...))
}

// Function calls the plain function name with in, decoding its result into
// out (which may be nil).
func (c *Client) Function(name string, in, out any) error {
	b, err := c.Invoke(name, in)
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// batch sends a batch event and reads the reported failures, in Lambda's
// shape {"batchItemFailures": [{"itemIdentifier": "..."}]}.
func (c *Client) batch(name string, event any) ([]string, error) {
	b, err := c.Invoke(name, event)
	if err != nil {
		return nil, err
	}
	var res struct {
		BatchItemFailures []struct {
			ItemIdentifier string `json:"itemIdentifier"`
		} `json:"batchItemFailures"`
	}
	if string(b) != "null" {
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, fmt.Errorf("frameworktest: %s answered %s, not a batch response: %w", name, b, err)
		}
	}
	var failed []string
	for _, f := range res.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	return failed, nil
}
