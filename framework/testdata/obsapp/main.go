// Command obsapp is the app of the observability tests (observe_test.go):
// a route and an SQS handler that log with framework.Logger and record
// framework.Metrics, and a route whose metrics CloudWatch would refuse.
package main

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("obsapp")
	app.Route("/orders", func(r *framework.Request) (any, error) {
		ctx := r.Context()
		framework.Logger(ctx).Info("order placed", "order", "o-1")
		framework.Logger(ctx).Debug("order detail", "lines", 3)
		m := framework.Metrics(ctx)
		m.Count("OrdersPlaced")
		m.Add("CartValue", 42.5, framework.UnitNone)
		m.Add("CartValue", 7, framework.UnitNone)
		m.Dimension("Channel", "web")
		return map[string]string{"order": "o-1"}, nil
	}, framework.Name("place-order"), framework.Methods("POST"))
	app.Route("/bad-metrics", func(r *framework.Request) (any, error) {
		m := framework.Metrics(r.Context())
		m.Add("Latency", 1, framework.Unit("Secs"))
		for i := range 28 {
			m.Dimension(fmt.Sprintf("D%d", i), "x")
		}
		m.Count("Good")
		return "ok", nil
	}, framework.Name("bad-metrics"))
	app.OnSQSMessage("orders", "orders", func(ctx context.Context, ev events.SQSEvent) error {
		framework.Logger(ctx).Info("messages received", "count", len(ev.Records))
		framework.Metrics(ctx).Add("MessagesProcessed", float64(len(ev.Records)), framework.UnitCount)
		return nil
	})
	app.Run()
}
