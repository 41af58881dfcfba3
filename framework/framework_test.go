package framework_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/manifest"
)

func ok(r *framework.Request) (any, error)            { return "ok", nil }
func one(r *framework.Request, a string) (any, error) { return a, nil }
func otherOK(r *framework.Request) (any, error)       { return "other", nil }
func three(r *framework.Request, a, b, c string) (any, error) {
	return []string{a, b, c}, nil
}

func TestDeclarationErrors(t *testing.T) {
	cases := []struct {
		name  string
		setup func(a *framework.App)
		want  []string // substrings of the error, route named
	}{
		{"arity too few", func(a *framework.App) { a.Route("/users/{name}", ok) }, []string{"route /users/{name}", "1 capture"}},
		{"arity too many", func(a *framework.App) { a.Route("/users", one) }, []string{"route /users", "0 capture(s)"}},
		{"not a function", func(a *framework.App) { a.Route("/x", 42) }, []string{"route /x", "not a function"}},
		{"wrong return", func(a *framework.App) { a.Route("/x", func(r *framework.Request) string { return "" }) }, []string{"route /x", "(T, error)"}},
		{"overlapping methods", func(a *framework.App) {
			a.Route("/s", ok, framework.Methods("GET", "POST"))
			a.Route("/s", otherOK, framework.Methods("POST"))
		}, []string{"route /s", "method POST", `"ok"`, `"otherOK"`}},
		{"duplicate handler names", func(a *framework.App) {
			a.Route("/s", ok, framework.Methods("GET"))
			a.Route("/s", ok, framework.Methods("POST"))
		}, []string{"route /s", `two handlers named "ok"`}},
		{"different cors", func(a *framework.App) {
			a.Route("/s", ok, framework.CORS(true))
			a.Route("/s", otherOK, framework.Methods("POST"), framework.WithCORS(framework.CORSConfig{AllowOrigin: "https://a.example"}))
		}, []string{"route /s", "different CORS"}},
		{"cors with options", func(a *framework.App) { a.Route("/s", ok, framework.Methods("GET", "OPTIONS"), framework.CORS(true)) }, []string{"route /s", "OPTIONS"}},
		{"global cors with options", func(a *framework.App) { a.API.CORS = true; a.Route("/s", ok, framework.Methods("OPTIONS")) }, []string{"route /s", "OPTIONS"}},
		{"mixed content types", func(a *framework.App) {
			a.Route("/u", ok, framework.Methods("POST"), framework.ContentTypes("application/json", "image/png"))
		}, []string{"route /u", "mix binary and non-binary"}},
		{"malformed stream type", func(a *framework.App) { a.Route("/feed", ok, framework.Streaming("text/")) }, []string{"route /feed", "streamed content type", "malformed"}},
		{"no leading slash", func(a *framework.App) { a.Route("users", ok) }, []string{"route users", "start with"}},
		{"trailing slash", func(a *framework.App) { a.Route("/users/", ok) }, []string{"route /users/", "end with"}},
		{"empty segment", func(a *framework.App) { a.Route("/a//b", ok) }, []string{"route /a//b", "empty path segment"}},
		{"partial capture", func(a *framework.App) { a.Route("/a/x{id}", one) }, []string{"route /a/x{id}", "malformed"}},
		{"bad capture name", func(a *framework.App) { a.Route("/a/{1d}", one) }, []string{"route /a/{1d}", "malformed"}},
		{"duplicate capture", func(a *framework.App) {
			a.Route("/a/{id}/{id}", func(*framework.Request, string, string) (any, error) { return nil, nil })
		}, []string{"appears twice"}},
		{"capture names differ", func(a *framework.App) {
			a.Route("/u/{name}", one)
			a.Route("/u/{id}", one, framework.Methods("POST"), framework.Name("other"))
		}, []string{"/u/{name}", "/u/{id}", "capture names"}},
		{"unknown method", func(a *framework.App) { a.Route("/x", ok, framework.Methods("FETCH")) }, []string{"route /x", `"FETCH"`}},
		{"origin list", func(a *framework.App) {
			a.Route("/x", ok, framework.WithCORS(framework.CORSConfig{AllowOrigin: "https://a.example https://b.example"}))
		}, []string{"route /x", "single origin"}},
		{"user pool without arns", func(a *framework.App) {
			a.Route("/x", ok, framework.WithAuthorizer(framework.UserPoolAuthorizer{Name: "pool"}))
		}, []string{"route /x", "ProviderARNs"}},
		{"custom without uri", func(a *framework.App) {
			a.Route("/x", ok, framework.WithAuthorizer(framework.CustomAuthorizer{Name: "c", AuthorizerURI: "nope"}))
		}, []string{"route /x", "invocation URI"}},
		{"unknown authorizer name", func(a *framework.App) { a.Route("/x", ok, framework.AuthorizerName("missing")) }, []string{"route /x", `"missing"`}},
		{"empty app name", func(a *framework.App) { a.Name = "" }, []string{"app name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := framework.New("t")
			c.setup(a)
			err := a.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if _, merr := apphook.Of(a).Manifest(); merr == nil {
				t.Error("Manifest() succeeded on an invalid app")
			}
			resp := frameworktest.New(a).Get("/x", nil)
			if resp.StatusCode != 500 {
				t.Errorf("serving an invalid app answered %d, want 500", resp.StatusCode)
			}
		})
	}
}

