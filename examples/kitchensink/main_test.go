package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"github.com/framework-dev/framework/internal/apphook"
	"io"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

type ksCase struct {
	name    string
	method  string
	path    string
	headers map[string]string
	body    []byte
	debug   bool
	noJSONb bool // KITCHENSINK_JSON_BINARY=0

	status   int
	wantHdr  map[string]string // exact header values (case-insensitive names)
	noHdr    []string          // headers that must be absent
	wantJSON string            // body compared as JSON
	wantBody []byte            // body compared as bytes
	contains string            // body substring
}

var ksCases = []ksCase{
	{name: "root", method: "GET", path: "/", status: 200, wantJSON: `{"hello":"world"}`, wantHdr: map[string]string{"Content-Type": "application/json"}},
	{name: "user get", method: "GET", path: "/users/ada", status: 200,
		wantJSON: `{"name":"ada","method":"GET","uri_params":{"name":"ada"},"json_body":null}`},
	{name: "user put json", method: "PUT", path: "/users/j%20d", headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: []byte(`{"age": 36}`), status: 200,
		wantJSON: `{"name":"j d","method":"PUT","uri_params":{"name":"j d"},"json_body":{"age":36}}`},
	{name: "malformed json", method: "PUT", path: "/users/x", headers: map[string]string{"Content-Type": "application/json"}, body: []byte(`{"age":`), status: 400,
		wantJSON: `{"Code":"BadRequestError","Message":"Error Parsing JSON"}`},
	{name: "empty json", method: "PUT", path: "/users/x", headers: map[string]string{"Content-Type": "application/json"}, status: 400,
		wantJSON: `{"Code":"BadRequestError","Message":"Error Parsing JSON"}`},
	{name: "qs none", method: "GET", path: "/qs", status: 200, wantJSON: `{"query_params":null,"lists":null}`},
	{name: "qs repeated", method: "GET", path: "/qs?a=1&a=2&b=x%20y", status: 200,
		wantJSON: `{"query_params":{"a":"2","b":"x y"},"lists":{"a":["1","2"],"b":["x y"]}}`},
	{name: "form", method: "POST", path: "/form", headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: []byte("a=1&a=2&b=3"), status: 200,
		wantJSON: `{"raw_body":"a=1&a=2&b=3","json_body":null,"parsed":{"a":["1","2"],"b":["3"]}}`},
	{name: "form wrong type 415", method: "POST", path: "/form", headers: map[string]string{"Content-Type": "text/plain"}, body: []byte("a=1"), status: 415,
		wantJSON: `{"message":"Unsupported Media Type"}`},
	{name: "json route wrong type 415", method: "POST", path: "/echo", headers: map[string]string{"Content-Type": "text/xml"}, body: []byte("<a/>"), status: 415,
		wantJSON: `{"message":"Unsupported Media Type"}`},
	{name: "binary round trip", method: "POST", path: "/binary", headers: map[string]string{"Content-Type": "application/octet-stream", "Accept": "application/octet-stream"},
		body: binaryOut, status: 200, wantBody: binaryOut, wantHdr: map[string]string{"Content-Type": "application/octet-stream"}},
	{name: "binary route without content type 415", method: "POST", path: "/binary", headers: map[string]string{"Accept": "application/octet-stream"}, body: []byte("x"), status: 415,
		wantJSON: `{"message":"Unsupported Media Type"}`},
	{name: "binary out", method: "GET", path: "/binary-out", headers: map[string]string{"Accept": "application/octet-stream"}, status: 200, wantBody: binaryOut},
	{name: "binary out any accept", method: "GET", path: "/binary-out", headers: map[string]string{"Accept": "*/*"}, status: 200, wantBody: binaryOut},
	{name: "binary out wrong accept 400", method: "GET", path: "/binary-out", headers: map[string]string{"Accept": "text/plain"}, status: 400,
		contains: `"Code":"BadRequest"`},
	{name: "binary out no accept 400", method: "GET", path: "/binary-out", status: 400, contains: "Accept header"},
	{name: "none", method: "GET", path: "/none", status: 200, wantJSON: `null`},
	{name: "created", method: "POST", path: "/created", status: 201, wantBody: []byte("created!"), wantHdr: map[string]string{"Content-Type": "text/plain"}},
	{name: "shared get", method: "GET", path: "/shared", status: 200, wantJSON: `{"view":"shared_get"}`},
	{name: "shared post", method: "POST", path: "/shared", headers: map[string]string{"Content-Type": "application/json"}, body: []byte(`[1]`), status: 200,
		wantJSON: `{"view":"shared_post","json_body":[1]}`},
	{name: "headers", method: "GET", path: "/headers", status: 200, wantBody: []byte("headers test"),
		wantHdr: map[string]string{"x-lower-case": "lower", "X-Mixed-Case": "Mixed", "Content-Type": "text/plain"}},
	{name: "cors get", method: "GET", path: "/cors", status: 200, wantJSON: `{"cors":"default","method":"GET"}`,
		wantHdr: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key"}},
	{name: "cors error response carries origin", method: "POST", path: "/cors", headers: map[string]string{"Content-Type": "text/plain"}, body: []byte("x"), status: 415,
		wantHdr: map[string]string{"Access-Control-Allow-Origin": "*"}},
	{name: "cors preflight", method: "OPTIONS", path: "/cors", status: 200,
		wantHdr: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET,POST,OPTIONS",
			"Access-Control-Allow-Headers": "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key"}},
	{name: "cors custom", method: "PUT", path: "/cors-custom", headers: map[string]string{"Content-Type": "application/json"}, body: []byte(`{}`), status: 200,
		wantJSON: `{"cors":"custom","method":"PUT"}`,
		wantHdr: map[string]string{"Access-Control-Allow-Origin": "https://foo.example.com", "Access-Control-Max-Age": "600",
			"Access-Control-Expose-Headers": "X-Special-Header", "Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Headers": "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key,X-Special-Header"}},
	{name: "cors custom preflight", method: "OPTIONS", path: "/cors-custom", status: 200,
		wantHdr: map[string]string{"Access-Control-Allow-Methods": "GET,PUT,OPTIONS", "Access-Control-Allow-Origin": "https://foo.example.com"}},
	{name: "no cors headers on plain route", method: "GET", path: "/", status: 200, noHdr: []string{"Access-Control-Allow-Origin"}},
	{name: "options on non-cors route", method: "OPTIONS", path: "/", status: 403, wantJSON: `{"message":"Missing Authentication Token"}`},
	{name: "unknown path", method: "GET", path: "/nope/deeper", status: 403, wantJSON: `{"message":"Missing Authentication Token"}`},
	{name: "undeclared method", method: "DELETE", path: "/users/x", status: 403, wantJSON: `{"message":"Missing Authentication Token"}`},
	{name: "boom generic 500", method: "GET", path: "/boom", status: 500,
		wantJSON: `{"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`},
	{name: "boom debug 500", method: "GET", path: "/boom", debug: true, status: 500, contains: "kaboom: something broke",
		wantHdr: map[string]string{"Content-Type": "text/plain; charset=utf-8"}},
	{name: "unknown error kind", method: "GET", path: "/error/zzz", status: 200, wantJSON: `{"unknown_kind":"zzz"}`},
	{name: "json is binary: strict accept", method: "GET", path: "/", headers: map[string]string{"Accept": "text/html"}, status: 400, contains: "BadRequest"},
	{name: "json not binary: any accept", method: "GET", path: "/", noJSONb: true, headers: map[string]string{"Accept": "text/html"}, status: 200, wantJSON: `{"hello":"world"}`},
}

