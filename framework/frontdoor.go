package framework

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/internal/manifest"
)

// The front doors other than the REST API: API Gateway's HTTP API and
// Lambda function URLs. Both send the function the payload format 2.0
// event (events.APIGatewayV2HTTPRequest) and take the 2.0 response; this
// file translates them into the one request pipeline and back, and gives
// the answers of their own that differ from the REST API's (gateway.go).
//
// How a 2.0 event maps onto Request:
//
//   - Method: requestContext.http.method. Path: rawPath, percent-decoded.
//   - Headers: the event's headers, names lower-case. A repeated header
//     arrives as one value, its values joined by commas (the 2.0 event has
//     no multi-value headers). The cookies field becomes one Cookie header,
//     the cookies joined by "; ", as the client sent them.
//   - QueryParams: parsed from rawQueryString, so a repeated key keeps each
//     of its values (the event's queryStringParameters join them by commas).
//   - URIParams: the route's captures, matched on rawPath.
//   - GatewayContext: apiId, requestId, stage, the route's path pattern as
//     ResourcePath, sourceIp and userAgent, and for an IAM-authorized
//     request the caller's access key, account, user ARN and caller id.
//     ResourceID is empty (a 2.0 event has none). Authorizer holds what a
//     JWT authorizer ({"claims":..., "scopes":...}) or a Lambda authorizer
//     (its context) passed on.
//
// The 2.0 response: headers with several values (Response.MultiValueHeaders)
// are joined by commas into one, except Set-Cookie, whose values go to the
// cookies field; a binary body is base64-encoded with isBase64Encoded, and
// both front doors decode it whatever the request's Accept header says.

// Front doors, as config.json's api_type and the local server know them.
const (
	doorREST        = ""
	doorHTTP        = "http"
	doorFunctionURL = "function_url"
)

// functionURLMaxBody is the largest request body a function URL passes
// on: Lambda's 6 MB limit on a synchronous invocation's payload.
const functionURLMaxBody = 6 << 20

// maxBodyFor returns the largest request body the front door accepts.
func maxBodyFor(door string) int64 {
	if door == doorFunctionURL {
		return functionURLMaxBody
	}
	return maxBodyBytes
}

// The front doors' integration timeouts: a REST API ends a request whose
// integration has not answered after 29 s (its maximum by default), an
// HTTP API after 30 s. A function URL has none: the function's own
// timeout (lambda_timeout) ends it.
const (
	restIntegrationTimeout = 29 * time.Second
	httpIntegrationTimeout = 30 * time.Second
)

// integrationTimeout returns the front door's integration timeout, 0 for none.
func integrationTimeout(door string) time.Duration {
	switch door {
	case doorREST:
		return restIntegrationTimeout
	case doorHTTP:
		return httpIntegrationTimeout
	}
	return 0
}

// timedOut is the front door's answer to a request whose integration
// timed out: a REST API's INTEGRATION_TIMEOUT gateway response (504),
// an HTTP API's 503.
func timedOut(door string) *result {
	ct := []manifest.HeaderField{{Name: "Content-Type", Value: "application/json"}}
	if door == doorHTTP {
		return &result{status: 503, headers: ct, body: []byte(`{"message":"Service Unavailable"}`)}
	}
	return &result{status: 504, headers: ct, body: []byte(`{"message": "Endpoint request timed out"}`)}
}

// functionTimedOut is the front door's answer to a request whose
// function timed out (its lambda_timeout) before the front door's own
// timeout: Lambda reports the invocation as failed, so a REST API
// answers 502 {"message": "Internal server error"} (the Lambda Developer
// Guide, "Handling Lambda errors with an API Gateway API"), an HTTP API
// 500 {"message":"Internal Server Error"} (API Gateway's "Troubleshooting
// issues with HTTP API Lambda integrations"), a function URL 502
// "Internal Server Error" (AWS does not document it; that is what a
// function URL answers a failed invocation with).
func functionTimedOut(door string) *result {
	ct := []manifest.HeaderField{{Name: "Content-Type", Value: "application/json"}}
	switch door {
	case doorHTTP:
		return &result{status: 500, headers: ct, body: []byte(`{"message":"Internal Server Error"}`)}
	case doorFunctionURL:
		return &result{status: 502, headers: []manifest.HeaderField{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}}, body: []byte("Internal Server Error")}
	}
	return &result{status: 502, headers: ct, body: []byte(`{"message": "Internal server error"}`)}
}

