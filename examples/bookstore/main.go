// Command bookstore shows middleware, a route group declared in its own
// package (books), typed JSON handlers and the OpenAPI document that
// `framework openapi` writes from them.
package main

import (
	"github.com/framework-dev/framework/examples/bookstore/internal/books"
	"github.com/framework-dev/framework/framework"
)

// Health is the answer of GET /health.
type Health struct {
	Status string `json:"status"`
	Books  int    `json:"books"`
}

func newApp() *framework.App {
	app := framework.New("bookstore")
	app.Use(framework.RequestLogger(nil), framework.RequestID(""))
	store := books.NewStore()
	app.Route("/health", func(r *framework.Request) (Health, error) {
		return Health{Status: "ok", Books: store.Len()}, nil
	}, framework.Name("health"))
	app.Register("/books", books.Routes(store))
	return app
}

func main() { newApp().Run() }
