// Command events shows one handler of every kind beside a route: a
// scheduled job, queue, topic, bucket, EventBridge and stream handlers, and
// a plain function. Each runs in a Lambda function of its own, built from
// this one package; the queue, topic, bucket and streams are referenced by
// name or ARN, not created.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

// ordersStream is the stream of the orders table (its LatestStreamArn).
const ordersStream = "arn:aws:dynamodb:us-east-1:123456789012:table/orders/stream/2024-01-01T00:00:00.000"

func newApp() *framework.App {
	app := framework.New("events")
	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"hello": "events"}, nil
	})

	// A scheduled job: every day at 03:00 UTC.
	app.OnSchedule("nightly-cleanup", framework.Cron("0 3 * * ? *"), func(ctx context.Context, ev events.EventBridgeEvent) error {
		log.Printf("cleanup at %s (rule %v)", ev.Time.Format(time.RFC3339), ev.Resources)
		return nil
	}, framework.Description("Deletes expired carts"))

	// A queue consumer that reports the messages it could not handle, so
	// that only those are retried.
	app.OnSQSPartialBatch("orders", "orders", func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var res events.SQSEventResponse
		for _, m := range ev.Records {
			if err := placeOrder(m.Body); err != nil {
				log.Printf("message %s: %v", m.MessageId, err)
				res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return res, nil
	}, framework.BatchSize(10), framework.MaxBatchingWindow(2*time.Second))

	// A topic subscriber.
	app.OnSNSMessage("alerts", "arn:aws:sns:us-east-1:123456789012:alerts", func(ctx context.Context, ev events.SNSEvent) error {
		for _, r := range ev.Records {
			log.Printf("alert %q: %s", r.SNS.Subject, r.SNS.Message)
		}
		return nil
	})

	// New CSV files under incoming/ in a bucket.
	app.OnS3Event("uploads", "events-example-uploads", func(ctx context.Context, ev events.S3Event) error {
		for _, r := range ev.Records {
			log.Printf("%s s3://%s/%s (%d bytes)", r.EventName, r.S3.Bucket.Name, r.S3.Object.Key, r.S3.Object.Size)
		}
		return nil
	}, framework.S3Filter("incoming/", ".csv", "s3:ObjectCreated:*"))

	// EventBridge events matching a pattern.
	app.OnEventBridge("order-shipped", map[string]any{
		"source":      []string{"shop.shipping"},
		"detail-type": []string{"OrderShipped"},
	}, func(ctx context.Context, ev events.EventBridgeEvent) error {
		log.Printf("%s from %s: %s", ev.DetailType, ev.Source, ev.Detail)
		return nil
	})

	// A DynamoDB stream: changes of the orders table, from the oldest record kept.
	app.OnDynamoDBRecord("order-audit", ordersStream, func(ctx context.Context, ev events.DynamoDBEvent) error {
		for _, r := range ev.Records {
			log.Printf("%s %v", r.EventName, r.Change.Keys)
		}
		return nil
	}, framework.StartingPosition(framework.StartTrimHorizon), framework.BatchSize(100))

	// A Kinesis stream, reporting the records that failed.
	app.OnKinesisPartialBatch("clicks", "clicks", func(ctx context.Context, ev events.KinesisEvent) (events.KinesisEventResponse, error) {
		var res events.KinesisEventResponse
		for _, r := range ev.Records {
			if len(r.Kinesis.Data) == 0 {
				res.BatchItemFailures = append(res.BatchItemFailures, events.KinesisBatchItemFailure{ItemIdentifier: r.Kinesis.SequenceNumber})
			}
		}
		return res, nil
	})

	// A plain function: any JSON in, any JSON out.
	framework.LambdaFunction(app, "quote", func(ctx context.Context, in QuoteRequest) (Quote, error) {
		if in.Quantity <= 0 {
			return Quote{}, fmt.Errorf("quantity %d: order at least one", in.Quantity)
		}
		return Quote{SKU: in.SKU, Quantity: in.Quantity, TotalCents: in.Quantity * 1250}, nil
	})
	return app
}

// QuoteRequest is the input of the quote function.
type QuoteRequest struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

// Quote is the output of the quote function.
type Quote struct {
	SKU        string `json:"sku"`
	Quantity   int    `json:"quantity"`
	TotalCents int    `json:"total_cents"`
}

// placeOrder stands for real work: a body that is not an order fails.
func placeOrder(body string) error {
	if !strings.HasPrefix(body, "order:") {
		return errors.New("not an order")
	}
	return nil
}

func main() { newApp().Run() }