// maxHeaderBytes is API Gateway's quota on the total size of a request's
// request line and header values, for REST and HTTP APIs alike.
const maxHeaderBytes = 10240

// maxHeaderFor returns the largest request line and header values the
// front door accepts, 0 for no limit of its own (a function URL).
func maxHeaderFor(door string) int {
	if door == doorFunctionURL {
		return 0
	}
	return maxHeaderBytes
}

// headersTooLarge is the answer to a request over maxHeaderBytes: 431
// (RFC 6585), API Gateway documenting the limit but not its answer.
func headersTooLarge() *result {
	return jsonResult(431, map[string]string{"message": "Request Header Fields Too Large"})
}

// notFound is the HTTP API's answer to a request no route matches, which
// the function also gives behind a function URL, where it is the router.
func notFound() *result {
	return jsonResult(404, map[string]string{"message": "Not Found"})
}

// routeAnswerFor is routeAnswer for the front door: an HTTP API (and the
// function behind a function URL) answers an unknown route or method 404
// {"message":"Not Found"} where the REST API answers 403.
func routeAnswerFor(door string, e *pathEntry, method string) (*result, *route) {
	res, route := routeAnswer(e, method)
	if res != nil && door != doorREST && res.status == 403 {
		return notFound(), nil
	}
	return res, route
}

// gatewayAnswerFor is gatewayAnswer for the front door. Behind an HTTP API
// or a function URL, a missing signature on an IAM-authorized route is 403
// {"message":"Forbidden"}.
func gatewayAnswerFor(door string, e *pathEntry, req *Request) (*result, *route) {
	if door == doorREST {
		return gatewayAnswer(e, req)
	}
	res, route := routeAnswerFor(door, e, req.Method)
	if res != nil {
		return res, nil
	}
	if a := route.authorizerDecl; a != nil && a.Type == manifest.AuthorizerIAM && req.Headers.Get("authorization") == "" {
		return jsonResult(403, map[string]string{"message": "Forbidden"}), nil
	}
	res, route = gatewayAnswer(e, req)
	return res, route
}

// isV2Event reports whether a Lambda payload is a payload format 2.0
// event (HTTP API or function URL) rather than a REST API proxy event. A
// quoted key cannot occur inside a JSON string value, whose quotes are
// escaped, so only the event's own keys match.
func isV2Event(event []byte) bool {
	return bytes.Contains(event, []byte(`"rawPath"`)) && bytes.Contains(event, []byte(`"routeKey"`)) && !bytes.Contains(event, []byte(`"httpMethod"`))
}

// dispatchV2 answers one 2.0 event of the API's function.
func (a *App) dispatchV2(ctx context.Context, event []byte) ([]byte, error) {
	serve := a.handleEventV2
	if a.apiEventsV2 != nil {
		serve = a.apiEventsV2
	}
	return dispatchAPIEvent(a, ctx, event, serve)
}

// handleEventV2 answers one payload format 2.0 event through the same
// pipeline as handleEvent.
func (a *App) handleEventV2(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return toV2Response(a.resultV2(ctx, ev)), nil
}

