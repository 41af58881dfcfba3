package framework_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/manifest"
)

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
	m := &manifest.Manifest{Version: manifest.Version, App: "t",
		Routes: []manifest.Route{{Path: "/a/{x}/{x}", Methods: []string{"GET"}, Handler: "h", ContentTypes: []string{"application/json"}}}}
	_, parseErr := manifest.ParsePath("/a/{x}/{x}")
	for name, err := range map[string]error{"route": route.Validate(), "group": grouped.Validate(), "manifest": manifest.Validate(m), "ParsePath": parseErr} {
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
	if _, err := manifest.ParsePath("/{x}/{x2}/{x}"); err == nil || !strings.Contains(err.Error(), "/{x}/{x2}/{x3}") {
		t.Errorf("ParsePath(/{x}/{x2}/{x}) = %v, want the suggestion /{x}/{x2}/{x3}", err)
	}
}

// TestDeclarationErrorsSayWhere: an error about a route names the line
// that declared it, so that two registrations of one path and handler can
// be told apart and each mistake found in the source.
func TestDeclarationErrorsSayWhere(t *testing.T) {
	h := func(*framework.Request) (any, error) { return nil, nil }
	h1 := func(*framework.Request, string) (any, error) { return nil, nil }
	app := framework.New("t")
	_, _, line, _ := runtime.Caller(0)
	app.Route("/a", h, framework.Name("h"))
	app.Route("/a", h, framework.Name("h"))
	app.Route("/b/", h)
	app.Route("/c/{x}", h)
	app.Route("/d/{x}", h1)
	app.Route("/d/{y}", h1, framework.Methods("POST"))
	err := app.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	at := func(k int) string { return fmt.Sprintf("framework/validate_test.go:%d", line+k) }
	for _, want := range []struct {
		about string
		lines []int
	}{
		{"two handlers named", []int{2}},
		{"method GET is served by both", []int{1, 2}},
		{`must not end with "/"`, []int{3}},
		{"capture parameter(s)", []int{4}},
		{"different capture names", []int{5, 6}},
	} {
		var msg string
		for _, l := range strings.Split(err.Error(), "\n") {
			if strings.Contains(l, want.about) {
				msg = l
			}
		}
		if msg == "" {
			t.Errorf("no error says %q: %v", want.about, err)
			continue
		}
		for _, k := range want.lines {
			if !strings.Contains(msg, at(k)) {
				t.Errorf("%q does not name %s", msg, at(k))
			}
		}
	}
}
