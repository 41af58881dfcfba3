// Command observed has a queue handler that logs with framework.Logger
// and records a metric with framework.Metrics: invoke --local's tests read
// its lines.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("observed")
	app.OnSQSMessage("orders", "orders", func(ctx context.Context, ev events.SQSEvent) error {
		framework.Logger(ctx).Info("took the batch")
		framework.Metrics(ctx).Count("Batches")
		return nil
	})
	app.Run()
}