// resultV2 is the answer to a 2.0 event, before it is encoded.
func (a *App) resultV2(ctx context.Context, ev events.APIGatewayV2HTTPRequest) *result {
	t, err := a.compiled()
	if err != nil {
		return &result{status: 500, headers: []manifest.HeaderField{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}}, body: []byte(err.Error())}
	}
	door := eventDoor(&ev)
	req, body, ok := eventRequestV2(ctx, ev)
	if !ok {
		return jsonResult(400, errorBody{Code: "BadRequest", Message: "the event's body is marked base64-encoded but is not valid base64"})
	}
	req.RawBody, req.door = body, door
	e, args := t.eventEntryV2(&ev)
	// An HTTP API answers unknown routes itself; behind a function URL the
	// function is the router and gives the same answer.
	res, route := routeAnswerFor(door, e, req.Method)
	if res == nil {
		req.GatewayContext.ResourcePath = e.pattern
		res = a.serveRoute(t, e, route, req, args)
	}
	return res
}

// eventDoor tells an HTTP API's event from a function URL's: a function
// URL has no routes, so its route key is always $default, and its domain
// is <url-id>.lambda-url.<region>.on.aws.
func eventDoor(ev *events.APIGatewayV2HTTPRequest) string {
	if strings.Contains(ev.RequestContext.DomainName, ".lambda-url.") {
		return doorFunctionURL
	}
	return doorHTTP
}

// eventEntryV2 finds the path entry of a 2.0 event: by its route key when
// the HTTP API matched a route, else by its raw path.
func (t *routeTable) eventEntryV2(ev *events.APIGatewayV2HTTPRequest) (*pathEntry, []string) {
	if _, pattern, ok := strings.Cut(ev.RouteKey, " "); ok {
		if e := t.byPattern[pattern]; e != nil {
			if len(e.captures) == 0 {
				return e, nil
			}
			args := make([]string, len(e.captures))
			for i, name := range e.captures {
				args[i] = ev.PathParameters[name] // already percent-decoded
			}
			return e, args
		}
	}
	p := ev.RawPath
	if p == "" {
		p = "/"
	}
	return t.match(p)
}

// eventRequestV2 builds the Request of a 2.0 event; ok is false when the
// body is marked base64-encoded and is not.
func eventRequestV2(ctx context.Context, event events.APIGatewayV2HTTPRequest) (*Request, []byte, bool) {
	box := &struct {
		req Request
		ev  events.APIGatewayV2HTTPRequest
	}{ev: event}
	ev, req := &box.ev, &box.req
	h := &ev.RequestContext.HTTP
	req.Method, req.ctx, req.eventV2 = strings.ToUpper(h.Method), ctx, ev
	req.Path = ev.RawPath
	if u, err := url.PathUnescape(ev.RawPath); err == nil {
		req.Path = u
	}
	req.Headers = make(Headers, len(ev.Headers)+1)
	for k, v := range ev.Headers {
		lk := strings.ToLower(k)
		req.Headers[lk] = append(req.Headers[lk], v)
	}
	if len(ev.Cookies) > 0 {
		req.Headers["cookie"] = []string{strings.Join(ev.Cookies, "; ")}
	}
	if ev.RawQueryString != "" {
		req.QueryParams = parseQuery(ev.RawQueryString)
	} else {
		req.QueryParams = eventQuery(ev.QueryStringParameters, false)
	}
	if len(ev.StageVariables) > 0 {
		req.StageVars = ev.StageVariables
	}
	rc := &ev.RequestContext
	req.GatewayContext = RequestContext{
		APIID: rc.APIID, HTTPMethod: req.Method, RequestID: rc.RequestID, Stage: rc.Stage,
		Identity: Identity{SourceIP: strOrNil(h.SourceIP), UserAgent: strOrNil(h.UserAgent)},
	}
	if az := rc.Authorizer; az != nil {
		switch {
		case az.IAM != nil:
			id := &req.GatewayContext.Identity
			id.AccessKey, id.AccountID, id.UserArn, id.Caller = strOrNil(az.IAM.AccessKey), strOrNil(az.IAM.AccountID), strOrNil(az.IAM.UserARN), strOrNil(az.IAM.CallerID)
		case az.JWT != nil:
			req.GatewayContext.Authorizer = map[string]any{"claims": az.JWT.Claims, "scopes": az.JWT.Scopes}
		case az.Lambda != nil:
			req.GatewayContext.Authorizer = az.Lambda
		}
	}
	if ev.Body == "" {
		return req, nil, true
	}
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		return req, b, err == nil
	}
	return req, []byte(ev.Body), true
}

