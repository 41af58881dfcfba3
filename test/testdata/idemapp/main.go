// Command idemapp is the app of the idempotency end-to-end test: an
// idempotent POST and an idempotent queue consumer, their records in a
// declared table, served by framework local against an emulator with the
// local IAM check on.
package main

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("idemapp")
	keys := resource.NewTable(app, "keys", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "expires"})
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
	var orders atomic.Int64
	app.Route("/orders", func(r *framework.Request) (any, error) {
		n := orders.Add(1)
		return framework.Response{StatusCode: 201, Headers: map[string]string{"X-Order": fmt.Sprint(n)}, Body: map[string]int64{"order": n}}, nil
	}, framework.Methods("POST"), framework.Name("createOrder"), resource.Idempotent(keys, resource.Idempotency{}))
	app.OnSQSMessage("work", jobs.Ref(), func(ctx context.Context, ev events.SQSEvent) error {
		for _, m := range ev.Records {
			log.Printf("work: processed %s", m.Body)
		}
		return nil
	}, resource.IdempotentRecords(keys, resource.Idempotency{KeyPath: "order"}))
	app.Run()
}
