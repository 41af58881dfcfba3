package framework

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// Fuzz targets for the two places where outside input meets the runtime:
// the API Gateway proxy event (HandleEvent) and the request path (route
// matching). Run one with, for example,
//
//	go test -run '^$' -fuzz '^FuzzEventRequest$' -fuzztime 30s ./framework/

// fuzzEventApp is an app whose handlers never fail on their own: any 500
// it answers is the framework's fault, except on /status, whose status
// comes from the query string.
func fuzzEventApp() *App {
	a := New("fuzz")
	a.Route("/", func(r *Request) (any, error) { return map[string]string{"hello": "world"}, nil })
	a.Route("/users/{name}", func(r *Request, name string) (any, error) {
		body, err := r.JSONBody()
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": name, "json": body, "uri_params": r.URIParams}, nil
	}, Methods("GET", "PUT", "POST", "DELETE"))
	a.Route("/files/{dir}/{file}", func(r *Request, dir, file string) (any, error) {
		return []string{dir, file}, nil
	}, Methods("GET", "HEAD"))
	a.Route("/echo", func(r *Request) (any, error) {
		d := r.ToDict()
		d["raw_body"] = r.RawBody
		return d, nil
	}, Methods("POST", "PATCH"), ContentTypes("application/json", "text/plain", "application/x-www-form-urlencoded"))
	a.Route("/bin", func(r *Request) (any, error) {
		return Response{Body: r.RawBody, Headers: map[string]string{"Content-Type": "application/octet-stream"}}, nil
	}, Methods("POST"), ContentTypes("application/octet-stream", "image/png"))
	a.Route("/cors", func(r *Request) (any, error) { return r.Method, nil }, Methods("GET", "PUT"), CORS(true))
	a.Route("/status", func(r *Request) (any, error) {
		n, _ := strconv.Atoi(r.QueryParams.Get("s"))
		return Response{StatusCode: n, Body: "status"}, nil
	})
	return a
}

var fuzzResources = []string{"", "/", "/users/{name}", "/files/{dir}/{file}", "/echo", "/bin", "/cors", "/status"}

