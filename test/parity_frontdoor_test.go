package test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// frontDoorCases changes the kitchensink cases whose answer behind an HTTP
// API or a function URL differs from a REST API's, as the README's front
// door table says; the function gives the 404 of an unknown route only
// behind a function URL (an HTTP API answers it itself).
var frontDoorCases = map[string]func(t *testing.T, got response){
	"binary response without Accept": func(t *testing.T, got response) {
		wantStatus(t, got, 200) // both front doors decode base64 whatever Accept says
		if !bytes.HasPrefix(got.rawBody, []byte{0x89, 'P', 'N', 'G'}) {
			t.Errorf("binary body %q, want the PNG bytes", got.rawBody)
		}
	},
	"unknown path":      func(t *testing.T, got response) { wantJSON(t, got, 404, `{"message":"Not Found"}`) },
	"undeclared method": func(t *testing.T, got response) { wantJSON(t, got, 404, `{"message":"Not Found"}`) },
}

// TestLambdaParityFrontDoors replays the kitchensink cases as the payload
// 2.0 events of an HTTP API and of a function URL to the kitchensink
// binary running as a Lambda function (the Runtime API protocol, against
// a stand-in on 127.0.0.1), and checks the answers with the REST API's
// assertions, but where frontDoorCases says they differ.
func TestLambdaParityFrontDoors(t *testing.T) {
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

	for _, door := range []string{"http", "function_url"} {
		client := frameworktest.New(twin)
		client.APIType = door
		for _, c := range kitchensinkCases() {
			check := c.check
			if f := frontDoorCases[c.name]; f != nil {
				check = f
			}
			gatewaySays := door == "http" && (c.name == "unknown path" || c.name == "undeclared method")
			t.Run(door+"/"+c.name, func(t *testing.T) {
				headers := map[string]string{"Accept": "*/*"}
				for k, v := range c.req.headers {
					if v == "" {
						delete(headers, k)
					} else {
						headers[k] = v
					}
				}
				if gatewaySays {
					// The HTTP API answers without the function: the client's answer.
					check(t, v2Response(t, *client.Lambda(c.req.method, c.req.path, c.req.body, headers)))
					return
				}
				ev := client.HTTPEvent(c.req.method, c.req.path, c.req.body, headers)
				payload, _ := json.Marshal(ev)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				out, err := rt.Invoke(ctx, payload)
				if err != nil {
					t.Fatalf("invoke: %v", err)
				}
				var r events.APIGatewayV2HTTPResponse
				if err := json.Unmarshal(out, &r); err != nil || r.StatusCode == 0 {
					t.Fatalf("function answered %s: %v", out, err)
				}
				check(t, httpV2Response(t, r))
			})
		}
	}
}

// httpV2Response turns the function's 2.0 answer into what the front door
// sends the client: each cookie a Set-Cookie header, a base64 body decoded.
func httpV2Response(t *testing.T, r events.APIGatewayV2HTTPResponse) response {
	t.Helper()
	h := http.Header{}
	for k, v := range r.Headers {
		h.Set(k, v)
	}
	for _, c := range r.Cookies {
		h.Add("Set-Cookie", c)
	}
	body := []byte(r.Body)
	if r.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(r.Body); err != nil {
			t.Fatalf("isBase64Encoded body is not base64: %v", err)
		}
	}
	return response{status: r.StatusCode, header: h, body: string(body), rawBody: body}
}

func v2Response(t *testing.T, r frameworktest.Response) response {
	t.Helper()
	return response{status: r.StatusCode, header: r.Headers, body: string(r.Body), rawBody: r.Body}
}
