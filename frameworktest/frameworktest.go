// Package frameworktest calls a framework app's routes without a server or
// a deployment, for the unit tests of an app:
//
//	c := frameworktest.New(newApp())
//	resp := c.Get("/items/42", map[string]string{"X-Api-Key": "k"})
//	if resp.StatusCode != 200 { ... }
//
// Do and Get go through the app's local HTTP handler, API Gateway's own
// answers included; Lambda builds the event the deployed REST API would send
// and goes through the Lambda adapter. It lives apart from package framework
// so that the app's Lambda binary does not link it (nor net/http/httptest).
package frameworktest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/names"
)

// Client calls an app's routes. It is safe for concurrent use.
type Client struct {
	app *framework.App
	// Stage is the stage in the request context (default dev).
	Stage string
	// APIType is the stage's front door, as config.json's api_type names
	// it: "" or "rest" (API Gateway REST API), "http" (API Gateway HTTP
	// API) or "function_url" (Lambda function URL). Do and Lambda answer
	// as it would.
	APIType string
}

// New returns a Client for app at stage dev.
func New(app *framework.App) *Client { return &Client{app: app, Stage: names.DefaultStage} }

// Response is a response received by a Client.
type Response struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Headers are the response headers, names as the app wrote them for
	// Lambda and in canonical form for Do; Header matches either.
	Headers http.Header
	// Body is the body as a client receives it.
	Body []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) error { return json.Unmarshal(r.Body, v) }

// Header returns the values of the response header name, matched without
// regard to case (response header names keep the case the app gave them).
func (r *Response) Header(name string) []string {
	var out []string
	for k, v := range r.Headers {
		if strings.EqualFold(k, name) {
			out = append(out, v...)
		}
	}
	return out
}

// Get sends GET path with the given headers (may be nil).
func (c *Client) Get(path string, headers map[string]string) *Response {
	return c.Do("GET", path, nil, headers)
}

// Do sends one request through the app's local HTTP handler, as `framework
// local` serves it. path may carry a query string.
func (c *Client) Do(method, path string, body []byte, headers map[string]string) *Response {
	var req *http.Request
	if body != nil {
		req = httptest.NewRequest(method, path, bytes.NewReader(body))
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	apphook.Of(c.app).FrontDoorHandler(c.Stage, c.APIType).ServeHTTP(rec, req)
	return &Response{StatusCode: rec.Code, Headers: rec.Header(), Body: rec.Body.Bytes()}
}

// Lambda sends one request through the Lambda adapter as the deployed REST
// API would: the event is Event's; requests API Gateway answers itself
// (unknown routes, preflight, a missing API key or token, an AppAuthorizer's
// refusal) are answered as it would, the others by the Lambda adapter; a base64 response body is decoded
// when the Accept header's first media type is a binary type (or */*), as
// API Gateway does.
//
// With an APIType of "http" or "function_url", the event is the payload
// format 2.0 event that front door would send (HTTPEvent), answered as it
// would: the base64 body is always decoded, the cookies are Set-Cookie
// headers.
func (c *Client) Lambda(method, path string, body []byte, headers map[string]string) *Response {
	if c.APIType != "" && c.APIType != "rest" {
		return c.lambdaV2(method, path, body, headers)
	}
	ev := c.Event(method, path, body, headers)
	if out, ok := apphook.Of(c.app).GatewayAnswer(ev); ok {
		return proxyResponse(*out, []byte(out.Body))
	}
	if out, ok := apphook.Of(c.app).Authorize(context.Background(), &ev); ok {
		return proxyResponse(*out, []byte(out.Body))
	}
	out, _ := apphook.Of(c.app).HandleEvent(context.Background(), ev)
	return proxyResponse(out, apphook.Of(c.app).GatewayBody(ev, out))
}

// Event returns the API Gateway REST API proxy event the deployed API would
// send the function for a request (headers as given, the path parameters from the route table, a binary body base64-encoded).
func (c *Client) Event(method, path string, body []byte, headers map[string]string) events.APIGatewayProxyRequest {
	return apphook.Of(c.app).GatewayEvent(method, path, body, headers, c.Stage)
}

func proxyResponse(out events.APIGatewayProxyResponse, body []byte) *Response {
	resp := &Response{StatusCode: out.StatusCode, Headers: http.Header{}, Body: body}
	for k, v := range out.Headers {
		resp.Headers[k] = []string{v}
	}
	for k, v := range out.MultiValueHeaders {
		resp.Headers[k] = v
	}
	return resp
}

// HTTPEvent returns the payload format 2.0 event the stage's front door
// (APIType "http" or "function_url") would send the function for a request.
func (c *Client) HTTPEvent(method, path string, body []byte, headers map[string]string) events.APIGatewayV2HTTPRequest {
	return apphook.Of(c.app).HTTPEvent(method, path, body, headers, c.Stage, c.APIType)
}

func (c *Client) lambdaV2(method, path string, body []byte, headers map[string]string) *Response {
	ev := c.HTTPEvent(method, path, body, headers)
	out, answered := apphook.Of(c.app).HTTPGatewayAnswer(ev)
	if !answered {
		out, answered = apphook.Of(c.app).AuthorizeHTTP(context.Background(), &ev)
	}
	if !answered {
		o, _ := apphook.Of(c.app).HandleHTTPEvent(context.Background(), ev)
		out = &o
	}
	resp := &Response{StatusCode: out.StatusCode, Headers: http.Header{}, Body: []byte(out.Body)}
	for k, v := range out.Headers {
		resp.Headers[k] = []string{v}
	}
	for _, ck := range out.Cookies {
		resp.Headers["Set-Cookie"] = append(resp.Headers["Set-Cookie"], ck)
	}
	if out.IsBase64Encoded {
		if b, err := base64.StdEncoding.DecodeString(out.Body); err == nil {
			resp.Body = b
		}
	}
	return resp
}