func FuzzEventRequest(f *testing.F) {
	// method, resource (index into fuzzResources, else path), path, path
	// parameter, header name and value, Content-Type, Accept, query key and
	// value, body, body mode (0 plain, 1 base64 of body, 2 body sent as is
	// but marked base64).
	f.Add("GET", uint8(1), "/", "", "X-Test", "1", "", "*/*", "", "", []byte(nil), uint8(0))
	f.Add("PUT", uint8(2), "/users/j%20d", "j%20d", "Content-Type", "application/json", "application/json; charset=utf-8", "application/json", "", "", []byte(`{"age":36}`), uint8(0))
	f.Add("put", uint8(0), "/users/x", "x", "", "", "application/json", "", "a", "1", []byte(`{"age":`), uint8(0))
	f.Add("POST", uint8(4), "/echo", "", "Cookie", "a=1", "text/plain", "", "q", "x y", []byte("hello"), uint8(1))
	f.Add("POST", uint8(5), "/bin", "", "", "", "application/octet-stream", "application/octet-stream", "", "", []byte{0x89, 'P', 'N', 'G', 0xff, 0}, uint8(1))
	f.Add("POST", uint8(5), "/bin", "", "", "", "image/png", "text/html", "", "", []byte("!!!"), uint8(2))
	f.Add("GET", uint8(3), "/files/a/b%2Fc", "b%2Fc", "Accept", "*/*", "", "", "", "", []byte(nil), uint8(0))
	f.Add("OPTIONS", uint8(6), "/cors", "", "Origin", "https://x.example", "", "", "", "", []byte(nil), uint8(0))
	f.Add("GET", uint8(7), "/status", "", "", "", "", "", "s", "99", []byte(nil), uint8(0))
	f.Add("GET", uint8(7), "/status", "", "", "", "", "", "s", "204", []byte(nil), uint8(0))
	f.Add("DELETE", uint8(9), "/nope/{x}", "%zz", "\r\n", "\x00", ";;;", ",,", "\xff", "\xfe", []byte("\xff\xfe"), uint8(0))
	f.Add("GET", uint8(0), "", "", "", "", "", "", "", "", []byte(nil), uint8(0))
	f.Add("GET", uint8(0), "/status", "", "", "0", "", "", "s", "1", []byte(nil), uint8(0))
	// Header names that differ only in case (with Content-Type below).
	f.Add("POST", uint8(4), "/echo", "", "content-type", "text/plain", "application/json", "*/*", "", "", []byte(`{"a":1}`), uint8(0))

	app := fuzzEventApp()
	if err := app.Validate(); err != nil {
		f.Fatal(err)
	}
	binary := newTypeSet(app.API.BinaryTypes)
	tbl, _ := app.compiled()

	f.Fuzz(func(t *testing.T, method string, resource uint8, path, param, hName, hValue, ct, accept, qKey, qValue string, body []byte, bodyMode uint8) {
		ev := events.APIGatewayProxyRequest{
			HTTPMethod:            method,
			Path:                  path,
			PathParameters:        map[string]string{"name": param, "dir": param, "file": param},
			Headers:               map[string]string{hName: hValue},
			MultiValueHeaders:     map[string][]string{hName: {hValue, hValue + "2"}},
			QueryStringParameters: map[string]string{qKey: qValue},
			RequestContext:        events.APIGatewayProxyRequestContext{HTTPMethod: method, Stage: "dev", RequestID: "fuzz"},
		}
		if int(resource) < len(fuzzResources) {
			ev.Resource = fuzzResources[resource]
		} else {
			ev.Resource = path
		}
		if ct != "" {
			ev.Headers["Content-Type"] = ct
			ev.MultiValueHeaders["Content-Type"] = []string{ct}
		}
		if accept != "" {
			ev.Headers["Accept"] = accept
		}
		if qKey == "s" {
			ev.MultiValueQueryStringParameters = map[string][]string{qKey: {"1", qValue}}
		}
		switch bodyMode % 3 {
		case 0:
			ev.Body = string(body)
		case 1:
			ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
		case 2:
			ev.Body, ev.IsBase64Encoded = string(body), true
		}

		// target is the route pattern the event is for.
		target := ev.Resource
		if target == "" {
			if e, _ := tbl.match(escapePath(ev.Path)); e != nil {
				target = e.pattern
			}
		}
		out, err := app.handleEvent(context.Background(), ev)
		if err != nil {
			t.Fatalf("HandleEvent returned an error: %v", err)
		}
		if again, _ := app.handleEvent(context.Background(), ev); !reflect.DeepEqual(again, out) {
			t.Fatalf("the same event answered differently:\n%+v\n%+v", out, again)
		}
		if out.StatusCode < 100 || out.StatusCode > 599 {
			t.Fatalf("status %d is not an HTTP status", out.StatusCode)
		}
		if len(out.Headers) > 0 {
			t.Errorf("single-value headers %v: the adapter answers with multiValueHeaders only", out.Headers)
		}
		for name, values := range out.MultiValueHeaders {
			if !validHeaderName(name) {
				t.Errorf("header name %q is not a token", name)
			}
			if len(values) == 0 {
				t.Errorf("header %s has no values", name)
			}
			for _, v := range values {
				if strings.ContainsAny(v, "\r\n\x00") {
					t.Errorf("header %s value %q has CR, LF or NUL", name, v)
				}
			}
		}
		respBody := []byte(out.Body)
		if out.IsBase64Encoded {
			respBody, err = base64.StdEncoding.DecodeString(out.Body)
			if err != nil {
				t.Fatalf("isBase64Encoded but the body %q is not base64: %v", out.Body, err)
			}
		}
		var respCT string
		if v := out.MultiValueHeaders["Content-Type"]; len(v) > 0 {
			respCT = mediaType(v[0])
		}
		if out.IsBase64Encoded != binary.has(respCT) {
			t.Errorf("isBase64Encoded = %v for the response Content-Type %q (status %d)", out.IsBase64Encoded, respCT, out.StatusCode)
		}
		if respCT == "application/json" && !json.Valid(respBody) {
			t.Errorf("Content-Type application/json but the body is not JSON: %q", respBody)
		}
		if ev.IsBase64Encoded && ev.Body != "" {
			if _, err := base64.StdEncoding.DecodeString(ev.Body); err != nil {
				if out.StatusCode != 400 {
					t.Errorf("a body marked base64 that is not base64 answered %d, want 400", out.StatusCode)
				}
				return
			}
		}
		if target == "/bin" && out.StatusCode == 200 {
			sent := []byte(ev.Body)
			if ev.IsBase64Encoded {
				sent, _ = base64.StdEncoding.DecodeString(ev.Body)
			}
			if !bytes.Equal(respBody, sent) {
				t.Errorf("/bin echoed % x, the event's body is % x", respBody, sent)
			}
		}
		if out.StatusCode == 500 && target != "/status" {
			t.Errorf("500 from handlers that never fail: %s", respBody)
		}
		if target == "/status" && out.StatusCode != 403 {
			want, _ := strconv.Atoi(qValue)
			if qKey != "s" || want == 0 {
				want = 200
			} else if want < 100 || want > 599 {
				want = 500
			}
			if out.StatusCode != want && out.StatusCode != 415 {
				t.Errorf("/status?s=%q answered %d, want %d", qValue, out.StatusCode, want)
			}
		}
	})
}

