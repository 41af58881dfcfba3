package framework_test

import (
	"testing"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/framework-dev/framework/framework"
)

// The benchmarks of middleware and typed handlers compare, within one
// Benchmark, the same request served with and without the feature:
//
//   - BenchmarkTypedPost: POST /echo with benchBody decoded by DecodeJSON
//     (untyped) or by a typed handler's strict decoding (typed);
//   - BenchmarkMiddleware: GET / with no middleware (none) and with a
//     chain of three middleware that only call next (three).
//
// Each runs through the local handler and through HandleEvent.

// benchFeature serves c on app through both front doors.
func benchFeature(b *testing.B, app *framework.App, c benchCase) {
	if err := app.Validate(); err != nil {
		b.Fatal(err)
	}
	b.Run("local", func(b *testing.B) { benchHTTP(b, apphook.Of(app).Handler("dev"), c) })
	b.Run("lambda", func(b *testing.B) { benchLambda(b, app, c) })
}

func BenchmarkTypedPost(b *testing.B) {
	b.Run("untyped", func(b *testing.B) {
		app := framework.New("bench")
		app.Route("/echo", echoUntyped, framework.Methods("POST"))
		benchFeature(b, app, benchPost)
	})
	b.Run("typed", func(b *testing.B) {
		app := framework.New("bench")
		app.Route("/echo", func(r *framework.Request, p benchPayload) (benchPayload, error) {
			return p, nil
		}, framework.Methods("POST"))
		benchFeature(b, app, benchPost)
	})
}

func noop(c *framework.Call, next framework.Next) (*framework.Response, error) { return next(c) }

func BenchmarkMiddleware(b *testing.B) {
	for _, n := range []struct {
		name string
		mw   []framework.Middleware
	}{{"none", nil}, {"three", []framework.Middleware{noop, noop, noop}}} {
		b.Run(n.name, func(b *testing.B) {
			app := framework.New("bench")
			app.Use(n.mw...)
			app.Route("/", func(r *framework.Request) (any, error) {
				return map[string]string{"hello": "world"}, nil
			})
			benchFeature(b, app, benchGet)
		})
	}
}
