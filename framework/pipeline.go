package framework

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// The request pipeline: the one path every request takes, whether it came
// from API Gateway through the Lambda adapter (lambda.go) or from the local
// server (local.go). It starts once the route and method are known.

// unsupportedMediaType answers a request whose Content-Type the route does not accept.
func unsupportedMediaType() *result {
	return jsonResult(415, map[string]string{"message": "Unsupported Media Type"})
}

// serveRoute runs route's handler for req and returns the response,
// with the path's CORS headers added.
func (a *App) serveRoute(t *routeTable, e *pathEntry, route *route, req *Request, args []string) *result {
	res := withCORS(e, a.invoke(t, route, req, args))
	if res.stream != nil {
		res.stream.entry = e
	}
	return res
}

func (a *App) invoke(t *routeTable, route *route, req *Request, args []string) (res *result) {
	ct := req.Headers.Get("content-type")
	if ct == "" {
		ct = "application/json"
	}
	if !route.contentTypes().matchesAny(ct) {
		return unsupportedMediaType()
	}
	if len(args) > 0 {
		req.URIParams = make(map[string]string, len(args))
		for i, name := range route.captures {
			req.URIParams[name] = args[i]
		}
	}
	var inv *invocation
	req.ctx, inv = a.observe(req.ctx, req, KindHTTP, route.Name, names.APIHandlerName)
	defer func() {
		if res != nil && res.stream != nil {
			// The invocation lasts as long as the stream: its body may
			// record metrics, written when it ends (streamRun.run).
			res.stream.inv = inv
			return
		}
		inv.finish()
	}()
	defer func() {
		if p := recover(); p != nil {
			res = a.internalError(route, req, fmt.Errorf("panic: %v", p), debug.Stack())
		}
		if len(req.respHeaders) > 0 {
			res = withResponseHeaders(req, res)
		}
	}()
	var v any
	var err error
	if route.chain != nil {
		req.args = args
		v, err = route.chain(&Call{Kind: KindHTTP, Handler: route.Name, RequestID: req.GatewayContext.RequestID, Request: req})
	} else {
		v, err = route.call(req, args)
		if req.jsonFailed {
			err = errParsingJSON
		}
	}
	if err != nil {
		if ve, code, ok := asViewError(err); ok {
			return jsonResult(ve.StatusCode(), errorBody{Code: code, Message: ve.Error()})
		}
		return a.internalError(route, req, err, nil)
	}
	res, err = toResult(v)
	if err != nil {
		return a.internalError(route, req, err, nil)
	}
	if route.status != 0 && route.chain == nil && !isResponse(v) {
		res.status = route.status
	}
	if res.stream != nil {
		return a.streamResult(route, req, res)
	}
	if respType, ok := res.header("Content-Type"); ok && len(t.binary) > 0 && t.binary.has(mediaType(respType)) {
		accept := req.Headers.Get("accept")
		// Only a REST API needs the Accept header to decode a binary body,
		// and it looks at the header's first media type only; an HTTP API
		// and a function URL always decode it (frontdoor.go).
		if req.door == doorREST && !t.binary.acceptsFirst(accept) {
			return jsonResult(400, errorBody{Code: "BadRequest", Message: fmt.Sprintf(
				"The response has the binary Content-Type %s, so the request must send an Accept header whose first media type names it (or another binary type, or */*): API Gateway looks at the first one only; the request's Accept header was %s.",
				mediaType(respType), quoteCut(accept))})
		}
		res.binary = true
	}
	if !res.binary && !utf8.Valid(res.body) {
		return a.internalError(route, req, notUTF8(res), nil)
	}
	return res
}

// internalError answers an uncaught error (a panic when stack is not nil):
// generic JSON, or with Debug on the error and its stack trace as text.
// Either way it writes the error line (logUncaught).
func (a *App) internalError(route *route, req *Request, err error, stack []byte) *result {
	a.logUncaught(route, req, err, stack)
	return a.internalAnswer(route, req, err, stack)
}

// internalAnswer is internalError's answer, without the error line.
func (a *App) internalAnswer(route *route, req *Request, err error, stack []byte) *result {
	if !a.Debug {
		return jsonResult(500, errorBody{Code: "FrameworkViewError", Message: internalErrorMessage})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Uncaught error in handler %q for %s %s\n\n", route.Name, req.Method, route.Path)
	for e := err; e != nil; e = errors.Unwrap(e) {
		fmt.Fprintf(&b, "%T: %s\n", e, e.Error())
	}
	if stack == nil {
		stack = debug.Stack()
	}
	b.WriteString("\nTraceback:\n")
	b.Write(stack)
	return &result{status: 500, headers: []manifest.HeaderField{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}}, body: []byte(b.String())}
}

func (r *route) contentTypes() typeSet { return r.ctSet }

// maxQuoted is the most of the request's own text an answer quotes back.
const maxQuoted = 160

// quoteCut quotes s as %q does; when s is longer than maxQuoted bytes, it
// quotes only its start (cut on a character boundary) and says how many
// bytes it left out, so that an answer naming what the client sent stays
// small whatever the client sent.
func quoteCut(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%q... (%d more bytes)", s[:n], len(s)-n)
}

// notUTF8 is the error of a response whose body is not valid UTF-8 under
// a Content-Type that is not binary: deployed, the Lambda adapter must send
// such a body to API Gateway as a string, which would mangle it, so both
// front doors refuse it.
func notUTF8(res *result) error {
	ct, _ := res.header("Content-Type")
	mt := mediaType(ct)
	if mt == "" {
		mt = "(none)"
	}
	return fmt.Errorf("the response body is not valid UTF-8 text but its Content-Type %s is not a binary type, so API Gateway would receive it mangled: add %q to App.API.BinaryTypes (and send an Accept header naming it), or return text", mt, mt)
}
