package apphook

import "github.com/framework-dev/framework/internal/manifest"

// Guards: a handler's innermost middleware, added by an option that
// package framework/resource builds (resource.Idempotent), together with
// the accesses it needs. They are methods of Guards, which an App also
// is, rather than package variables: the linker drops a method no code
// calls, so an app that uses no guard links none of this.

// Guards builds guards' options; App's value implements it.
type Guards interface {
	// RouteGuard returns a framework.RouteOption (as any) that runs mw, a
	// framework.Middleware, as the route's innermost middleware (after
	// the app's, the group's and the route's own) and grants the route's
	// handler gs; describe, when not nil, adds what the guard asks of
	// clients to the route's manifest entry (Route.Idempotency).
	RouteGuard(mw any, gs []manifest.Grant, describe func(*manifest.Route)) any
	// FunctionGuard returns a framework.FunctionOption (as any) named
	// name, for the handler kinds given, that runs the
	// framework.Middleware mw returns as the function's innermost
	// middleware and grants it gs; partial reports whether the handler
	// reports its failed items (OnSQSPartialBatch).
	FunctionGuard(name string, kinds []manifest.Kind, mw func(partial func() bool) any, gs []manifest.Grant) any
	// AnswerOf is the answer a route's middleware chain gives for what its
	// next returned (resp a *framework.Response); false for an error that
	// is not a framework.ViewError (the pipeline answers it with a 500,
	// and logs it) or a response that cannot be sent.
	AnswerOf(resp any, err error) (Answer, bool)
}

// GuardsOf returns the Guards of app, an App from Of.
func GuardsOf(app App) Guards { return app.(Guards) }

// Answer is a route's answer as the client receives it (before CORS).
type Answer struct {
	Status  int
	Headers []manifest.HeaderField
	Body    []byte
}