// toV2Response encodes a result as the 2.0 response: Set-Cookie values in
// cookies, other repeated headers joined by commas, a binary body
// base64-encoded.
func toV2Response(res *result) events.APIGatewayV2HTTPResponse {
	if res.stream != nil {
		res = res.buffered()
	}
	return encodeV2(res)
}

// encodeV2 is toV2Response of a result whose stream, if any, is left
// alone: its status and headers.
func encodeV2(res *result) events.APIGatewayV2HTTPResponse {
	out := events.APIGatewayV2HTTPResponse{StatusCode: res.status, Headers: make(map[string]string, len(res.headers))}
	for _, h := range res.headers {
		if strings.EqualFold(h.Name, "Set-Cookie") {
			out.Cookies = append(out.Cookies, h.Value)
			continue
		}
		if prev, ok := out.Headers[h.Name]; ok {
			out.Headers[h.Name] = prev + "," + h.Value
		} else {
			out.Headers[h.Name] = h.Value
		}
	}
	out.Body, out.IsBase64Encoded = res.encodedBody()
	return out
}

// HTTPEvent returns the payload format 2.0 event the request came from
// behind an HTTP API or a function URL, for what Request does not carry
// (the route key, requestContext.domainName, the cookies as sent); nil
// behind a REST API or when served locally. Treat it as read-only.
func (r *Request) HTTPEvent() *events.APIGatewayV2HTTPRequest { return r.eventV2 }

// accessLoggedV2 is accessLogged for 2.0 events.
func (a *App) accessLoggedV2(access io.Writer) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return logAccess(access, a.handleEventV2, func(ev events.APIGatewayV2HTTPRequest, resp events.APIGatewayV2HTTPResponse) (*events.APIGatewayProxyRequest, int) {
		_, resource, _ := strings.Cut(ev.RouteKey, " ")
		if resource == "" { // a function URL's $default: the function routed it
			if t, err := a.compiled(); err == nil {
				if e, _ := t.match(ev.RawPath); e != nil {
					resource = e.pattern
				}
			}
		}
		return &events.APIGatewayProxyRequest{HTTPMethod: ev.RequestContext.HTTP.Method, Resource: resource, Path: ev.RawPath,
			RequestContext: events.APIGatewayProxyRequestContext{RequestID: ev.RequestContext.RequestID}}, resp.StatusCode
	})
}

// joinRepeatedHeaders gives each header one value, its values joined by
// commas, as a 2.0 event carries them, so that the local server hands the
// handler what the deployed front door would.
func joinRepeatedHeaders(h Headers) {
	for k, v := range h {
		if len(v) > 1 {
			h[k] = []string{strings.Join(v, ",")}
		}
	}
}

// asV2Result returns res with its headers as a 2.0 response delivers them
// to the client: the repeated ones joined by commas, each Set-Cookie its
// own header.
func asV2Result(res *result) *result {
	out := encodeV2(res)
	if len(out.Headers) == len(res.headers)-len(out.Cookies) {
		return res // no header repeated
	}
	joined := *res
	joined.headers = make([]manifest.HeaderField, 0, len(out.Headers)+len(out.Cookies))
	for _, h := range res.headers {
		if strings.EqualFold(h.Name, "Set-Cookie") {
			joined.headers = append(joined.headers, h)
		} else if v, ok := out.Headers[h.Name]; ok {
			joined.headers = append(joined.headers, manifest.HeaderField{Name: h.Name, Value: v})
			delete(out.Headers, h.Name)
		}
	}
	return &joined
}

