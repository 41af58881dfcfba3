// Command usersfn is the function the access-log end-to-end test runs in
// its stand-in Lambda: a framework app whose route logs with log/slog, so
// that its records carry the request id next to the access lines.
package main

import (
	"log/slog"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("shop")
	app.Route("/users/{name}", func(r *framework.Request, name string) (any, error) {
		slog.InfoContext(r.Context(), "looking up user", "name", name)
		if name == "nobody" {
			return nil, framework.NotFoundError{Message: "no user " + name}
		}
		return map[string]string{"name": name}, nil
	})
	app.Run()
}
