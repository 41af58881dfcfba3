package framework

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// API Gateway's own answers.
//
// Deployed, API Gateway answers some requests itself before the function
// runs. This file is the only place that gives those answers, for the
// local server, for handleEvent (which answers the unknown routes and
// preflights of events not sent by the deployed API) and for test clients
// (GatewayEvent, GatewayAnswer, GatewayBody):
//
//   - an unknown path, or a method the path does not declare: 403
//     {"message":"Missing Authentication Token"} (API Gateway's answer for
//     both; the deployed API defines exactly the declared methods);
//   - OPTIONS on a CORS route: the preflight answer, 200 with
//     Access-Control-Allow-Methods listing the route's methods and OPTIONS;
//   - a route with APIKeyRequired and no X-Api-Key header: 403
//     {"message":"Forbidden"}. Locally any non-empty key is accepted: there
//     is no usage plan to check it against;
//   - a route with a RoleAuthorizer and no Authorization header: 403
//     {"message":"Missing Authentication Token"}; the signature itself is
//     not verified locally;
//   - a route with a UserPoolAuthorizer or CustomAuthorizer and no token
//     header: 401 {"message":"Unauthorized"}; the token itself is not
//     validated locally (no user pool or authorizer function is called);
//   - a route with an AppAuthorizer: 401 {"message":"Unauthorized"} when
//     its token header or an identity source is missing, else whatever the
//     authorizer decides (appauth_gateway.go);
//   - a body over maxBodyBytes: 413 {"message":"Request Too Long"};
//   - when every CORS route shares one setting, each of those error
//     answers (and an app authorizer's refusal) carries its CORS headers,
//     on every path, as the deployed API's gateway responses do
//     (routeTable.withGatewayCORS);
//   - locally, a body the server cannot read to its end (a malformed chunk,
//     fewer bytes than Content-Length, the connection closed mid-body): 400
//     {"message":"Bad Request: the request body could not be read: ..."}
//     and the connection is closed. The handler does not run: API Gateway
//     never passes such a request on.

// maxBodyBytes is the largest request body accepted, as in API Gateway (10 MB).
const maxBodyBytes = 10 << 20

// tooLarge is the answer to a body over maxBodyBytes.
func tooLarge() *result {
	return jsonResult(413, map[string]string{"message": "Request Too Long"})
}

// unreadableBody is the local server's answer to a request whose body it
// could not read to its end: err says why.
func unreadableBody(err error) *result {
	return jsonResult(400, map[string]string{"message": "Bad Request: the request body could not be read: " + err.Error()})
}

// routeAnswer returns API Gateway's answer when the matched path entry e
// (nil when no path matched) has no route for method, else the route.
func routeAnswer(e *pathEntry, method string) (*result, *route) {
	if e == nil {
		return missingAuthToken(), nil
	}
	if route := e.methods[method]; route != nil {
		return nil, route
	}
	if method == "OPTIONS" && e.cors != nil {
		return preflight(e), nil
	}
	return missingAuthToken(), nil
}

// gatewayAnswer returns API Gateway's own answer to req for the matched path
// entry e (nil when no route matched), or nil and the route when the
// request goes on to the function. Its CORS headers are the API's, not the
// path's: a REST API's gateway responses carry the one setting every CORS
// route shares, or none when they differ (routeTable.withGatewayCORS); an
// HTTP API or a function URL adds none to its own refusals.
func gatewayAnswer(e *pathEntry, req *Request) (*result, *route) {
	res, route := routeAnswer(e, req.Method)
	if res != nil {
		return res, nil
	}
	if route.APIKeyRequired && req.Headers.Get("x-api-key") == "" {
		return jsonResult(403, map[string]string{"message": "Forbidden"}), nil
	}
	if a := route.authorizerDecl; a != nil {
		switch a.Type {
		case manifest.AuthorizerIAM:
			if req.Headers.Get("authorization") == "" {
				return missingAuthToken(), nil
			}
		case manifest.AuthorizerApp:
			if identityMissing(a, req) {
				return unauthorized(), nil
			}
		default:
			if req.Headers.Get(a.Header) == "" {
				return jsonResult(401, map[string]string{"message": "Unauthorized"}), nil
			}
		}
	}
	return nil, route
}

// withCORS adds the path's CORS headers, as the function's answers get
// them.
func withCORS(e *pathEntry, res *result) *result {
	for _, h := range e.corsHeaders {
		res.setDefault(h.Name, h.Value)
	}
	return res
}

func missingAuthToken() *result {
	return jsonResult(403, map[string]string{"message": "Missing Authentication Token"})
}

// preflight is the answer to OPTIONS on a CORS path: the route's methods
// followed by OPTIONS, and the CORS headers.
func preflight(e *pathEntry) *result {
	return &result{status: 200, headers: append([]manifest.HeaderField(nil), e.preflightHeaders...)}
}

