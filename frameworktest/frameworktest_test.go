package frameworktest_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

func testApp() *framework.App {
	app := framework.New("shop")
	app.Route("/items/{id}", func(r *framework.Request, id string) (any, error) {
		return map[string]string{"id": id, "stage": r.GatewayContext.Stage}, nil
	}, framework.Methods("GET", "PUT"), framework.CORS(true), framework.APIKeyRequired())
	app.Route("/png", func(r *framework.Request) (any, error) {
		return framework.Response{Body: []byte{0x89, 'P', 'N', 'G', 0, 0xff}, Headers: map[string]string{"Content-Type": "image/png"}}, nil
	})
	app.Route("/upload", func(r *framework.Request) (any, error) { return len(r.RawBody), nil },
		framework.Methods("POST"), framework.ContentTypes("application/octet-stream"))
	return app
}

// TestLocalAndLambdaAgree: the two ways of calling an app answer alike,
// API Gateway's own answers included.
func TestLocalAndLambdaAgree(t *testing.T) {
	c := frameworktest.New(testApp())
	c.Stage = "prod"
	key := map[string]string{"X-Api-Key": "k"}
	for _, tc := range []struct {
		method, path string
		body         []byte
		headers      map[string]string
		status       int
		want         string
	}{
		{"GET", "/items/a%20b", nil, key, 200, `{"id":"a b","stage":"prod"}`},
		{"GET", "/items/7", nil, nil, 403, `{"message":"Forbidden"}`},
		{"DELETE", "/items/7", nil, key, 403, `{"message":"Missing Authentication Token"}`},
		{"GET", "/nowhere", nil, nil, 403, `{"message":"Missing Authentication Token"}`},
		{"OPTIONS", "/items/7", nil, nil, 200, ``},
		{"GET", "/png", nil, map[string]string{"Accept": "image/png"}, 200, "\x89PNG\x00\xff"},
		{"POST", "/upload", []byte{0, 1, 2, 0xff}, map[string]string{"Content-Type": "application/octet-stream"}, 200, `4`},
	} {
		for how, call := range map[string]func(string, string, []byte, map[string]string) *frameworktest.Response{"local": c.Do, "lambda": c.Lambda} {
			resp := call(tc.method, tc.path, tc.body, tc.headers)
			if resp.StatusCode != tc.status || !bytes.Equal(resp.Body, []byte(tc.want)) {
				t.Errorf("%s %s %s = %d %q, want %d %q", how, tc.method, tc.path, resp.StatusCode, resp.Body, tc.status, tc.want)
			}
			if strings.HasPrefix(tc.path, "/items") && tc.method != "DELETE" && len(resp.Header("access-control-allow-origin")) != 1 {
				t.Errorf("%s %s %s: no Access-Control-Allow-Origin on a CORS route's answer", how, tc.method, tc.path)
			}
			if tc.method == "OPTIONS" && strings.Join(resp.Header("Access-Control-Allow-Methods"), "") != "GET,PUT,OPTIONS" {
				t.Errorf("%s preflight: Access-Control-Allow-Methods %q", how, resp.Header("Access-Control-Allow-Methods"))
			}
		}
	}
	var item map[string]string
	if err := c.Get("/items/9", key).JSON(&item); err != nil || item["id"] != "9" {
		t.Errorf("JSON = %v, %v", item, err)
	}
}

// TestEvent: the event is the one the deployed REST API sends.
func TestEvent(t *testing.T) {
	ev := frameworktest.New(testApp()).Event("POST", "/upload?x=1&x=2", []byte{0xff}, map[string]string{"Content-Type": "application/octet-stream"})
	if ev.Resource != "/upload" || ev.RequestContext.Stage != "dev" || !ev.IsBase64Encoded || ev.Body != "/w==" ||
		!slices.Equal(ev.MultiValueQueryStringParameters["x"], []string{"1", "2"}) || ev.QueryStringParameters["x"] != "2" {
		t.Errorf("event %+v", ev)
	}
	ev = frameworktest.New(testApp()).Event("GET", "/items/a%2Fb", nil, nil)
	if ev.Resource != "/items/{id}" || ev.PathParameters["id"] != "a%2Fb" {
		t.Errorf("event resource %q, path parameters %v", ev.Resource, ev.PathParameters)
	}
}

// TestRuntimeDoesNotLinkHTTPTest: an app's Lambda binary does not carry
// the test client nor net/http/httptest.
func TestRuntimeDoesNotLinkHTTPTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/framework-dev/framework/framework").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "net/http/httptest" || dep == "github.com/framework-dev/framework/frameworktest" {
			t.Errorf("package framework depends on %s: every Lambda binary would link it", dep)
		}
	}
}
