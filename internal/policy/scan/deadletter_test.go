package scan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/perms"
)

// deadLetterApp is an app whose replay function receives from the orders
// queue's dead-letter queue, with access (resource.Consume or
// resource.Redrive) on the queue.
func deadLetterApp(access string) string {
	return `package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("shop")
	orders := resource.NewQueue(app, "orders", resource.QueueSpec{MaxReceiveCount: 3})
	orders.Allow(resource.` + access + `, "replay")
	app.OnSQSMessage("fulfil", orders.Ref(), func(context.Context, events.SQSEvent) error { return nil })
	framework.LambdaFunction(app, "replay", func(ctx context.Context, _ struct{}) (int, error) {
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return 0, err
		}
		out, err := sqs.NewFromConfig(cfg).ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(orders.DeadLetter().URL())})
		if err != nil {
			return 0, err
		}
		return len(out.Messages), nil
	})
	app.Run()
}
`
}

// TestScanDeadLetterCall: a call whose input names q.DeadLetter().URL()
// targets the queue's dead-letter queue, which only Redrive reaches:
// with Consume it breaks the declaration's ceiling, naming the
// dead-letter queue and the Redrive to add; with Redrive it is covered.
func TestScanDeadLetterCall(t *testing.T) {
	offline(t)
	for _, tc := range []struct{ access, want string }{
		{"Consume", `calls sqs.ReceiveMessage (sqs:ReceiveMessage) on the dead-letter queue of queue "orders", beyond the declared consume`},
		{"Redrive", ""},
	} {
		dir := sdkApp(t, map[string]string{"main.go": deadLetterApp(tc.access)})
		rep, err := Scan(dir)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range rep.Calls {
			if c.Operation == "ReceiveMessage" {
				found = true
				if c.Target == nil || c.Target.Name != "orders" || !c.Target.DeadLetter {
					t.Errorf("ReceiveMessage target %+v, want the dead-letter queue of orders", c.Target)
				}
			}
		}
		if !found {
			t.Fatalf("no ReceiveMessage call found in %s: %+v", dir, rep)
		}
		m, err := build.Manifest(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls})
		var ce *perms.CeilingError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("with %s: %v", tc.access, err)
		case tc.want != "" && (!errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `add orders.Allow(resource.Redrive, "replay")`)):
			t.Errorf("with %s: %v, want %q and the Redrive to add", tc.access, err, tc.want)
		}
	}
}
