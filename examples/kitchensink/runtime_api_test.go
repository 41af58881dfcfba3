package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// functionEnv is the parent environment without the variables that select
// another mode of app.Run or change the app.
func functionEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "FRAMEWORK_") || strings.HasPrefix(name, "KITCHENSINK_") ||
			strings.HasPrefix(name, "AWS_LAMBDA_") || name == "_LAMBDA_SERVER_PORT" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TestRuntimeAPI runs the kitchensink binary, built as it is deployed,
// against a stand-in Lambda Runtime API and sends it the API Gateway REST
// proxy events the deployed API would: the events and responses cross the
// real aws-lambda-go runtime loop and its JSON encoding.
func TestRuntimeAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the function binary")
	}
	bin := testutil.BuildBootstrap(t, ".")
	s := testutil.StartFunction(t, bin, functionEnv(), runtimeapi.WithTimeout(10*time.Second))
	// ctx ends when the process does, so that an Invoke never waits on a dead function.
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	go func() {
		select {
		case <-s.Done():
			cancel(errors.Join(errors.New("the function process exited"), s.Err()))
		case <-ctx.Done():
		}
	}()

	client := frameworktest.New(newApp())
	cases := []struct {
		name                  string
		method, path          string
		headers               map[string]string
		body                  string
		status                int
		base64                bool // isBase64Encoded of the proxy response
		wantBody              []byte
		wantJSON              string
		wantHdr               map[string]string
		contains, notContains string
	}{
		// application/json is a binary type in kitchensink (gzip, spec 4.4),
		// so JSON a handler returns reaches API Gateway base64-encoded.
		{name: "root", method: "GET", path: "/", headers: map[string]string{"Accept": "application/json"},
			status: 200, base64: true, wantJSON: `{"hello":"world"}`, wantHdr: map[string]string{"Content-Type": "application/json"}},
		{name: "binary out", method: "GET", path: "/binary-out", headers: map[string]string{"Accept": "application/octet-stream"},
			status: 200, base64: true, wantBody: binaryOut, wantHdr: map[string]string{"Content-Type": "application/octet-stream"}},
		{name: "cors", method: "GET", path: "/cors", headers: map[string]string{"Accept": "*/*"},
			status: 200, base64: true, wantJSON: `{"cors":"default","method":"GET"}`, wantHdr: map[string]string{"Access-Control-Allow-Origin": "*"}},
		{name: "form wrong content type", method: "POST", path: "/form", headers: map[string]string{"Content-Type": "text/plain"}, body: "a=1",
			status: 415, wantJSON: `{"message":"Unsupported Media Type"}`},
		{name: "not found error", method: "GET", path: "/error/notfound", headers: map[string]string{"Accept": "*/*"},
			status: 404, wantJSON: `{"Code":"NotFoundError","Message":"NotFoundError raised"}`},
		{name: "uncaught error", method: "GET", path: "/boom", headers: map[string]string{"Accept": "*/*"},
			status: 500, wantJSON: `{"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`, notContains: "kaboom"},
		{name: "served after errors", method: "GET", path: "/", headers: map[string]string{"Accept": "*/*"},
			status: 200, base64: true, wantJSON: `{"hello":"world"}`},
		{name: "capture and JSON body", method: "PUT", path: "/users/j%20d",
			headers: map[string]string{"Content-Type": "application/json", "Accept": "*/*"}, body: `{"age":36}`,
			status: 200, base64: true, wantJSON: `{"name":"j d","method":"PUT","uri_params":{"name":"j d"},"json_body":{"age":36}}`},
		{name: "request context", method: "POST", path: "/echo?a=1&a=2",
			headers: map[string]string{"Content-Type": "application/json", "Accept": "*/*"}, body: `[true]`, status: 200, base64: true,
			contains: `"requestId":"test-request","resourceId":"res123","resourcePath":"/echo","stage":"dev"`},
		{name: "multi-value headers", method: "GET", path: "/headers", headers: map[string]string{"Accept": "*/*"},
			status: 200, wantBody: []byte("headers test"), wantHdr: map[string]string{"X-Mixed-Case": "Mixed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body []byte
			if c.body != "" {
				body = []byte(c.body)
			}
			ev, err := json.Marshal(client.Event(c.method, c.path, body, c.headers))
			if err != nil {
				t.Fatal(err)
			}
			ictx, icancel := context.WithTimeout(ctx, 20*time.Second)
			defer icancel()
			payload, err := s.Invoke(ictx, ev)
			if err != nil {
				t.Fatalf("invoke: %v (%v)", err, context.Cause(ctx))
			}
			var resp events.APIGatewayProxyResponse
			if err := json.Unmarshal(payload, &resp); err != nil {
				t.Fatalf("the payload is not an API Gateway proxy response: %v\n%s", err, payload)
			}
			if resp.StatusCode != c.status {
				t.Errorf("statusCode = %d, want %d; body %q", resp.StatusCode, c.status, resp.Body)
			}
			if resp.IsBase64Encoded != c.base64 {
				t.Errorf("isBase64Encoded = %v, want %v", resp.IsBase64Encoded, c.base64)
			}
			got := []byte(resp.Body)
			if resp.IsBase64Encoded {
				if got, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
					t.Fatalf("body %q is not base64: %v", resp.Body, err)
				}
			}
			if c.wantBody != nil && !bytes.Equal(got, c.wantBody) {
				t.Errorf("body = % x, want % x", got, c.wantBody)
			}
			if c.wantJSON != "" {
				var g, w any
				if err := json.Unmarshal(got, &g); err != nil {
					t.Fatalf("body %q is not JSON: %v", got, err)
				}
				_ = json.Unmarshal([]byte(c.wantJSON), &w)
				gj, _ := json.Marshal(g)
				wj, _ := json.Marshal(w)
				if !bytes.Equal(gj, wj) {
					t.Errorf("body = %s, want %s", gj, wj)
				}
			}
			if c.contains != "" && !bytes.Contains(got, []byte(c.contains)) {
				t.Errorf("body %s does not contain %s", got, c.contains)
			}
			if c.notContains != "" && bytes.Contains(got, []byte(c.notContains)) {
				t.Errorf("body %q reveals %q", got, c.notContains)
			}
			for k, want := range c.wantHdr {
				if v := resp.MultiValueHeaders[k]; len(v) != 1 || v[0] != want {
					t.Errorf("header %s = %q, want %q (headers %v)", k, v, want, resp.MultiValueHeaders)
				}
			}
			if c.path == "/headers" {
				if v := resp.MultiValueHeaders["Set-Cookie"]; strings.Join(v, ";") != "a=1;b=2" {
					t.Errorf("Set-Cookie = %q, want a=1 and b=2", v)
				}
			}
		})
	}

	// An event that is not an API Gateway event fails the invocation in the
	// runtime loop (Lambda reports the error to the caller); the process
	// must live on and serve the next event.
	t.Run("malformed event", func(t *testing.T) {
		_, err := s.Invoke(ctx, []byte(`["not", "an", "event"]`))
		var fe *runtimeapi.FunctionError
		if !errors.As(err, &fe) || fe.Init || fe.Type != "UnmarshalTypeError" {
			t.Fatalf("err = %v, want a function error of type UnmarshalTypeError", err)
		}
		ev, _ := json.Marshal(client.Event("GET", "/", nil, map[string]string{"Accept": "*/*"}))
		payload, err := s.Invoke(ctx, ev)
		var resp events.APIGatewayProxyResponse
		if err != nil || json.Unmarshal(payload, &resp) != nil || resp.StatusCode != 200 {
			t.Fatalf("the event after a failed invocation: %s, %v", payload, err)
		}
	})
	select {
	case <-s.Done():
		t.Errorf("the function process exited during the test: %v", context.Cause(ctx))
	default:
	}
	if s.InitError() != nil {
		t.Errorf("init error: %v", s.InitError())
	}
}