// gatewayEventV2 returns the 2.0 event the deployed front door (apiType
// http or function_url) would send the function for a request: target is
// the path, still percent-encoded, with an optional query string. Header
// names are lower-cased and a Cookie header becomes the cookies field, as
// the front doors do; behind an HTTP API the route key and path parameters
// come from the route table ($default when no route matches), behind a
// function URL the route key is always $default. A body whose
// Content-Type is one of App.API.BinaryTypes, or that is not UTF-8 text,
// is base64-encoded.
func (a *App) gatewayEventV2(method, target string, body []byte, headers map[string]string, stage, apiType string) events.APIGatewayV2HTTPRequest {
	u, err := url.Parse(target)
	if err != nil {
		u = &url.URL{Path: target}
	}
	domain := "testapi.execute-api.us-east-1.amazonaws.com"
	if apiType == doorFunctionURL {
		domain, stage = "testurl.lambda-url.us-east-1.on.aws", "$default"
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: u.EscapedPath(), RawQueryString: u.RawQuery, Headers: map[string]string{},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey: "$default", APIID: "testapi", RequestID: "test-request", Stage: stage, DomainName: domain,
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: u.Path, Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: "framework-testclient"},
		},
	}
	for k, v := range headers {
		if strings.EqualFold(k, "Cookie") {
			for _, c := range strings.Split(v, ";") {
				ev.Cookies = append(ev.Cookies, strings.TrimSpace(c))
			}
			continue
		}
		ev.Headers[strings.ToLower(k)] = v
	}
	if q := parseQuery(u.RawQuery); q != nil {
		ev.QueryStringParameters = map[string]string{}
		for k, v := range q {
			ev.QueryStringParameters[k] = strings.Join(v, ",")
		}
	}
	t, err := a.compiled()
	if err != nil {
		return ev
	}
	if apiType != doorFunctionURL {
		m := strings.ToUpper(method)
		// The HTTP API has the declared methods' routes, and OPTIONS on a
		// CORS path (the function answers the preflight).
		if e, args := t.match(u.EscapedPath()); e != nil && (e.methods[m] != nil || m == "OPTIONS" && e.cors != nil) {
			ev.RouteKey = m + " " + e.pattern
			ev.RequestContext.RouteKey = ev.RouteKey
			for i, name := range e.captures {
				if ev.PathParameters == nil {
					ev.PathParameters = map[string]string{}
				}
				ev.PathParameters[name] = args[i]
			}
		}
	}
	if body != nil {
		ev.Body, ev.IsBase64Encoded = eventBody(body, t.binary.has(mediaType(headers[headerKey(headers, "Content-Type")])) || !utf8.Valid(body))
	}
	return ev
}

// gatewayAnswerV2 returns the answer the front door gives ev itself, before
// the function runs, and true; or nil and false when ev goes on to the
// function. An HTTP API answers an unknown route 404, an IAM-authorized
// route without a signature 403 and a body over 10 MB 413; a function URL
// answers only a body over Lambda's 6 MB payload limit (413), the function
// answering everything else.
func (a *App) gatewayAnswerV2(ev events.APIGatewayV2HTTPRequest) (*events.APIGatewayV2HTTPResponse, bool) {
	t, err := a.compiled()
	if err != nil {
		return nil, false
	}
	door := eventDoor(&ev)
	if bodyOver(ev.Body, ev.IsBase64Encoded, maxBodyFor(door)) {
		out := toV2Response(tooLarge())
		return &out, true
	}
	if door == doorFunctionURL {
		return nil, false
	}
	req, _, _ := eventRequestV2(context.Background(), ev)
	e, _ := t.eventEntryV2(&ev)
	if ev.RouteKey == "$default" {
		e = nil // no route matched: the HTTP API answers
	}
	res, _ := gatewayAnswerFor(door, e, req)
	if res == nil {
		return nil, false
	}
	out := toV2Response(res)
	return &out, true
}