func init() {
	for kind, c := range map[string]struct {
		code   string
		status int
	}{
		"badrequest": {"BadRequestError", 400}, "unauthorized": {"UnauthorizedError", 401}, "forbidden": {"ForbiddenError", 403},
		"notfound": {"NotFoundError", 404}, "conflict": {"ConflictError", 409}, "unprocessable": {"UnprocessableEntityError", 422},
		"toomany": {"TooManyRequestsError", 429}, "frameworkview": {"FrameworkViewError", 500},
	} {
		ksCases = append(ksCases, ksCase{name: "error " + kind, method: "GET", path: "/error/" + kind, status: c.status,
			wantJSON: `{"Code":"` + c.code + `","Message":"` + c.code + ` raised"}`})
	}
}

func newTestApp(t *testing.T, c ksCase) *framework.App {
	t.Setenv("KITCHENSINK_DEBUG", "")
	t.Setenv("KITCHENSINK_JSON_BINARY", "")
	if c.debug {
		t.Setenv("KITCHENSINK_DEBUG", "1")
	}
	if c.noJSONb {
		t.Setenv("KITCHENSINK_JSON_BINARY", "0")
	}
	return newApp()
}

// TestKitchensink runs every case through the local handler and through the
// Lambda adapter with the event API Gateway would send: both must answer alike.
func TestKitchensink(t *testing.T) {
	for _, c := range ksCases {
		for _, via := range []string{"local", "lambda"} {
			t.Run(c.name+"/"+via, func(t *testing.T) { runCase(t, c, "", via) })
		}
	}
}