func TestValidDeclarations(t *testing.T) {
	a := framework.New("t")
	a.Route("/", ok)
	a.Route("/a/{x}/{y}/{z}", three)
	a.Route("/s", ok, framework.Methods("get"), framework.CORS(true))
	a.Route("/s", otherOK, framework.Methods("POST", "PUT"), framework.CORS(true))
	a.Route("/bin", ok, framework.Methods("POST"), framework.ContentTypes("image/png", "image/gif"))
	a.Route("/own-options", ok, framework.Methods("OPTIONS"))
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	resp := frameworktest.New(a).Get("/a/1/two/%33", nil)
	if string(resp.Body) != `["1","two","3"]` {
		t.Errorf("three captures: %s", resp.Body)
	}
}

func TestRoutingPrefersLiterals(t *testing.T) {
	a := framework.New("t")
	a.Route("/u/{name}", func(r *framework.Request, n string) (any, error) { return "capture " + n, nil })
	a.Route("/u/me", func(r *framework.Request) (any, error) { return "literal", nil })
	a.Route("/u/{name}/posts", func(r *framework.Request, n string) (any, error) { return "posts " + n, nil })
	a.Route("/u/me/{x}", func(r *framework.Request, x string) (any, error) { return "me " + x, nil })
	c := frameworktest.New(a)
	for path, want := range map[string]string{
		"/u/me": `"literal"`, "/u/bob": `"capture bob"`, "/u/me/posts": `"me posts"`, "/u/bob/posts": `"posts bob"`,
		"/u/a%2Fb": `"capture a/b"`,
	} {
		if got := c.Get(path, nil); string(got.Body) != want {
			t.Errorf("GET %s = %d %s, want %s", path, got.StatusCode, got.Body, want)
		}
	}
	if got := c.Get("/u", nil); got.StatusCode != 403 {
		t.Errorf("GET /u = %d, want 403", got.StatusCode)
	}
}