// eventEntry finds the path entry of an event and its decoded capture
// values: by the event's resource when it has one, as API Gateway already
// matched the path, else by its path.
func (t *routeTable) eventEntry(ev *events.APIGatewayProxyRequest) (*pathEntry, []string) {
	if ev.Resource == "" {
		return t.match(escapePath(ev.Path))
	}
	e := t.byPattern[ev.Resource]
	if e == nil || len(e.captures) == 0 {
		return e, nil
	}
	args := make([]string, len(e.captures))
	for i, name := range e.captures {
		args[i] = unescapeSegment(ev.PathParameters[name])
	}
	return e, args
}

// gatewayEvent returns the API Gateway REST API proxy event the deployed API
// would send the function for a request: target is the path, still
// percent-encoded, with an optional query string; the event's path is as
// encoded as target's, as API Gateway passes it on; headers are sent as
// given. The event's resource and path parameters come from the route
// table (left empty when no route matches or the declarations are invalid),
// a body whose Content-Type is one of App.API.BinaryTypes is
// base64-encoded, and the request context carries stage and sample IDs.
func (a *App) gatewayEvent(method, target string, body []byte, headers map[string]string, stage string) events.APIGatewayProxyRequest {
	u, err := url.Parse(target)
	if err != nil {
		u = &url.URL{Path: target}
	}
	ev := events.APIGatewayProxyRequest{
		HTTPMethod: method, Path: u.EscapedPath(), Headers: map[string]string{}, MultiValueHeaders: map[string][]string{},
		RequestContext: events.APIGatewayProxyRequestContext{
			APIID: "testapi", HTTPMethod: method, RequestID: "test-request", ResourceID: "res123", Stage: stage,
			Identity: events.APIGatewayRequestIdentity{SourceIP: "127.0.0.1", UserAgent: "framework-testclient"},
		},
	}
	for k, v := range headers {
		ev.Headers[k] = v
		ev.MultiValueHeaders[k] = []string{v}
	}
	if q := parseQuery(u.RawQuery); q != nil {
		ev.MultiValueQueryStringParameters = q
		ev.QueryStringParameters = map[string]string{}
		for k, v := range q {
			ev.QueryStringParameters[k] = v[len(v)-1]
		}
	}
	t, err := a.compiled()
	if err != nil {
		return ev
	}
	if e, _ := t.match(u.EscapedPath()); e != nil {
		ev.Resource, ev.RequestContext.ResourcePath = e.pattern, e.pattern
		segs := strings.Split(u.EscapedPath(), "/")
		for i, p := range strings.Split(e.pattern, "/") {
			if strings.HasPrefix(p, "{") && i < len(segs) {
				if ev.PathParameters == nil {
					ev.PathParameters = map[string]string{}
				}
				ev.PathParameters[strings.Trim(p, "{}")] = segs[i]
			}
		}
	}
	if body != nil {
		ev.Body, ev.IsBase64Encoded = eventBody(body, t.binary.has(mediaType(ev.Headers[headerKey(ev.Headers, "Content-Type")])))
	}
	return ev
}

// gatewayAnswerOf returns the answer API Gateway gives ev itself, before the
// function runs, and true; or nil and false when ev goes on to the
// function (and to handleEvent). The answers are the 403 of an unknown
// route or method, the CORS preflight, and the 403 or 401 of a route whose
// API key or authorizer header is missing (the key, signature or token
// itself is not checked), and the 413 of a body over maxBodyBytes. With invalid declarations it returns false:
// handleEvent answers 500 with the errors.
func (a *App) gatewayAnswerOf(ev events.APIGatewayProxyRequest) (*events.APIGatewayProxyResponse, bool) {
	t, err := a.compiled()
	if err != nil {
		return nil, false
	}
	if bodyOver(ev.Body, ev.IsBase64Encoded, maxBodyBytes) {
		out := toProxyResponse(t.withGatewayCORS(tooLarge()))
		return &out, true
	}
	req, _ := eventRequest(context.Background(), ev)
	e, _ := t.eventEntry(&ev)
	res, _ := gatewayAnswer(e, req)
	if res == nil {
		return nil, false
	}
	out := toProxyResponse(t.withGatewayCORS(res))
	return &out, true
}

// gatewayBody returns the body a client receives when the function answers
// ev with out: API Gateway decodes a base64-encoded body when the first
// media type of the request's Accept header is one of App.API.BinaryTypes
// (or */*), and passes the base64 text on otherwise.
func (a *App) gatewayBody(ev events.APIGatewayProxyRequest, out events.APIGatewayProxyResponse) []byte {
	if !out.IsBase64Encoded {
		return []byte(out.Body)
	}
	t, err := a.compiled()
	if err != nil || !t.binary.acceptsFirst(ev.Headers[headerKey(ev.Headers, "Accept")]) {
		return []byte(out.Body)
	}
	b, err := base64.StdEncoding.DecodeString(out.Body)
	if err != nil {
		return []byte(out.Body)
	}
	return b
}

// headerKey returns the key of headers that is name in some case, or "".
func headerKey(headers map[string]string, name string) string {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return k
		}
	}
	return ""
}