// TestEventHeaderCaseVariants: header names that differ only in case are one
// header, their values merged in a fixed order (FuzzEventRequest found that
// the map order decided which one the request saw).
func TestEventHeaderCaseVariants(t *testing.T) {
	ev := events.APIGatewayProxyRequest{
		HTTPMethod: "POST", Path: "/x",
		MultiValueHeaders: map[string][]string{"Content-Type": {"text/plain"}, "content-type": {"application/json"}, "X-A": {"1", "2"}},
		Headers:           map[string]string{"Content-Type": "text/plain", "content-type": "application/json", "x-b": "b1", "X-B": "b2", "X-A": "2"},
	}
	for i := 0; i < 50; i++ {
		req, _ := eventRequest(context.Background(), ev)
		want := Headers{"content-type": {"text/plain", "application/json"}, "x-a": {"1", "2"}, "x-b": {"b2", "b1"}}
		if !reflect.DeepEqual(req.Headers, want) {
			t.Fatalf("attempt %d: headers %v, want %v", i, req.Headers, want)
		}
	}
}

// fuzzRouteApp has literal and capture routes that overlap; every handler
// answers its pattern and its captures.
func fuzzRouteApp() *App {
	a := New("fuzzroute")
	for _, p := range fuzzPatterns {
		n := strings.Count(p, "{")
		pattern := p
		var h any
		switch n {
		case 0:
			h = func(r *Request) (any, error) { return routeEcho{pattern, r.URIParams}, nil }
		case 1:
			h = func(r *Request, _ string) (any, error) { return routeEcho{pattern, r.URIParams}, nil }
		case 2:
			h = func(r *Request, _, _ string) (any, error) { return routeEcho{pattern, r.URIParams}, nil }
		}
		a.Route(p, h, Name("h"))
	}
	return a
}

type routeEcho struct {
	Pattern string            `json:"pattern"`
	Params  map[string]string `json:"params"`
}

var fuzzPatterns = []string{
	"/", "/users", "/users/me", "/users/{name}", "/users/me/posts/{id}", "/users/{name}/posts/{id}",
	"/files/{dir}/{file}", "/files/static/logo.png", "/a/b/c", "/a:b/@x~y", "/it's/(ok)",
}

// referenceMatch is a slow, obviously correct matcher: among the patterns
// whose segments all match (a literal equal to the decoded segment, a
// capture any non-empty segment), the one with literals earliest wins.
func referenceMatch(escapedPath string) (string, []string) {
	if escapedPath == "" || escapedPath[0] != '/' {
		return "", nil
	}
	var segs []string
	if escapedPath != "/" {
		segs = strings.Split(escapedPath[1:], "/")
	}
	best, bestKey := "", ""
	var bestArgs []string
	for _, p := range fuzzPatterns {
		var psegs []string
		if p != "/" {
			psegs = strings.Split(p[1:], "/")
		}
		if len(psegs) != len(segs) {
			continue
		}
		key := ""
		var args []string
		ok := true
		for i, ps := range psegs {
			if segs[i] == "" {
				ok = false
				break
			}
			if strings.HasPrefix(ps, "{") {
				key += "1"
				args = append(args, unescapeSegment(segs[i]))
			} else if unescapeSegment(segs[i]) == ps {
				key += "0"
			} else {
				ok = false
				break
			}
		}
		if ok && (best == "" || key < bestKey) {
			best, bestKey, bestArgs = p, key, args
		}
	}
	return best, bestArgs
}

