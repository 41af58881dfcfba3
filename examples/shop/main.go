// Command shop is a small shop's order service. POST /orders places an
// order once per Idempotency-Key (a client that retries after a timeout
// gets the first answer, and the shop one order), stores it in a table and
// queues it on a FIFO queue, one message group per customer, so that each
// customer's orders ship in the order they were placed. The fulfil handler
// ships each order once (a redelivered order is skipped) and announces it
// on a topic, whose bigOrders subscription gets only the orders of 100 or
// more (a filter policy on the message attribute total). Each handler
// records CloudWatch metrics (Embedded Metric Format) of what it did.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

// NewOrder is the body of POST /orders.
type NewOrder struct {
	Customer string `json:"customer"`
	Item     string `json:"item"`
	Quantity int    `json:"quantity"`
}

// Order is a placed order.
type Order struct {
	ID       string  `json:"id"`
	Customer string  `json:"customer"`
	Item     string  `json:"item"`
	Quantity int     `json:"quantity"`
	Total    float64 `json:"total"`
	Status   string  `json:"status"`
}

// prices is the catalogue: an item's unit price.
var prices = map[string]float64{"tea": 4.5, "cup": 12, "teapot": 120}

// awsConfig is the AWS SDK's configuration, loaded on first use from the
// environment (the function's role when deployed; AWS_ENDPOINT_URL for an
// emulator).
var awsConfig = sync.OnceValues(func() (aws.Config, error) { return config.LoadDefaultConfig(context.Background()) })

func newApp() *framework.App {
	app := framework.New("shop")

	orders := resource.NewTable(app, "orders", resource.TableSpec{
		PartitionKey: resource.Key{Name: "id", Type: resource.String}})
	// The idempotency records of POST /orders and of fulfil, expired by
	// DynamoDB's TTL.
	keys := resource.NewTable(app, "keys", resource.TableSpec{
		PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "expires"})
	// Orders to ship, in order per customer (the message group).
	fulfilment := resource.NewQueue(app, "fulfilment", resource.QueueSpec{FIFO: true, ContentBasedDeduplication: true, MaxReceiveCount: 3})
	shipped := resource.NewTopic(app, "shipped")

	orders.Allow(resource.ReadWrite, "place", "fulfil")
	orders.Allow(resource.Read, "order")
	fulfilment.Allow(resource.Send, "place")
	shipped.Allow("fulfil")

	// A retried POST with the same Idempotency-Key gets the first answer
	// (one order, one message); the header is required.
	app.Route("/orders", func(r *framework.Request, in NewOrder) (Order, error) {
		price, ok := prices[in.Item]
		switch {
		case strings.TrimSpace(in.Customer) == "":
			return Order{}, framework.BadRequestError{Message: "give the customer"}
		case !ok:
			return Order{}, framework.BadRequestError{Message: fmt.Sprintf("no item %q: choose tea, cup or teapot", in.Item)}
		case in.Quantity < 1 || in.Quantity > 100:
			return Order{}, framework.BadRequestError{Message: "order 1 to 100 of an item"}
		}
		o := Order{ID: newID(), Customer: in.Customer, Item: in.Item, Quantity: in.Quantity, Total: price * float64(in.Quantity), Status: "placed"}
		if err := place(r.Context(), orders.Name(), fulfilment.URL(), o); err != nil {
			return Order{}, err
		}
		m := framework.Metrics(r.Context())
		m.Count("OrdersPlaced")
		m.Add("OrderValue", o.Total, framework.UnitNone)
		return o, nil
	}, framework.Methods("POST"), framework.Name("place"), framework.Status(201),
		resource.Idempotent(keys, resource.Idempotency{KeyRequired: true}))

	app.Route("/orders/{id}", func(r *framework.Request, id string) (Order, error) {
		return get(r.Context(), orders.Name(), id)
	}, framework.Name("order"))

	// Ships the queued orders, each customer's in order; an order shipped
	// already (a message delivered again) is left out by its id. A failed
	// message is retried, and holds back its customer's later orders.
	app.OnSQSPartialBatch("fulfil", fulfilment.Ref(), func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var res events.SQSEventResponse
		for _, msg := range ev.Records {
			if err := ship(ctx, orders.Name(), shipped.ARN(), msg.Body); err != nil {
				log.Printf("message %s: %v", msg.MessageId, err)
				res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
				continue
			}
			framework.Metrics(ctx).Count("OrdersShipped")
		}
		return res, nil
	}, resource.IdempotentRecords(keys, resource.Idempotency{KeyPath: "id"}))

	// Only the shipped orders of 100 or more: SNS filters by the message
	// attribute total, deployed and under framework local.
	app.OnSNSMessage("bigOrders", shipped.Ref(), func(ctx context.Context, ev events.SNSEvent) error {
		for _, r := range ev.Records {
			var o Order
			if err := json.Unmarshal([]byte(r.SNS.Message), &o); err != nil {
				return fmt.Errorf("message %s: %w", r.SNS.MessageID, err)
			}
			log.Printf("big order %s: %g for %s", o.ID, o.Total, o.Customer)
			framework.Metrics(ctx).Add("BigOrderValue", o.Total, framework.UnitNone)
		}
		return nil
	}, framework.SNSFilter(map[string]any{"total": []any{map[string]any{"numeric": []any{">=", 100}}}}))
	return app
}

