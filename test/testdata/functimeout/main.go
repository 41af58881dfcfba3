// Command functimeout has a one-second lambda_timeout (its
// .framework/config.json) and a route that runs until its context ends:
// framework local answers it as API Gateway answers a function that
// timed out.
package main

import (
	"time"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("functimeout")
	app.Route("/slow", func(r *framework.Request) (string, error) {
		<-r.Context().Done()
		return "too late", nil
	})
	app.Route("/deadline", func(r *framework.Request) (map[string]any, error) {
		dl, ok := r.Context().Deadline()
		return map[string]any{"has_deadline": ok, "within_ms": time.Until(dl).Milliseconds()}, nil
	})
	app.Run()
}