// runCase sends c to a test client of the front door apiType ("" for the
// REST API) through the local handler or the Lambda adapter (via "local"
// or "lambda"), and checks the answer. Accept is */* unless the case sets
// it or its name says "no accept".
func runCase(t *testing.T, c ksCase, apiType, via string) {
	t.Helper()
	client := frameworktest.New(newTestApp(t, c))
	client.APIType = apiType
	hdr := map[string]string{"Accept": "*/*"}
	for k, v := range c.headers {
		delete(hdr, k)
		hdr[k] = v
	}
	if strings.Contains(c.name, "no accept") {
		delete(hdr, "Accept")
	}
	checkResponse(t, c, send(client, via, c.method, c.path, c.body, hdr))
}

// send sends a request through the local handler (via "local") or the
// Lambda adapter (via "lambda").
func send(client *frameworktest.Client, via, method, path string, body []byte, hdr map[string]string) *frameworktest.Response {
	if via == "local" {
		return client.Do(method, path, body, hdr)
	}
	return client.Lambda(method, path, body, hdr)
}

func checkResponse(t *testing.T, c ksCase, resp *frameworktest.Response) {
	t.Helper()
	if resp.StatusCode != c.status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, c.status, resp.Body)
	}
	for k, want := range c.wantHdr {
		got := resp.Header(k)
		if len(got) != 1 || got[0] != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	for _, k := range c.noHdr {
		if got := resp.Header(k); len(got) > 0 {
			t.Errorf("header %s = %q, want none", k, got)
		}
	}
	if c.wantJSON != "" {
		var got, want any
		if err := json.Unmarshal(resp.Body, &got); err != nil {
			t.Fatalf("body %q is not JSON: %v", resp.Body, err)
		}
		if err := json.Unmarshal([]byte(c.wantJSON), &want); err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("body = %s, want %s", g, w)
		}
	}
	if c.wantBody != nil && !bytes.Equal(resp.Body, c.wantBody) {
		t.Errorf("body = %q, want %q", resp.Body, c.wantBody)
	}
	if c.contains != "" && !bytes.Contains(resp.Body, []byte(c.contains)) {
		t.Errorf("body %q does not contain %q", resp.Body, c.contains)
	}
}

func TestMultiValueHeaders(t *testing.T) {
	for _, via := range []string{"local", "lambda"} {
		client := frameworktest.New(newApp())
		var resp *frameworktest.Response
		if via == "local" {
			resp = client.Do("GET", "/headers", nil, map[string]string{"Accept": "*/*"})
		} else {
			resp = client.Lambda("GET", "/headers", nil, map[string]string{"Accept": "*/*"})
		}
		if got := resp.Header("Set-Cookie"); strings.Join(got, ";") != "a=1;b=2" {
			t.Errorf("%s: Set-Cookie = %q, want a=1 and b=2", via, got)
		}
	}
}

func TestGzipJSON(t *testing.T) {
	client := frameworktest.New(newApp())
	for _, via := range []string{"local", "lambda"} {
		var resp *frameworktest.Response
		if via == "local" {
			resp = client.Do("GET", "/gzip", nil, map[string]string{"Accept": "application/json"})
		} else {
			resp = client.Lambda("GET", "/gzip", nil, map[string]string{"Accept": "application/json"})
		}
		if resp.StatusCode != 200 || resp.Header("Content-Encoding")[0] != "gzip" {
			t.Fatalf("%s: status %d headers %v", via, resp.StatusCode, resp.Headers)
		}
		zr, err := gzip.NewReader(bytes.NewReader(resp.Body))
		if err != nil {
			t.Fatalf("%s: body is not gzip: %v", via, err)
		}
		plain, _ := io.ReadAll(zr)
		var v struct {
			Compressed bool  `json:"compressed"`
			Items      []int `json:"items"`
		}
		if err := json.Unmarshal(plain, &v); err != nil || !v.Compressed || len(v.Items) != 5 {
			t.Errorf("%s: decompressed body %q", via, plain)
		}
	}
}

// TestLambdaBinaryIsBase64 checks the raw proxy response API Gateway receives.
func TestLambdaBinaryIsBase64(t *testing.T) {
	client := frameworktest.New(newApp())
	ev := client.Event("GET", "/binary-out", nil, map[string]string{"Accept": "application/octet-stream"})
	out, err := apphook.Of(newApp()).HandleEvent(t.Context(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsBase64Encoded || out.Body != "iVBORw0KGgoAAX+A/v8=" {
		t.Errorf("isBase64Encoded=%v body=%q", out.IsBase64Encoded, out.Body)
	}
}
