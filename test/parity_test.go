package test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// gatewayAnswered are the kitchensink cases API Gateway answers itself in
// the cloud (preflight, unknown routes): they never reach the function.
var gatewayAnswered = map[string]bool{"CORS preflight": true, "unknown path": true, "undeclared method": true}

// TestLambdaParity replays the kitchensink cases of TestLocalKitchensink
// as API Gateway proxy events to the kitchensink binary running as a Lambda
// function (the real Runtime API polling protocol, against a stand-in on
// 127.0.0.1), and checks them with the same assertions: local and deployed
// answer alike.
func TestLambdaParity(t *testing.T) {
	twin, invoke := kitchensinkLambda(t)
	client := frameworktest.New(twin)
	for _, c := range kitchensinkCases() {
		if gatewayAnswered[c.name] {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			var pr events.APIGatewayProxyResponse
			invoke(t, client.Event(c.req.method, c.req.path, c.req.body, c.req.clientHeaders()), &pr)
			h := http.Header{}
			for k, v := range pr.Headers {
				h.Set(k, v)
			}
			for k, vs := range pr.MultiValueHeaders {
				h.Del(k)
				for _, v := range vs {
					h.Add(k, v)
				}
			}
			c.check(t, clientResponse(t, pr.StatusCode, h, pr.Body, pr.IsBase64Encoded))
		})
	}
}

// kitchensinkLambda builds examples/kitchensink and runs it as a Lambda
// function (the real Runtime API polling protocol, against a stand-in on
// 127.0.0.1) until the test ends. It returns a route twin of the app, to
// build the events API Gateway would send, and invoke, which sends the
// function one event and decodes its answer into answer (a pointer).
func kitchensinkLambda(t *testing.T) (twin *framework.App, invoke func(t *testing.T, event, answer any)) {
	t.Helper()
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "kitchensink")
	t.Setenv(build.CacheDirEnv, t.TempDir())
	m, err := build.Manifest(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	twin = routeTwin(t, m)

	bin := testutil.BuildBootstrap(t, dir)
	rt := testutil.StartFunction(t, bin, testEnv(t, "KITCHENSINK_DEBUG=1", "_HANDLER=bootstrap"), runtimeapi.WithTimeout(30*time.Second))

	return twin, func(t *testing.T, event, answer any) {
		t.Helper()
		payload, _ := json.Marshal(event)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := rt.Invoke(ctx, payload)
		if err != nil {
			t.Fatalf("invoke: %v", err)
		}
		if err := json.Unmarshal(out, answer); err != nil {
			t.Fatalf("function answered %s: %v", out, err)
		}
	}
}

// clientResponse is what the front door sends the client for a function's
// answer with headers h: a base64 body decoded.
func clientResponse(t *testing.T, status int, h http.Header, body string, base64Encoded bool) response {
	t.Helper()
	raw := []byte(body)
	if base64Encoded {
		var err error
		if raw, err = base64.StdEncoding.DecodeString(body); err != nil {
			t.Fatalf("isBase64Encoded body is not base64: %v", err)
		}
	}
	return response{status: status, header: h, body: string(raw), rawBody: raw}
}

// routeTwin declares an app with the same route table as manifest m (paths,
// methods, content types, handler names, binary types) and handlers that do
// nothing: the test client uses it only to build the events API Gateway
// would send for the real app (resource, path parameters, base64 bodies).
func routeTwin(t *testing.T, m *manifest.Manifest) *framework.App {
	t.Helper()
	app := framework.New(m.App)
	app.API.BinaryTypes = append([]string(nil), m.BinaryTypes...)
	reqType := reflect.TypeOf((*framework.Request)(nil))
	anyType := reflect.TypeOf((*any)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	for _, r := range m.Routes {
		in := []reflect.Type{reqType}
		for i := 0; i < strings.Count(r.Path, "{"); i++ {
			in = append(in, reflect.TypeOf(""))
		}
		ft := reflect.FuncOf(in, []reflect.Type{anyType, errType}, false)
		h := reflect.MakeFunc(ft, func([]reflect.Value) []reflect.Value {
			return []reflect.Value{reflect.Zero(anyType), reflect.Zero(errType)}
		})
		app.Route(r.Path, h.Interface(), framework.Methods(r.Methods...), framework.ContentTypes(r.ContentTypes...), framework.Name(r.Handler))
	}
	if err := app.Validate(); err != nil {
		t.Fatalf("route twin of %s: %v", m.App, err)
	}
	return app
}
