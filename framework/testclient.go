package framework

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// TestClient calls an app's routes without a server, for unit tests of an
// app. Do goes through the local HTTP handler (API Gateway emulation
// included); Lambda builds the API Gateway proxy event the deployed API
// would send and goes through the Lambda adapter.
type TestClient struct {
	app *App
	// Stage is the stage in the request context (default dev).
	Stage string
}

// NewTestClient returns a TestClient for app.
func NewTestClient(app *App) *TestClient { return &TestClient{app: app, Stage: "dev"} }

// TestResponse is a response received by a TestClient.
type TestResponse struct {
	StatusCode int
	Headers    http.Header
	Body       []byte
}

// JSON decodes the body into v.
func (r *TestResponse) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Get sends GET path with the given headers (may be nil).
func (c *TestClient) Get(path string, headers map[string]string) *TestResponse {
	return c.Do("GET", path, nil, headers)
}

// Do sends one request through the local handler. path may carry a query string.
func (c *TestClient) Do(method, path string, body []byte, headers map[string]string) *TestResponse {
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var req *http.Request
	if rd != nil {
		req = httptest.NewRequest(method, path, rd)
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	c.app.Handler(c.Stage).ServeHTTP(rec, req)
	return &TestResponse{StatusCode: rec.Code, Headers: rec.Header(), Body: rec.Body.Bytes()}
}

// Lambda sends one request through the Lambda adapter as the deployed REST
// API would: the event's resource and path parameters come from the route
// table, a body whose Content-Type is a binary type is base64-encoded, and a
// base64 response is decoded when the Accept header names a binary type.
// Requests API Gateway answers itself (unknown routes, preflight) are
// answered as it would.
func (c *TestClient) Lambda(method, path string, body []byte, headers map[string]string) *TestResponse {
	ev := c.Event(method, path, body, headers)
	t, err := c.app.compiled()
	if err != nil {
		return &TestResponse{StatusCode: 500, Headers: http.Header{}, Body: []byte(err.Error())}
	}
	req, _ := eventRequest(context.Background(), ev)
	e, _ := t.match(escapePath(ev.Path))
	if res, _ := gatewayAnswer(e, req); res != nil {
		return resultResponse(res)
	}
	out, _ := c.app.HandleEvent(context.Background(), ev)
	resp := &TestResponse{StatusCode: out.StatusCode, Headers: http.Header{}}
	for k, v := range out.MultiValueHeaders {
		resp.Headers[k] = v
	}
	resp.Body = []byte(out.Body)
	if out.IsBase64Encoded && t.binary.matchesAny(headerValue(headers, "Accept")) {
		resp.Body, _ = base64.StdEncoding.DecodeString(out.Body)
	}
	return resp
}

// Event builds the API Gateway REST API proxy event for a request.
func (c *TestClient) Event(method, path string, body []byte, headers map[string]string) events.APIGatewayProxyRequest {
	u, _ := url.Parse(path)
	ev := events.APIGatewayProxyRequest{
		HTTPMethod: method, Path: u.Path, Headers: map[string]string{}, MultiValueHeaders: map[string][]string{},
		RequestContext: events.APIGatewayProxyRequestContext{
			APIID: "testapi", HTTPMethod: method, RequestID: "test-request", ResourceID: "res123", Stage: c.Stage,
			Identity: events.APIGatewayRequestIdentity{SourceIP: "127.0.0.1", UserAgent: "framework-testclient"},
		},
	}
	for k, v := range headers {
		ev.Headers[k] = v
		ev.MultiValueHeaders[k] = []string{v}
	}
	if u.RawQuery != "" {
		q := u.Query()
		ev.MultiValueQueryStringParameters = q
		ev.QueryStringParameters = map[string]string{}
		for k, v := range q {
			ev.QueryStringParameters[k] = v[len(v)-1]
		}
	}
	if t, err := c.app.compiled(); err == nil {
		if e, _ := t.match(u.EscapedPath()); e != nil {
			ev.Resource, ev.RequestContext.ResourcePath = e.pattern, e.pattern
			segs := strings.Split(u.EscapedPath(), "/")
			psegs := strings.Split(e.pattern, "/")
			for i, p := range psegs {
				if strings.HasPrefix(p, "{") && i < len(segs) {
					if ev.PathParameters == nil {
						ev.PathParameters = map[string]string{}
					}
					ev.PathParameters[strings.Trim(p, "{}")] = segs[i]
				}
			}
		}
		if body != nil {
			if t.binary.has(mediaType(headerValue(headers, "Content-Type"))) {
				ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
			} else {
				ev.Body = string(body)
			}
		}
	}
	return ev
}

func resultResponse(res *result) *TestResponse {
	resp := &TestResponse{StatusCode: res.status, Headers: http.Header{}, Body: res.body}
	for _, h := range res.headers {
		resp.Headers[h.Name] = append(resp.Headers[h.Name], h.Value)
	}
	return resp
}

func headerValue(headers map[string]string, name string) string {
	for k, v := range headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// Header returns the values of the response header name, matched without
// regard to case (response header names keep the case the app gave them).
func (r *TestResponse) Header(name string) []string {
	var out []string
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			out = append(out, v...)
		}
	}
	return out
}
