// Command crashapp is the app of the error-line tests (errorlog_test.go):
// a route that panics, one that fails, one that answers a ViewError, one
// that logs with log/slog and the log package, and a scheduled handler
// that panics; RequestLogger logs every request. The tests build it as the Lambda package
// is built and run it under the local Runtime API and as the local
// server, and read its stderr.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("crashapp")
	app.Use(framework.RequestLogger(nil), framework.RequestID(""))
	app.Route("/log", func(r *framework.Request) (any, error) {
		slog.InfoContext(r.Context(), "looking up", "user", "ada lovelace")
		log.Printf("plain %s", "log line")
		return "ok", nil
	}, framework.Name("logs"))
	app.Route("/panic/{id}", func(r *framework.Request, id string) (any, error) {
		panic("boom " + id)
	}, framework.Name("explode"))
	app.Route("/fail", func(r *framework.Request) (any, error) {
		return nil, fmt.Errorf("loading the cart: %w", errors.New("connection refused"))
	}, framework.Name("fail"))
	app.Route("/missing", func(r *framework.Request) (any, error) {
		return nil, framework.NotFoundError{Message: "no such thing"}
	}, framework.Name("missing"))
	app.OnSchedule("nightly", framework.Rate(24*time.Hour), func(ctx context.Context, ev events.EventBridgeEvent) error {
		panic("nightly boom")
	})
	app.Run()
}
