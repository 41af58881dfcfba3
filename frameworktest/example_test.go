package frameworktest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// A route: Get (or Do with any method, body and headers) answers as
// `framework local` does; Lambda answers as the deployed REST API does.
func Example_route() {
	app := framework.New("shop")
	app.Route("/items/{id}", func(r *framework.Request, id string) (any, error) {
		if id == "0" {
			return nil, framework.NotFoundError{Message: "no item 0"}
		}
		return map[string]string{"id": id}, nil
	})
	c := frameworktest.New(app)

	resp := c.Get("/items/42", nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	resp = c.Lambda("GET", "/items/0", nil, nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	resp = c.Get("/nowhere", nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	// Output:
	// 200 {"id":"42"}
	// 404 {"Code":"NotFoundError","Message":"no item 0"}
	// 403 {"message":"Missing Authentication Token"}
}

// An SQS handler that reports its failed messages: SQS sends one batch, a
// message per body (MessageIds "message-1", "message-2", ...), and returns
// the MessageIds the handler reported as failed.
func Example_sqsBatch() {
	app := framework.New("shop")
	app.OnSQSPartialBatch("orders", "orders", func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var res events.SQSEventResponse
		for _, m := range ev.Records {
			if strings.Contains(m.Body, "broken") {
				res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return res, nil
	})
	c := frameworktest.New(app)

	failed, err := c.SQS("orders", `{"sku":"a"}`, `{"sku":"broken"}`)
	fmt.Println(failed, err)
	// Output:
	// [message-2] <nil>
}

// A scheduled handler: Schedule sends one tick, the event EventBridge
// sends when the rule fires; an error is the invocation's error.
func Example_schedule() {
	app := framework.New("shop")
	runs := 0
	app.OnSchedule("nightly", framework.Rate(24*time.Hour), func(ctx context.Context, ev events.EventBridgeEvent) error {
		runs++
		if runs > 1 {
			return errors.New("already cleaned")
		}
		return nil
	})
	c := frameworktest.New(app)

	fmt.Println(c.Schedule("nightly"))
	fmt.Println(c.Schedule("nightly"))
	// Output:
	// <nil>
	// already cleaned
}

// A plain function: Function encodes in as the event and decodes the
// result into out.
func Example_function() {
	type Order struct{ Items, PriceCents int }
	app := framework.New("shop")
	framework.LambdaFunction(app, "total", func(ctx context.Context, o Order) (int, error) {
		return o.Items * o.PriceCents, nil
	})
	c := frameworktest.New(app)

	var total int
	err := c.Function("total", Order{Items: 3, PriceCents: 250}, &total)
	fmt.Println(total, err)
	// Output:
	// 750 <nil>
}
