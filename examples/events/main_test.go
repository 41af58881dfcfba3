package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/frameworktest"
)

// TestHandlers calls each handler once through the test client, which goes
// through the same dispatch point as the deployed functions.
func TestHandlers(t *testing.T) {
	app := newApp()
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	c := frameworktest.New(app)

	if err := c.Schedule("nightly-cleanup"); err != nil {
		t.Errorf("schedule tick: %v", err)
	}
	failed, err := c.SQS("orders", "order:1", "junk", "order:2")
	if err != nil || strings.Join(failed, ",") != "message-2" {
		t.Errorf("SQS batch: failed %v, %v; want message-2", failed, err)
	}
	if err := c.SNS("alerts", "Disk", "disk almost full"); err != nil {
		t.Errorf("SNS: %v", err)
	}
	if err := c.S3("uploads", "ObjectCreated:Put", "incoming/a.csv", 42); err != nil {
		t.Errorf("S3: %v", err)
	}
	if err := c.EventBridge("order-shipped", "shop.shipping", "OrderShipped", map[string]string{"order": "1001"}); err != nil {
		t.Errorf("EventBridge: %v", err)
	}
	failed, err = c.DynamoDB("order-audit", events.DynamoDBEventRecord{EventName: "INSERT",
		Change: events.DynamoDBStreamRecord{Keys: map[string]events.DynamoDBAttributeValue{"id": events.NewStringAttribute("1001")}}})
	if err != nil || len(failed) != 0 {
		t.Errorf("DynamoDB: failed %v, %v", failed, err)
	}
	failed, err = c.Kinesis("clicks", []byte(`{"page":"/"}`), nil)
	if err != nil || len(failed) != 1 || !strings.HasSuffix(failed[0], "002") {
		t.Errorf("Kinesis: failed %v, %v; want the second record", failed, err)
	}
	var q Quote
	if err := c.Function("quote", QuoteRequest{SKU: "TSHIRT-M", Quantity: 3}, &q); err != nil || q.TotalCents != 3750 {
		t.Errorf("quote = %+v, %v", q, err)
	}
	if err := c.Function("quote", QuoteRequest{SKU: "TSHIRT-M"}, nil); err == nil || err.Error() != "quantity 0: order at least one" {
		t.Errorf("quote of nothing: %v", err)
	}
	if resp := c.Lambda("GET", "/", nil, nil); resp.StatusCode != 200 {
		t.Errorf("GET / = %d", resp.StatusCode)
	}
}