func TestRequestFields(t *testing.T) {
	var seen *framework.Request
	a := framework.New("t")
	a.Route("/r", func(r *framework.Request) (any, error) { seen = r; return nil, nil }, framework.Methods("GET", "POST"))
	a.Route("/r/{id}", func(r *framework.Request, id string) (any, error) { seen = r; return nil, nil })
	c := frameworktest.New(a)

	c.Get("/r", map[string]string{"X-Mixed-Case": "v"})
	if seen.QueryParams != nil || seen.URIParams != nil || seen.RawBody != nil || seen.StageVars != nil {
		t.Errorf("absent parts must be nil: query=%v uri=%v raw=%v stage=%v", seen.QueryParams, seen.URIParams, seen.RawBody, seen.StageVars)
	}
	if seen.Headers.Get("x-mixed-case") != "v" {
		t.Errorf("headers are not lower-cased: %v", seen.Headers)
	}
	if body, err := seen.JSONBody(); body != nil || err != nil {
		t.Errorf("JSONBody without a JSON content type = %v, %v", body, err)
	}
	d := seen.ToDict()
	for _, k := range []string{"context", "headers", "method", "query_params", "raw_body", "stage_vars", "uri_params"} {
		if _, ok := d[k]; !ok {
			t.Errorf("ToDict lacks %q", k)
		}
	}
	if len(d) != 7 {
		t.Errorf("ToDict has %d keys, want 7", len(d))
	}
	ctx, _ := json.Marshal(seen.GatewayContext)
	var m map[string]any
	_ = json.Unmarshal(ctx, &m)
	if len(m) != 7 || len(m["identity"].(map[string]any)) != 11 {
		t.Errorf("context %s: want 7 keys and 11 identity keys", ctx)
	}
	if m["stage"] != "dev" || m["resourcePath"] != "/r" || m["httpMethod"] != "GET" {
		t.Errorf("context %s", ctx)
	}

	c.Get("/r/a%20b?x=1&x=2", nil)
	if seen.URIParams["id"] != "a b" || seen.QueryParams.Get("x") != "2" || len(seen.QueryParams.GetAll("x")) != 2 {
		t.Errorf("uri=%v query=%v", seen.URIParams, seen.QueryParams)
	}

	ev := c.Event("GET", "/r/a%20b", nil, nil)
	ev.StageVariables = map[string]string{"color": "blue"}
	ev.RequestContext.Identity.UserArn = "arn:aws:iam::1:user/x"
	if _, err := apphook.Of(a).HandleEvent(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	if seen.URIParams["id"] != "a b" || seen.StageVars["color"] != "blue" || *seen.GatewayContext.Identity.UserArn != "arn:aws:iam::1:user/x" || seen.GatewayContext.Identity.AccessKey != nil {
		t.Errorf("from an event: uri=%v stage=%v identity=%+v", seen.URIParams, seen.StageVars, seen.GatewayContext.Identity)
	}
}

type WidgetMissing struct{ framework.NotFoundError }

type quotaError struct{ framework.TooManyRequestsError }

func TestErrors(t *testing.T) {
	a := framework.New("t")
	a.Route("/custom", func(r *framework.Request) (any, error) {
		return nil, WidgetMissing{framework.NotFoundError{Message: "no widget 7"}}
	})
	a.Route("/custom-ptr", func(r *framework.Request) (any, error) {
		return nil, &quotaError{framework.TooManyRequestsError{Message: "slow down"}}
	})
	a.Route("/wrapped", func(r *framework.Request) (any, error) {
		return nil, fmt.Errorf("loading: %w", framework.ConflictError{Message: "version 3 exists"})
	})
	a.Route("/panic", func(r *framework.Request) (any, error) { panic("oh no") })
	a.Route("/unencodable", func(r *framework.Request) (any, error) { return make(chan int), nil })
	c := frameworktest.New(a)
	for path, want := range map[string]string{
		"/custom":      `404 {"Code":"WidgetMissing","Message":"no widget 7"}`,
		"/custom-ptr":  `429 {"Code":"quotaError","Message":"slow down"}`,
		"/wrapped":     `409 {"Code":"ConflictError","Message":"version 3 exists"}`,
		"/panic":       `500 {"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`,
		"/unencodable": `500 {"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`,
	} {
		resp := c.Get(path, nil)
		if got := fmt.Sprintf("%d %s", resp.StatusCode, resp.Body); got != want {
			t.Errorf("GET %s = %s, want %s", path, got, want)
		}
	}
	a.Debug = true
	resp := c.Get("/panic", nil)
	if resp.StatusCode != 500 || !bytes.Contains(resp.Body, []byte("panic: oh no")) || !bytes.Contains(resp.Body, []byte("goroutine")) {
		t.Errorf("debug panic: %d %s", resp.StatusCode, resp.Body)
	}
}

func TestJSONErrorIgnoredByHandler(t *testing.T) {
	a := framework.New("t")
	a.Route("/j", func(r *framework.Request) (any, error) {
		body, _ := r.JSONBody()
		return body, nil
	}, framework.Methods("POST"))
	resp := frameworktest.New(a).Do("POST", "/j", []byte("{"), map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != 400 || string(resp.Body) != `{"Code":"BadRequestError","Message":"Error Parsing JSON"}` {
		t.Errorf("got %d %s", resp.StatusCode, resp.Body)
	}
}

func TestResponseShapes(t *testing.T) {
	a := framework.New("t")
	a.Route("/str", func(r *framework.Request) (any, error) { return framework.Response{Body: "hi"}, nil })
	a.Route("/empty", func(r *framework.Request) (any, error) { return &framework.Response{StatusCode: 204}, nil })
	a.Route("/val", func(r *framework.Request) (any, error) {
		return framework.Response{Body: map[string]int{"n": 1}, StatusCode: 202}, nil
	})
	a.Route("/html", func(r *framework.Request) (any, error) { return "<b>&</b>", nil })
	a.Route("/badstatus", func(r *framework.Request) (any, error) { return framework.Response{StatusCode: 42}, nil })
	c := frameworktest.New(a)
	check := func(path string, status int, ctype, body string) {
		t.Helper()
		resp := c.Get(path, nil)
		got := resp.Header("Content-Type")
		gotType := ""
		if len(got) > 0 {
			gotType = got[0]
		}
		if resp.StatusCode != status || gotType != ctype || string(resp.Body) != body {
			t.Errorf("GET %s = %d %q %q, want %d %q %q", path, resp.StatusCode, gotType, resp.Body, status, ctype, body)
		}
	}
	check("/str", 200, "text/plain; charset=utf-8", "hi")
	check("/empty", 204, "", "")
	check("/val", 202, "application/json", `{"n":1}`)
	check("/html", 200, "application/json", `"<b>&</b>"`)
	check("/badstatus", 500, "application/json", `{"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`)
}

func TestGatewayEmulation(t *testing.T) {
	a := framework.New("t")
	a.Route("/key", ok, framework.APIKeyRequired(), framework.CORS(true))
	a.Route("/iam", ok, framework.WithAuthorizer(framework.RoleAuthorizer{}))
	a.Route("/pool", ok, framework.WithAuthorizer(framework.UserPoolAuthorizer{Name: "pool", ProviderARNs: []string{"arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_abc"}}))
	a.Route("/custom", ok, framework.WithAuthorizer(framework.CustomAuthorizer{Name: "tok", Header: "X-Token",
		AuthorizerURI: "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations"}))
	a.DefineAuthorizer("legacy", "Authorization", manifest.AuthorizerUserPool, "arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_x")
	a.Route("/legacy", ok, framework.AuthorizerName("legacy"))
	c := frameworktest.New(a)
	cases := []struct {
		path   string
		hdr    map[string]string
		status int
		body   string
	}{
		{"/key", nil, 403, `{"message":"Forbidden"}`},
		{"/key", map[string]string{"X-Api-Key": "k"}, 200, `"ok"`},
		{"/iam", nil, 403, `{"message":"Missing Authentication Token"}`},
		{"/iam", map[string]string{"Authorization": "AWS4-HMAC-SHA256 ..."}, 200, `"ok"`},
		{"/pool", nil, 401, `{"message":"Unauthorized"}`},
		{"/pool", map[string]string{"Authorization": "token"}, 200, `"ok"`},
		{"/custom", map[string]string{"Authorization": "token"}, 401, `{"message":"Unauthorized"}`},
		{"/custom", map[string]string{"X-Token": "token"}, 200, `"ok"`},
		{"/legacy", nil, 401, `{"message":"Unauthorized"}`},
	}
	for _, tc := range cases {
		resp := c.Get(tc.path, tc.hdr)
		if resp.StatusCode != tc.status || string(resp.Body) != tc.body {
			t.Errorf("GET %s %v = %d %s, want %d %s", tc.path, tc.hdr, resp.StatusCode, resp.Body, tc.status, tc.body)
		}
	}
	if got := c.Get("/key", nil).Header("Access-Control-Allow-Origin"); len(got) != 1 {
		t.Errorf("the API key 403 of a CORS route lacks Access-Control-Allow-Origin")
	}
	m, err := apphook.Of(a).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]manifest.Route{}
	for _, r := range m.Routes {
		byPath[r.Path] = r
	}
	if !byPath["/key"].APIKeyRequired || byPath["/key"].CORS == nil {
		t.Errorf("manifest /key: %+v", byPath["/key"])
	}
	if au := byPath["/custom"].Authorizer; au == nil || au.Type != manifest.AuthorizerCustom || au.Header != "X-Token" || au.TTLSeconds != 300 {
		t.Errorf("manifest /custom authorizer: %+v", au)
	}
	if au := byPath["/legacy"].Authorizer; au == nil || au.Type != manifest.AuthorizerUserPool || len(au.ProviderARNs) != 1 {
		t.Errorf("manifest /legacy authorizer: %+v", au)
	}
	if au := byPath["/iam"].Authorizer; au == nil || au.Type != manifest.AuthorizerIAM {
		t.Errorf("manifest /iam authorizer: %+v", au)
	}
}

func TestManifestOrderAndGlobalCORS(t *testing.T) {
	a := framework.New("m")
	a.Route("/b", ok, framework.Methods("POST"), framework.Name("b_post"))
	a.Route("/b", otherOK, framework.Name("b_get"))
	a.Route("/a", ok)
	a.API.CORS = true // set after registration, still applies
	m, err := apphook.Of(a).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range m.Routes {
		got = append(got, r.Path+" "+strings.Join(r.Methods, ",")+" "+r.Handler)
		if r.CORS == nil || r.CORS.AllowOrigin != "*" {
			t.Errorf("%s: global CORS not applied: %+v", r.Path, r.CORS)
		}
	}
	if strings.Join(got, "; ") != "/a GET ok; /b GET b_get; /b POST b_post" {
		t.Errorf("manifest order: %v", got)
	}
	if m.Version != manifest.Version || m.App != "m" || len(m.BinaryTypes) != 16 {
		t.Errorf("manifest header: %+v", m)
	}
}

func TestBodyLimitAndChunked(t *testing.T) {
	a := framework.New("t")
	a.Route("/up", func(r *framework.Request) (any, error) { return len(r.RawBody), nil }, framework.Methods("POST"), framework.ContentTypes("application/octet-stream"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: apphook.Of(a).Handler("dev")}
	go srv.Serve(l)
	defer srv.Close()
	url := "http://" + l.Addr().String() + "/up"

	post := func(body *bytes.Reader, chunked bool) (int, string) {
		req, _ := http.NewRequest("POST", url, body)
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("Accept", "*/*")
		if chunked {
			req.ContentLength = -1 // forces Transfer-Encoding: chunked
			req.Body = io.NopCloser(struct{ io.Reader }{body})
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	if code, body := post(bytes.NewReader(make([]byte, 3<<20)), true); code != 200 || body != fmt.Sprint(3<<20) {
		t.Errorf("chunked 3 MB: %d %s", code, body)
	}
	if code, body := post(bytes.NewReader(make([]byte, maxBodyBytes+1)), false); code != 413 || body != `{"message":"Request Too Long"}` {
		t.Errorf("over 10 MB: %d %s", code, body)
	}
	if code, _ := post(bytes.NewReader(make([]byte, maxBodyBytes+1)), true); code != 413 {
		t.Errorf("chunked over 10 MB: %d", code)
	}
}

// TestBrokenBody: a body the server cannot read in full (a malformed chunk
// size, fewer bytes than Content-Length, a chunked body cut off by a
// half-close) is answered 400 and the connection closed, never 200, and
// the handler does not run on a truncated body. Raw TCP, since net/http's
// client sends only well-formed bodies.
func TestBrokenBody(t *testing.T) {
	a := framework.New("t")
	var ran sync.Map
	a.Route("/echo", func(r *framework.Request) (any, error) {
		ran.Store(string(r.RawBody), true)
		return r.JSONBody()
	}, framework.Methods("POST"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- apphook.Of(a).Serve(ctx, l, "dev") }()
	defer func() { cancel(); <-served }()

	const head = "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
	cases := []struct {
		name      string
		request   string
		halfClose bool
	}{
		{"bad chunk size", head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", false},
		{"shorter than Content-Length", head + "Content-Length: 100\r\n\r\n{\"a\":1}", true},
		{"chunked body cut off", head + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"a\"", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(conn, c.request); err != nil {
				t.Fatal(err)
			}
			if c.halfClose {
				if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
					t.Fatal(err)
				}
			}
			br := bufio.NewReader(conn)
			status, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("no status line: %v", err)
			}
			if !strings.HasPrefix(status, "HTTP/1.1 400 ") {
				t.Fatalf("status line %q, want 400", status)
			}
			resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(status), br)), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			var msg struct{ Message string }
			if json.Unmarshal(body, &msg) != nil || !strings.HasPrefix(msg.Message, "Bad Request: the request body could not be read") {
				t.Errorf("body %s, want API Gateway's JSON message saying the body could not be read", body)
			}
			if !resp.Close {
				t.Error("the connection stays open after a body the server could not read to its end")
			}
			ran.Range(func(k, _ any) bool {
				t.Errorf("the handler ran, with the body %q", k)
				return true
			})
		})
	}
}

// TestConcurrentRequestsDoNotShareState runs with -race in make test.
func TestConcurrentRequestsDoNotShareState(t *testing.T) {
	a := framework.New("t")
	a.Route("/echo/{v}", func(r *framework.Request, v string) (any, error) {
		body, err := r.JSONBody()
		if err != nil {
			return nil, err
		}
		return map[string]any{"v": v, "q": r.QueryParams.Get("q"), "body": body}, nil
	}, framework.Methods("POST"))
	c := frameworktest.New(a)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp := c.Do("POST", fmt.Sprintf("/echo/%d?q=%d", i, i), []byte(fmt.Sprintf(`{"i":%d}`, i)), map[string]string{"Content-Type": "application/json"})
			want := fmt.Sprintf(`{"body":{"i":%d},"q":"%d","v":"%d"}`, i, i, i)
			if string(resp.Body) != want {
				errs <- fmt.Errorf("request %d got %s", i, resp.Body)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestLambdaEventEdgeCases(t *testing.T) {
	a := framework.New("t")
	a.Route("/x", func(r *framework.Request) (any, error) { return string(r.RawBody), nil }, framework.Methods("POST"), framework.ContentTypes("text/plain"))
	out, _ := apphook.Of(a).HandleEvent(t.Context(), events.APIGatewayProxyRequest{HTTPMethod: "POST", Resource: "/x", Path: "/x",
		Headers: map[string]string{"Content-Type": "text/plain"}, Body: "!!!", IsBase64Encoded: true})
	if out.StatusCode != 400 {
		t.Errorf("invalid base64 body: %d %s", out.StatusCode, out.Body)
	}
	out, _ = apphook.Of(a).HandleEvent(t.Context(), events.APIGatewayProxyRequest{HTTPMethod: "POST", Resource: "/x", Path: "/x",
		Headers: map[string]string{"Content-Type": "text/plain"}, Body: "aGk=", IsBase64Encoded: true})
	if out.StatusCode != 200 || out.Body != `"hi"` {
		t.Errorf("base64 body: %d %s", out.StatusCode, out.Body)
	}
	out, _ = apphook.Of(a).HandleEvent(t.Context(), events.APIGatewayProxyRequest{HTTPMethod: "GET", Resource: "/nope", Path: "/nope"})
	if out.StatusCode != 403 {
		t.Errorf("unknown resource: %d", out.StatusCode)
	}
}

func TestRouteAfterServingIsReported(t *testing.T) {
	a := framework.New("t")
	a.Route("/", ok)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	a.Route("/late", ok)
	if resp := frameworktest.New(a).Get("/late", nil); resp.StatusCode != 403 {
		t.Errorf("a late route must not be served: %d", resp.StatusCode)
	}
	err := a.Validate()
	if err == nil || !strings.Contains(err.Error(), "route /late: registered after") {
		t.Fatalf("Validate after a late route = %v", err)
	}
	// The problems are also there one by one, for errors.Is and errors.As.
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != 1 || !strings.HasPrefix(joined.Unwrap()[0].Error(), "route /late: registered after") {
		t.Errorf("Validate's error does not unwrap into its one problem: %#v", err)
	}
}

type ctxKey struct{}

// TestRequestGoSurface: header names in any case, the Go context, API
// Gateway's request context and the raw event, locally and from an event.
func TestRequestGoSurface(t *testing.T) {
	var seen *framework.Request
	a := framework.New("t")
	a.Route("/r", func(r *framework.Request) (any, error) { seen = r; return nil, nil })
	c := frameworktest.New(a)
	hdr := map[string]string{"X-Token": "tok", "Content-Type": "application/json"}
	check := func(how string) {
		t.Helper()
		if got := seen.Headers.Get("X-Token"); got != "tok" {
			t.Errorf("%s: Headers.Get(\"X-Token\") = %q, want tok", how, got)
		}
		if got := seen.Headers.Get("x-token"); got != "tok" {
			t.Errorf("%s: Headers.Get(\"x-token\") = %q, want tok", how, got)
		}
		if got := seen.Headers.Values("X-TOKEN"); len(got) != 1 || got[0] != "tok" {
			t.Errorf("%s: Headers.Values(\"X-TOKEN\") = %q", how, got)
		}
		for name := range seen.Headers {
			if name != strings.ToLower(name) {
				t.Errorf("%s: ranging over Headers gives %q, not lower case", how, name)
			}
		}
		if h := seen.ToDict()["headers"].(map[string]string); h["x-token"] != "tok" {
			t.Errorf("%s: ToDict headers %v lack x-token", how, h)
		}
		if seen.QueryParams.Get("q") != "1" || seen.QueryParams.Get("Q") != "2" {
			t.Errorf("%s: query parameter names must stay case-sensitive: %v", how, seen.QueryParams)
		}
		if seen.GatewayContext.Stage != "dev" || seen.GatewayContext.ResourcePath != "/r" {
			t.Errorf("%s: GatewayContext = %+v", how, seen.GatewayContext)
		}
		if seen.Context() == nil {
			t.Errorf("%s: Context() is nil", how)
		}
	}
	c.Get("/r?q=1&Q=2", hdr)
	check("local")
	if seen.Event() != nil {
		t.Errorf("local: Event() = %+v, want nil", seen.Event())
	}

	ev := c.Event("GET", "/r?q=1&Q=2", nil, hdr)
	ev.RequestContext.DomainName = "abc.execute-api.eu-west-1.amazonaws.com"
	ctx := context.WithValue(t.Context(), ctxKey{}, "lambda")
	if out, err := apphook.Of(a).HandleEvent(ctx, ev); err != nil || out.StatusCode != 200 {
		t.Fatalf("HandleEvent = %d %s, %v", out.StatusCode, out.Body, err)
	}
	check("event")
	if seen.Context().Value(ctxKey{}) != "lambda" {
		t.Error("event: Context() is not the context HandleEvent was given")
	}
	if e := seen.Event(); e == nil || e.RequestContext.DomainName != ev.RequestContext.DomainName || e.Headers["X-Token"] != "tok" {
		t.Errorf("event: Event() = %+v, want the event", e)
	}
}

// TestAcceptQuotedShort: the 400 of a binary response to a request whose
// Accept header names no binary type quotes the start of the header, not
// all of it: 500 entries (about 8 KB, within the front door's 10240 bytes
// of headers) must not come back whole.
func TestAcceptQuotedShort(t *testing.T) {
	a := framework.New("t")
	a.Route("/png", func(r *framework.Request) (any, error) {
		return framework.Response{Body: []byte{0x89, 'P', 'N', 'G'}, Headers: map[string]string{"Content-Type": "image/png"}}, nil
	})
	var accept strings.Builder
	for i := range 500 {
		if i > 0 {
			accept.WriteString(", ")
		}
		fmt.Fprintf(&accept, "text/x-type-%d", i)
	}
	doors(t, a, "GET", "/png", nil, map[string]string{"Accept": accept.String()}, func(t *testing.T, resp *frameworktest.Response) {
		var e struct{ Code, Message string }
		if resp.StatusCode != 400 || json.Unmarshal(resp.Body, &e) != nil || e.Code != "BadRequest" {
			t.Fatalf("= %d %.300s, want the 400 asking for a binary Accept", resp.StatusCode, resp.Body)
		}
		if len(resp.Body) > 1024 {
			t.Errorf("the body is %d bytes: it quotes the whole Accept header (%d bytes)", len(resp.Body), accept.Len())
		}
		if !strings.Contains(e.Message, `"text/x-type-0, text/x-type-1, `) || !strings.Contains(e.Message, "more bytes") {
			t.Errorf("message %.300q: want the start of the header and how much was left out", e.Message)
		}
	})
	doors(t, a, "GET", "/png", nil, map[string]string{"Accept": strings.Repeat("é", 1000)}, func(t *testing.T, resp *frameworktest.Response) {
		if len(resp.Body) > 1024 || !strings.Contains(string(resp.Body), "éé") || strings.Contains(string(resp.Body), `\\x`) {
			t.Errorf("a header of 2-byte characters is cut inside one: %s", resp.Body)
		}
	})
	doors(t, a, "GET", "/png", nil, map[string]string{"Accept": "text/html"}, func(t *testing.T, resp *frameworktest.Response) {
		if !strings.Contains(string(resp.Body), `the request's Accept header was \"text/html\".`) {
			t.Errorf("a short header is quoted whole: %s", resp.Body)
		}
	})
}

// maxBodyBytes is API Gateway's payload limit, which the app applies too.
const maxBodyBytes = 10 << 20

// TestBinaryAcceptFirstType: a REST API decodes a binary answer only when
// the first media type of the request's Accept header is a binary type (or
// */*); a binary type later in the list (a browser's "text/html, ...,
// image/webp, */*;q=0.8") leaves the client with base64 text deployed, so
// local serving and the Lambda adapter refuse it alike, saying why.
func TestBinaryAcceptFirstType(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0xff}
	a := framework.New("t")
	a.Route("/png", func(r *framework.Request) (any, error) {
		return framework.Response{Body: png, Headers: map[string]string{"Content-Type": "image/png"}}, nil
	})
	for _, accept := range []string{"image/png", "IMAGE/PNG;q=0.9, text/html", "*/*, text/html", "application/octet-stream,text/html"} {
		doors(t, a, "GET", "/png", nil, map[string]string{"Accept": accept}, func(t *testing.T, resp *frameworktest.Response) {
			if resp.StatusCode != 200 || string(resp.Body) != string(png) {
				t.Errorf("Accept %q: = %d %q, want 200 and the bytes", accept, resp.StatusCode, resp.Body)
			}
		})
	}
	for _, accept := range []string{"text/html, image/png", "text/html,application/xhtml+xml,image/webp,*/*;q=0.8"} {
		doors(t, a, "GET", "/png", nil, map[string]string{"Accept": accept}, func(t *testing.T, resp *frameworktest.Response) {
			var e struct{ Code, Message string }
			if resp.StatusCode != 400 || json.Unmarshal(resp.Body, &e) != nil || e.Code != "BadRequest" {
				t.Fatalf("Accept %q: = %d %q, want 400 BadRequest: API Gateway looks at the first type only", accept, resp.StatusCode, resp.Body)
			}
			if !strings.Contains(e.Message, "first") {
				t.Errorf("Accept %q: message %q does not say that the first type counts", accept, e.Message)
			}
		})
	}
}

// TestRequestPathDecoded: Request.Path is the percent-decoded path whether
// the local server got the request or a REST API event brought it; the
// event carries the path as the client sent it, still encoded (as its path
// parameters), and frameworktest's events do the same.
func TestRequestPathDecoded(t *testing.T) {
	a := framework.New("t")
	a.Route("/files/{name}", func(r *framework.Request, name string) (any, error) {
		return map[string]string{"path": r.Path, "name": name}, nil
	})
	const want = `{"name":"a b/c","path":"/files/a b/c"}`
	c := frameworktest.New(a)
	if resp := c.Do("GET", "/files/a%20b%2Fc", nil, nil); string(resp.Body) != want {
		t.Errorf("local: %d %s, want %s", resp.StatusCode, resp.Body, want)
	}
	if ev := c.Event("GET", "/files/a%20b%2Fc", nil, nil); ev.Path != "/files/a%20b%2Fc" {
		t.Errorf("frameworktest's event has path %q, want it as sent, encoded", ev.Path)
	}
	if resp := c.Lambda("GET", "/files/a%20b%2Fc", nil, nil); string(resp.Body) != want {
		t.Errorf("frameworktest Lambda: %d %s, want %s", resp.StatusCode, resp.Body, want)
	}
	deployed := events.APIGatewayProxyRequest{
		Resource: "/files/{name}", Path: "/files/a%20b%2Fc", HTTPMethod: "GET",
		PathParameters: map[string]string{"name": "a%20b%2Fc"},
		RequestContext: events.APIGatewayProxyRequestContext{ResourcePath: "/files/{name}", HTTPMethod: "GET", Stage: "dev", Path: "/dev/files/a%20b%2Fc"},
	}
	// An event written by hand (invoke --local) may have no resource, and
	// its path decoded or not.
	byHandEncoded := events.APIGatewayProxyRequest{Path: "/files/a%20b%2Fc", HTTPMethod: "GET"}
	byHandDecoded := events.APIGatewayProxyRequest{Path: "/files/a b", HTTPMethod: "GET"}
	for name, tc := range map[string]struct {
		ev   events.APIGatewayProxyRequest
		want string
	}{
		"deployed": {deployed, want}, "by hand, encoded": {byHandEncoded, want},
		"by hand, decoded": {byHandDecoded, `{"name":"a b","path":"/files/a b"}`},
	} {
		out, err := apphook.Of(a).HandleEvent(t.Context(), tc.ev)
		if err != nil || out.Body != tc.want {
			t.Errorf("%s event: %d %s, %v; want %s", name, out.StatusCode, out.Body, err, tc.want)
		}
	}
}

// TestQueryKeepsEveryPair: a query string pair that is not valid
// percent-encoding ("x=%zz") or holds a ";" reaches the handler as sent
// instead of being dropped, and drops none of the other pairs, locally and
// behind each front door alike.
func TestQueryKeepsEveryPair(t *testing.T) {
	a := framework.New("t")
	a.Route("/q", func(r *framework.Request) (any, error) { return r.QueryParams, nil })
	const want = `{"a":["1;b=2"],"e":[" +"],"x":["%zz"],"y":["1","2"],"z":["100%"]}`
	for _, door := range []string{"rest", "http"} {
		c := frameworktest.New(a)
		c.APIType = door
		for via, do := range map[string]func(string) *frameworktest.Response{
			"local":  func(p string) *frameworktest.Response { return c.Do("GET", p, nil, nil) },
			"lambda": func(p string) *frameworktest.Response { return c.Lambda("GET", p, nil, nil) },
		} {
			resp := do("/q?x=%zz&y=1&a=1;b=2&&e=+%2B&y=2&z=100%")
			if resp.StatusCode != 200 || string(resp.Body) != want {
				t.Errorf("%s via %s: %d %s, want %s", door, via, resp.StatusCode, resp.Body, want)
			}
		}
	}
}

// TestGatewayAnswersCarrySharedCORS: when every CORS route shares one
// setting, the deployed REST API's gateway responses (DEFAULT_4XX and
// DEFAULT_5XX) carry its headers on every answer API Gateway gives itself,
// on any path: an unknown route, an undeclared method, a missing API key on
// a route without CORS. A browser reads those answers deployed, so the
// local server and frameworktest's Lambda path give them the headers too;
// the function's own answers on a route without CORS get none.
func TestGatewayAnswersCarrySharedCORS(t *testing.T) {
	ok := func(*framework.Request) (any, error) { return "ok", nil }
	a := framework.New("t")
	a.API.CORS = true
	a.Route("/a", ok)
	a.Route("/plain", ok, framework.CORS(false), framework.APIKeyRequired())
	c := frameworktest.New(a)
	for _, tc := range []struct {
		method, path string
		headers      map[string]string
		status       int
		cors         bool
	}{
		{"GET", "/nope", nil, 403, true},
		{"DELETE", "/a", nil, 403, true},
		{"GET", "/plain", nil, 403, true},
		{"GET", "/plain", map[string]string{"X-Api-Key": "k"}, 200, false},
		{"GET", "/a", nil, 200, true},
	} {
		for via, resp := range map[string]*frameworktest.Response{
			"local":  c.Do(tc.method, tc.path, nil, tc.headers),
			"lambda": c.Lambda(tc.method, tc.path, nil, tc.headers),
		} {
			got := resp.Header("Access-Control-Allow-Origin") != nil
			if resp.StatusCode != tc.status || got != tc.cors {
				t.Errorf("%s %s %v via %s: %d, CORS headers %v; want %d, %v", tc.method, tc.path, tc.headers, via, resp.StatusCode, got, tc.status, tc.cors)
			}
		}
	}
	// Routes with different CORS settings: the API keeps API Gateway's
	// default gateway responses, without CORS headers.
	b := framework.New("t")
	b.Route("/a", ok, framework.CORS(true))
	b.Route("/b", ok, framework.WithCORS(framework.CORSConfig{AllowOrigin: "https://x.example"}))
	if resp := frameworktest.New(b).Get("/nope", nil); resp.StatusCode != 403 || resp.Header("Access-Control-Allow-Origin") != nil {
		t.Errorf("mixed CORS settings: GET /nope = %d %v, want 403 without CORS headers", resp.StatusCode, resp.Headers)
	}
	// Nor on a CORS path's own refusal (a missing API key): the headers of
	// that path are the function's, and the function does not run.
	m := framework.New("t")
	m.Route("/a", ok, framework.CORS(true))
	m.Route("/keyed", ok, framework.WithCORS(framework.CORSConfig{AllowOrigin: "https://x.example"}), framework.APIKeyRequired())
	cb := frameworktest.New(m)
	for via, resp := range map[string]*frameworktest.Response{"local": cb.Get("/keyed", nil), "lambda": cb.Lambda("GET", "/keyed", nil, nil)} {
		if resp.StatusCode != 403 || resp.Header("Access-Control-Allow-Origin") != nil {
			t.Errorf("mixed CORS settings: GET /keyed without a key via %s = %d %v, want 403 without CORS headers, as deployed", via, resp.StatusCode, resp.Headers)
		}
	}
	if resp := cb.Get("/keyed", map[string]string{"X-Api-Key": "k"}); resp.StatusCode != 200 || resp.Header("Access-Control-Allow-Origin") == nil {
		t.Errorf("GET /keyed with a key = %d %v, want 200 with the path's CORS headers", resp.StatusCode, resp.Headers)
	}
}

// TestResponseHeaderNotSendable: a Response header whose name is not an
// HTTP token, or whose value holds a line break or NUL, is the handler's
// error (500, with an error line naming the header), locally and through
// the Lambda adapter alike; net/http would send the value with the breaks
// turned into spaces and drop the name without a word, so the mistake
// showed only once deployed.
func TestResponseHeaderNotSendable(t *testing.T) {
	for name, hdr := range map[string]map[string]string{
		"line break in a value": {"Location": "/next\r\nSet-Cookie: session=stolen"},
		"space in a name":       {"X Bad": "v"},
		"empty name":            {"": "v"},
	} {
		var log bytes.Buffer
		a := framework.New("t")
		a.ErrorLog = &log
		a.Route("/h", func(*framework.Request) (any, error) {
			return framework.Response{Body: "x", Headers: hdr}, nil
		})
		doors(t, a, "GET", "/h", nil, nil, func(t *testing.T, resp *frameworktest.Response) {
			if resp.StatusCode != 500 || resp.Header("Set-Cookie") != nil {
				t.Errorf("%s: %d %v %s, want the 500 of a handler error", name, resp.StatusCode, resp.Headers, resp.Body)
			}
		})
		if !strings.Contains(log.String(), "header") {
			t.Errorf("%s: the error line does not name the header: %s", name, log.String())
		}
	}
}

// TestAPIEventWithoutMethod: an event for the API's function that is not
// an API Gateway proxy event (no httpMethod: the {} that `framework invoke
// api` sends without --payload, or an event meant for another handler)
// fails the invocation with an EventError saying what to send, and writes
// the error line, instead of answering API Gateway's 403 "Missing
// Authentication Token", which pointed at credentials.
func TestAPIEventWithoutMethod(t *testing.T) {
	var log bytes.Buffer
	a := framework.New("t")
	a.ErrorLog = &log
	a.Route("/", func(*framework.Request) (any, error) { return "ok", nil })
	for _, ev := range []string{`{}`, `{"path":"/"}`, `{"Records":[{"body":"x"}]}`} {
		log.Reset()
		out, err := apphook.Of(a).Invoke(t.Context(), "api", []byte(ev))
		var ee *framework.EventError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), "httpMethod") || !strings.Contains(err.Error(), `{"httpMethod":"GET","path":"/"}`) {
			t.Errorf("event %s: %s, %v; want an EventError naming httpMethod and showing an event to send", ev, out, err)
		}
		if !strings.Contains(log.String(), "httpMethod") {
			t.Errorf("event %s: no error line: %q", ev, log.String())
		}
	}
	if out, err := apphook.Of(a).Invoke(t.Context(), "api", []byte(`{"httpMethod":"GET","path":"/"}`)); err != nil || !strings.Contains(string(out), `"statusCode":200`) {
		t.Errorf("a proxy event: %s, %v", out, err)
	}
}
