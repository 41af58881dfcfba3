package test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
	"github.com/framework-dev/framework/manifest"
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
	root := testutil.RepoRoot(t)
	dir := filepath.Join(root, "examples", "kitchensink")
	t.Setenv(build.CacheDirEnv, t.TempDir())
	m, err := build.Manifest(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	twin := routeTwin(t, m)

	bin := filepath.Join(t.TempDir(), "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build kitchensink: %v\n%s", err, out)
	}
	rt, err := runtimeapi.New(runtimeapi.WithTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	fn := exec.Command(bin)
	fn.Env = append(testEnv(t), "AWS_LAMBDA_RUNTIME_API="+rt.Addr(), "KITCHENSINK_DEBUG=1", "_HANDLER=bootstrap")
	fn.Stderr = os.Stderr
	if err := fn.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fn.Process.Kill(); _ = fn.Wait() }()

	client := frameworktest.New(twin)
	for _, c := range kitchensinkCases() {
		if gatewayAnswered[c.name] {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			headers := map[string]string{"Accept": "*/*"}
			for k, v := range c.req.headers {
				if v == "" {
					delete(headers, k)
				} else {
					headers[k] = v
				}
			}
			ev := client.Event(c.req.method, c.req.path, c.req.body, headers)
			payload, _ := json.Marshal(ev)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := rt.Invoke(ctx, payload)
			if err != nil {
				t.Fatalf("invoke: %v", err)
			}
			var pr events.APIGatewayProxyResponse
			if err := json.Unmarshal(out, &pr); err != nil {
				t.Fatalf("function answered %s: %v", out, err)
			}
			c.check(t, proxyResponse(t, pr))
		})
	}
}

// proxyResponse turns the function's answer into what API Gateway sends the
// client: multi-value headers kept, a base64 body decoded.
func proxyResponse(t *testing.T, pr events.APIGatewayProxyResponse) response {
	t.Helper()
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
	body := []byte(pr.Body)
	if pr.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(pr.Body); err != nil {
			t.Fatalf("isBase64Encoded body is not base64: %v", err)
		}
	}
	return response{status: pr.StatusCode, header: h, body: string(body), rawBody: body}
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
