// Command hello is the smallest app: one route that returns a JSON object.
package main

import "github.com/framework-dev/framework/framework"

func newApp() *framework.App {
	app := framework.New("hello")
	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"hello": "world"}, nil
	})
	return app
}

func main() { newApp().Run() }
