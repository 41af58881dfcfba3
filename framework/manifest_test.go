package framework_test

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
)

func TestParsePath(t *testing.T) {
	for pattern, want := range map[string]string{
		"/": "", "/users": "", "/users/{name}": "name", "/a/{x}/b/{y_2}": "x,y_2", "/a:b/@x~y": "", "/it's/(ok)": "",
	} {
		got, err := framework.ParsePath(pattern)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", pattern, got, err, want)
		}
	}
	for pattern, word := range map[string]string{
		"users": `start with "/"`, "/users/": `end with "/"`, "/a//b": "empty path segment", "/a/{1d}": "malformed",
		"/a/x{id}": "malformed", "/a/{proxy+}": "malformed", "/a/{id}/{id}": "appears twice", "/a b": "characters",
	} {
		if _, err := framework.ParsePath(pattern); err == nil || !strings.Contains(err.Error(), word) {
			t.Errorf("ParsePath(%q) = %v, want an error saying %q", pattern, err, word)
		}
	}
}

func TestValidMethod(t *testing.T) {
	for _, m := range framework.SupportedMethods() {
		if !framework.ValidMethod(m) {
			t.Errorf("ValidMethod(%q) = false", m)
		}
	}
	for _, m := range []string{"get", "FETCH", "", "CONNECT"} {
		if framework.ValidMethod(m) {
			t.Errorf("ValidMethod(%q) = true", m)
		}
	}
	if got := strings.Join(framework.SupportedMethods(), ","); got != "GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS" {
		t.Errorf("SupportedMethods() = %s", got)
	}
}

// TestManifestCORSHeaders: the headers a CORS setting makes, defaults
// filled in, in the order the runtime sends them.
func TestManifestCORSHeaders(t *testing.T) {
	c := &framework.ManifestCORS{AllowHeaders: []string{"X-Special", "Authorization"}, ExposeHeaders: []string{"X-Total", "X-Next"}, MaxAge: 600, AllowCredentials: true}
	var got []string
	for _, h := range c.PreflightHeaders([]string{"PUT", "GET"}) {
		got = append(got, h.Name+": "+h.Value)
	}
	want := []string{
		"Access-Control-Allow-Methods: GET,PUT,OPTIONS",
		"Access-Control-Allow-Origin: *",
		"Access-Control-Allow-Headers: Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key,X-Special",
		"Access-Control-Expose-Headers: X-Total,X-Next",
		"Access-Control-Max-Age: 600",
		"Access-Control-Allow-Credentials: true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("preflight headers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	same := &framework.ManifestCORS{AllowOrigin: "*", AllowHeaders: []string{"X-Api-Key"}}
	if !same.Equal(&framework.ManifestCORS{}) || same.Equal(c) || same.Equal(nil) || !(*framework.ManifestCORS)(nil).Equal(nil) {
		t.Error("Equal does not compare the headers the settings make")
	}
}

// TestManifestValidate: the checks that need no handler run on a manifest
// as written, each error naming its route.
func TestManifestValidate(t *testing.T) {
	r := func(path, handler string, methods ...string) framework.ManifestRoute {
		return framework.ManifestRoute{Path: path, Methods: methods, Handler: handler, ContentTypes: []string{"application/json"}}
	}
	cors := &framework.ManifestCORS{AllowOrigin: "*"}
	withCORS := func(x framework.ManifestRoute) framework.ManifestRoute { x.CORS = cors; return x }
	ok := &framework.Manifest{Version: framework.ManifestVersion, App: "a", Routes: []framework.ManifestRoute{
		r("/", "index", "GET"), withCORS(r("/u/{id}", "get", "GET")), withCORS(r("/u/{id}", "put", "PUT")),
	}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a valid manifest: %v", err)
	}
	bad := &framework.Manifest{Version: framework.ManifestVersion, App: "a", BinaryTypes: []string{"image~1png"}, Routes: []framework.ManifestRoute{
		r("/x/", "trailing", "GET"),
		r("/m", "lower", "get"),
		withCORS(r("/o", "own", "OPTIONS")),
		r("/s", "one", "GET", "POST"), r("/s", "two", "POST"),
		r("/u/{a}", "ua", "GET"), r("/u/{b}", "ub", "POST"),
	}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("Validate() = nil on an invalid manifest")
	}
	for _, w := range []string{
		`"image~1png"`, `route /x/ (handler "trailing")`, `route /m (handler "lower"): method "get"`, `route /o (handler "own"): OPTIONS`,
		`route /s: method POST is served by both "one" and "two"`, `/s (handler "one") and /s (handler "two") both declare POST`, "routes /u/{a} and /u/{b}",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %q, does not say %q", err, w)
		}
	}
}

// TestValidateAuthorizerDefinedTwice: one authorizer name declared two ways
// on two routes is a start-up error of the app, not a surprise at synth.
func TestValidateAuthorizerDefinedTwice(t *testing.T) {
	const uri = "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations"
	ok := func(*framework.Request) (any, error) { return nil, nil }
	app := framework.New("auth")
	app.Route("/a", ok, framework.WithAuthorizer(framework.CustomAuthorizer{Name: "tok", AuthorizerURI: uri}))
	app.Route("/b", ok, framework.WithAuthorizer(framework.CustomAuthorizer{Name: "tok", Header: "X-Token", AuthorizerURI: uri}))
	err := app.Validate()
	if err == nil {
		t.Fatal("Validate() = nil for one authorizer name with two headers")
	}
	for _, w := range []string{`route GET /a (handler "`, `route GET /b (handler "`, `define authorizer "tok" differently`, "header Authorization vs X-Token"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Validate() = %q, does not say %q", err, w)
		}
	}
}

// TestDuplicateCaptureMessage: a path naming one capture twice is reported
// as that, with the name and a path to use instead, and not as a handler
// with the wrong number of captures; wherever the path comes from: a
// route, a group under a prefix with a capture, or a manifest alone (as
// internal/openapi reads one).
func TestDuplicateCaptureMessage(t *testing.T) {
	two := func(*framework.Request, string, string) (any, error) { return nil, nil }
	route := framework.New("t")
	route.Route("/a/{x}/{x}", two)
	grouped := framework.New("t")
	g := framework.NewGroup("g")
	g.Route("/{x}", two)
	grouped.Register("/a/{x}", g)
	manifest := &framework.Manifest{Version: framework.ManifestVersion, App: "t",
		Routes: []framework.ManifestRoute{{Path: "/a/{x}/{x}", Methods: []string{"GET"}, Handler: "h", ContentTypes: []string{"application/json"}}}}
	_, parseErr := framework.ParsePath("/a/{x}/{x}")
	for name, err := range map[string]error{"route": route.Validate(), "group": grouped.Validate(), "manifest": manifest.Validate(), "ParsePath": parseErr} {
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		msg := err.Error()
		for _, want := range []string{`capture name "x" appears twice in the path`, "/a/{x}/{x2}"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", name, msg, want)
			}
		}
		if strings.Contains(msg, "capture(s)") {
			t.Errorf("%s: %q blames the handler's arguments", name, msg)
		}
	}
	// The suggested name is one the path does not use yet.
	if _, err := framework.ParsePath("/{x}/{x2}/{x}"); err == nil || !strings.Contains(err.Error(), "/{x}/{x2}/{x3}") {
		t.Errorf("ParsePath(/{x}/{x2}/{x}) = %v, want the suggestion /{x}/{x2}/{x3}", err)
	}
}
