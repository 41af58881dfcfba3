// An SQS handler that forgot the context: it must not compile.
package main

import (
	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("wrong")
	app.OnSQSMessage("orders", "orders", func(ev events.SQSEvent) error { return nil })
	app.Run()
}
