// An S3 handler declared with the SNS event type: it must not compile.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("wrong")
	app.OnS3Event("uploads", "uploads-bucket", func(ctx context.Context, ev events.SNSEvent) error { return nil })
	app.Run()
}
