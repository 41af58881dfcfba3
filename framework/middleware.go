package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// Call is one call of a handler as middleware sees it: an HTTP request to
// a route, or an event to an event handler or plain function.
type Call struct {
	// Kind is the handler's kind: KindHTTP for a route.
	Kind HandlerKind
	// Handler is the handler's name.
	Handler string
	// RequestID is API Gateway's request ID for a route (the local server
	// makes one up the same way) and the Lambda request ID for an event
	// ("" when the event is delivered outside Lambda).
	RequestID string
	// Request is the HTTP request of a route; nil for an event handler.
	Request *Request
	// Event is the event of an event handler or plain function as Lambda
	// delivers it, JSON; nil for a route.
	Event json.RawMessage

	ctx context.Context
}

// Context returns the call's context.Context: the request's for a route
// (Request.Context), the Lambda context for an event.
func (c *Call) Context() context.Context {
	if c.Request != nil {
		return c.Request.Context()
	}
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// Next runs the rest of a call's handling as middleware sees it: the
// next middleware, or the handler. It returns the response, or the error
// the handler returned before that error becomes an answer.
type Next func(c *Call) (*Response, error)

// Middleware wraps the handling of a call. It may look at or change the
// request, answer early without calling next (an auth check returning
// UnauthorizedError, say), call next and change the response it returns,
// or see the error the handler returned and answer something else. Its
// errors become answers as a handler's do, and a panic in it is a 500 as
// in a handler.
//
// For a route, a handler that returns a plain value (not a Response)
// reaches middleware as a *Response whose Body is that value and whose
// StatusCode is the one that will be sent (200, or the route's Status); it
// is sent as JSON whatever its Go type. A middleware may change the
// response's StatusCode and Headers in place.
//
// For an event handler or plain function, the Response holds the
// handler's result in Body (a json.RawMessage, "null" for a handler
// without one); a middleware may replace the Body, which is then sent as
// JSON, and an error it returns is the invocation's error.
//
//	func requireToken(c *framework.Call, next framework.Next) (*framework.Response, error) {
//		if c.Request.Headers.Get("X-Token") == "" {
//			return nil, framework.UnauthorizedError{Message: "send X-Token"}
//		}
//		return next(c)
//	}
type Middleware func(c *Call, next Next) (*Response, error)

// middlewareKinds are the kinds UseFor accepts.
var middlewareKinds = append([]HandlerKind{KindAll, KindHTTP}, manifest.FunctionKinds()...)

// kindMiddleware is one middleware registered on the app for a kind.
type kindMiddleware struct {
	kind HandlerKind
	mw   Middleware
}

// Use registers middleware for every HTTP route of the app, those of
// registered groups included. Middleware run in the order of registration,
// app middleware first, then group middleware, then the route's own
// (WithMiddleware), and finally the handler.
func (a *App) Use(mw ...Middleware) { a.useFor(KindHTTP, mw) }

// UseFor registers middleware for the handlers of one kind: KindHTTP (as
// Use), an event kind such as KindSQS or KindSchedule, or KindAll for every
// handler of the app. Middleware of the kind's list and of KindAll's run in
// their common order of registration.
//
// Middleware registered for an event kind sees a Call whose Request is nil
// and whose Event is the event; see Middleware.
func (a *App) UseFor(kind HandlerKind, mw ...Middleware) { a.useFor(kind, mw) }

func (a *App) useFor(kind HandlerKind, mws []Middleware) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(middlewareKinds, kind) {
		a.regErrs = append(a.regErrs, fmt.Errorf("middleware at %s: kind %q is unknown: use one of %s", callerAt(2), kind, strings.Join(quoteAll(middlewareKinds), ", ")))
		return
	}
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("middleware at %s: registered after the app started serving; call Use before Run", callerAt(2)))
		return
	}
	for _, m := range mws {
		if m == nil {
			a.regErrs = append(a.regErrs, fmt.Errorf("middleware at %s: a nil Middleware: pass a function", callerAt(2)))
			continue
		}
		a.middleware = append(a.middleware, kindMiddleware{kind, m})
	}
}

// middlewareFor returns the app's middleware for handlers of kind, in the
// order of registration: those registered for kind and for KindAll.
func (a *App) middlewareFor(kind HandlerKind) []Middleware {
	var out []Middleware
	for _, km := range a.middleware {
		if km.kind == kind || km.kind == KindAll {
			out = append(out, km.mw)
		}
	}
	return out
}