// place stores order o and queues it for fulfilment in its customer's
// message group.
func place(ctx context.Context, table, queue string, o Order) error {
	cfg, err := awsConfig()
	if err != nil {
		return err
	}
	_, err = dynamodb.NewFromConfig(cfg).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: itemOf(o)})
	if err != nil {
		return err
	}
	body, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = sqs.NewFromConfig(cfg).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queue),
		MessageGroupId: aws.String(o.Customer), MessageBody: aws.String(string(body))})
	return err
}

// ship marks the order in body shipped and announces it on the topic,
// with its total as a message attribute for the subscriptions' filters.
func ship(ctx context.Context, table, topic, body string) error {
	var o Order
	if err := json.Unmarshal([]byte(body), &o); err != nil || o.ID == "" {
		return fmt.Errorf("not an order: %q", body)
	}
	cfg, err := awsConfig()
	if err != nil {
		return err
	}
	_, err = dynamodb.NewFromConfig(cfg).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: o.ID}},
		UpdateExpression:          aws.String("SET #s = :s"),
		ConditionExpression:       aws.String("attribute_exists(id)"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: "shipped"}},
	})
	if err != nil {
		return err
	}
	o.Status = "shipped"
	msg, err := json.Marshal(o)
	if err != nil {
		return err
	}
	_, err = sns.NewFromConfig(cfg).Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(string(msg)),
		MessageAttributes: map[string]snstypes.MessageAttributeValue{
			"total": {DataType: aws.String("Number"), StringValue: aws.String(strconv.FormatFloat(o.Total, 'f', -1, 64))}}})
	return err
}

func get(ctx context.Context, table, id string) (Order, error) {
	cfg, err := awsConfig()
	if err != nil {
		return Order{}, err
	}
	out, err := dynamodb.NewFromConfig(cfg).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}})
	if err != nil {
		return Order{}, err
	}
	if out.Item == nil {
		return Order{}, framework.NotFoundError{Message: fmt.Sprintf("no order %q", id)}
	}
	return orderOf(out.Item), nil
}

func itemOf(o Order) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"id":       &types.AttributeValueMemberS{Value: o.ID},
		"customer": &types.AttributeValueMemberS{Value: o.Customer},
		"item":     &types.AttributeValueMemberS{Value: o.Item},
		"quantity": &types.AttributeValueMemberN{Value: strconv.Itoa(o.Quantity)},
		"total":    &types.AttributeValueMemberN{Value: strconv.FormatFloat(o.Total, 'f', -1, 64)},
		"status":   &types.AttributeValueMemberS{Value: o.Status},
	}
}

func orderOf(item map[string]types.AttributeValue) Order {
	s := func(k string) string {
		if v, ok := item[k].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	n := func(k string) float64 {
		if v, ok := item[k].(*types.AttributeValueMemberN); ok {
			f, _ := strconv.ParseFloat(v.Value, 64)
			return f
		}
		return 0
	}
	return Order{ID: s("id"), Customer: s("customer"), Item: s("item"), Quantity: int(n("quantity")), Total: n("total"), Status: s("status")}
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func main() { newApp().Run() }