func FuzzRouteMatch(f *testing.F) {
	for _, s := range []string{
		"/", "", "users", "/users", "/users/", "/users/me", "/users/m%65", "/users/bob", "/users/a%2Fb",
		"/users/me/posts/7", "/users/bob/posts/%37", "/users//posts/1", "/files/static/logo.png", "/files/static/x",
		"/files/%zz/%", "/a/b/c", "/a:b/@x~y", "/a%3Ab/%40x~y", "/it's/(ok)", "/it%27s/%28ok%29", "//", "/users/%E2%82%AC",
		"/users/\xff", "/users/a b", "/users/a?b", "/users/a#b", "/users/%2e%2e", "/users/..",
	} {
		f.Add(s)
	}
	app := fuzzRouteApp()
	if err := app.Validate(); err != nil {
		f.Fatal(err)
	}
	tbl, _ := app.compiled()
	local := app.httpHandler("dev")

	f.Fuzz(func(t *testing.T, path string) {
		e, args := tbl.match(path)
		wantPattern, wantArgs := referenceMatch(path)
		var gotPattern string
		if e != nil {
			gotPattern = e.pattern
		}
		if gotPattern != wantPattern {
			t.Fatalf("match(%q) = %q, the reference matcher says %q", path, gotPattern, wantPattern)
		}
		if e == nil {
			return
		}
		if len(args) != len(e.captures) || !reflect.DeepEqual(args, wantArgs) && len(args) > 0 {
			t.Fatalf("match(%q) captures %q, want %q", path, args, wantArgs)
		}
		// The pattern with its captures filled in is the path with each
		// segment decoded.
		var segs []string
		if path != "/" {
			segs = strings.Split(path[1:], "/")
		}
		decoded := make([]string, len(segs))
		for i, s := range segs {
			decoded[i] = unescapeSegment(s)
		}
		var psegs []string
		if e.pattern != "/" {
			psegs = strings.Split(e.pattern[1:], "/")
		}
		k := 0
		for i, ps := range psegs {
			if strings.HasPrefix(ps, "{") {
				psegs[i] = args[k]
				k++
			}
		}
		if got, want := "/"+strings.Join(psegs, "/"), "/"+strings.Join(decoded, "/"); got != want {
			t.Fatalf("match(%q): pattern %s with captures %q = %q, want %q", path, e.pattern, args, got, want)
		}

		// The local handler, given the path as a client would send it,
		// and the Lambda adapter, given the event API Gateway would send,
		// decode the captures alike.
		u, err := url.ParseRequestURI(path)
		if err != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(path, " \t\r\n?#") {
			return // not a path an HTTP client sends as is
		}
		rec := httptest.NewRecorder()
		local.ServeHTTP(rec, &http.Request{Method: "GET", URL: u, Header: http.Header{}, Host: "localhost", RemoteAddr: "127.0.0.1:1"})
		le, largs := tbl.match(u.EscapedPath())
		if le == nil {
			if rec.Code != 403 {
				t.Fatalf("local GET %q (escaped %q) matched no route but answered %d %s", path, u.EscapedPath(), rec.Code, rec.Body)
			}
			return
		}
		var localAns routeEcho
		if err := json.Unmarshal(rec.Body.Bytes(), &localAns); err != nil || rec.Code != 200 || localAns.Pattern != le.pattern {
			t.Fatalf("local GET %q = %d %s, want the route %s", path, rec.Code, rec.Body, le.pattern)
		}
		for i, name := range le.captures {
			if want := jsonRoundTrip(largs[i]); localAns.Params[name] != want {
				t.Fatalf("local GET %q: capture %s = %q, match says %q", path, name, localAns.Params[name], want)
			}
		}

		esegs := strings.Split(u.EscapedPath(), "/")
		ev := events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: u.Path, Resource: le.pattern}
		for i, ps := range strings.Split(le.pattern, "/") {
			if strings.HasPrefix(ps, "{") {
				if ev.PathParameters == nil {
					ev.PathParameters = map[string]string{}
				}
				ev.PathParameters[strings.Trim(ps, "{}")] = esegs[i]
			}
		}
		out, _ := app.handleEvent(context.Background(), ev)
		if out.StatusCode != 200 || out.Body != rec.Body.String() {
			t.Fatalf("GET %q: Lambda answered %d %s, local %d %s", path, out.StatusCode, out.Body, rec.Code, rec.Body)
		}

		// An event without a resource is routed by its decoded path; that
		// is the same unless a capture holds an encoded "/".
		for _, a := range largs {
			if strings.Contains(a, "/") {
				return
			}
		}
		ev.Resource, ev.PathParameters = "", nil
		out, _ = app.handleEvent(context.Background(), ev)
		if out.StatusCode != 200 || out.Body != rec.Body.String() {
			t.Fatalf("GET %q routed by its path %q: Lambda answered %d %s, local %d %s", path, ev.Path, out.StatusCode, out.Body, rec.Code, rec.Body)
		}
	})
}

// jsonRoundTrip is s as it reads back from JSON: invalid UTF-8 replaced.
func jsonRoundTrip(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}