// WithMiddleware adds middleware to one route; they run after the app's
// and the group's, in the order given.
func WithMiddleware(mw ...Middleware) RouteOption {
	return RouteOption{func(r *route) {
		for _, m := range mw {
			if m == nil {
				r.optErrs = append(r.optErrs, fmt.Errorf("WithMiddleware: a nil Middleware: pass a function"))
				continue
			}
			r.mw = append(r.mw, m)
		}
	}}
}

// chainHandlers returns final wrapped by mws, the first outermost. The
// chain is built once, at start-up: a request pays one call per middleware.
func chainHandlers(mws []Middleware, final Next) Next {
	h := final
	for _, m := range slices.Backward(mws) {
		next := h
		h = func(c *Call) (*Response, error) { return m(c, next) }
	}
	return h
}

// valueResponse is the Response middleware sees for a handler's return value.
func valueResponse(v any) *Response {
	switch resp := v.(type) {
	case *Response:
		if resp != nil {
			return resp
		}
	case Response:
		return &resp
	}
	return &Response{Body: v, jsonValue: true}
}

// statusOf is the status a handler's response or error answers with.
func statusOf(resp *Response, err error) int {
	if err != nil {
		if ve, _, ok := asViewError(err); ok {
			return ve.StatusCode()
		}
		return 500
	}
	if resp == nil || resp.StatusCode == 0 {
		return 200
	}
	return resp.StatusCode
}

// SetResponseHeader sets a header on the answer to the request, whatever
// it turns out to be: the handler's response, an error's or a 500. It
// replaces a header of the same name (in any case) that the response has.
// Middleware call it before or after next, for headers every answer must
// carry (a request ID, timing).
func (r *Request) SetResponseHeader(name, value string) {
	for i, h := range r.respHeaders {
		if strings.EqualFold(h.Name, name) {
			r.respHeaders[i].Value = value
			return
		}
	}
	r.respHeaders = append(r.respHeaders, manifest.HeaderField{Name: name, Value: value})
}

// withResponseHeaders sets the headers of SetResponseHeader on res.
func withResponseHeaders(req *Request, res *result) *result {
	for _, h := range req.respHeaders {
		res.headers = slices.DeleteFunc(res.headers, func(f manifest.HeaderField) bool { return strings.EqualFold(f.Name, h.Name) })
		res.headers = append(res.headers, h)
	}
	return res
}

func quoteAll[S ~string](s []S) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// chainMiddleware builds the middleware chain of every route that has
// middleware: the app's, the group's, then the route's own.
func (a *App) chainMiddleware() {
	app := a.middlewareFor(KindHTTP)
	for _, r := range a.routes {
		if mws := slices.Concat(app, r.groupMW, r.mw, r.guards); len(mws) > 0 {
			r.chain = chainHandlers(mws, r.finalHandler())
		}
	}
}

// finalHandler is the route's handler as the innermost step of its chain.
func (r *route) finalHandler() Next {
	return func(c *Call) (*Response, error) {
		req := c.Request
		v, err := r.call(req, req.args)
		if req.jsonFailed {
			err = errParsingJSON
		}
		if err != nil {
			return nil, err
		}
		resp := valueResponse(v)
		switch {
		case resp.jsonValue && r.status != 0:
			resp.StatusCode = r.status
		case resp.StatusCode == 0:
			resp.StatusCode = 200
		}
		return resp, nil
	}
}

// isResponse reports whether a handler's value is a Response.
func isResponse(v any) bool {
	switch v.(type) {
	case Response, *Response:
		return true
	}
	return false
}

// valueResult is the result of a Response made by valueResponse: its
// status and headers, and Body sent as JSON.
func (resp *Response) valueResult() (*result, error) {
	plain := *resp
	plain.Body, plain.jsonValue = nil, false
	res, err := plain.toResult()
	if err != nil {
		return nil, err
	}
	if res.body, err = encodeJSON(resp.Body); err != nil {
		return nil, fmt.Errorf("the handler's return value (%T) cannot be encoded as JSON: %w", resp.Body, err)
	}
	res.setDefault("Content-Type", "application/json")
	return res, nil
}
