package framework

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

// TestAuthorizeHTTP: API Gateway's side of an HTTP API Lambda authorizer
// (payload 2.0, simple responses), which `framework local` runs for an
// http stage: the token reaches Func, a refusal is 403 {"message":"Forbidden"},
// a failure 500, and on allow the handler finds the context with the
// principal id, its values as strings, as behind a REST API.
func TestAuthorizeHTTP(t *testing.T) {
	app := New("h")
	app.ErrorLog = io.Discard
	gate := AppAuthorizer{Name: "gate", TTLSeconds: -1, Func: func(_ context.Context, in AuthRequest) (AuthResult, error) {
		switch in.Token {
		case "ok":
			return AuthResult{Allow: true, PrincipalID: "p", Context: map[string]any{"n": 2, "path": in.Method + " " + in.Path}}, nil
		case "no":
			return AuthResult{}, nil
		}
		return AuthResult{}, context.DeadlineExceeded
	}}
	app.Route("/items/{id}", func(*Request, string) (any, error) { return nil, nil }, WithAuthorizer(gate))
	t2, err := app.compiled()
	if err != nil {
		t.Fatal(err)
	}
	e, args := t2.match("/items/7")
	decl := e.methods["GET"].authorizerDecl
	for _, tc := range []struct {
		token, status, body, passed string
	}{
		{"ok", "", "", `{"n":"2","path":"GET /items/7","principalId":"p"}`},
		{"no", "403", `{"message":"Forbidden"}`, "null"},
		{"??", "500", `{"message":"Internal Server Error"}`, "null"},
	} {
		req := &Request{Method: "GET", Path: "/items/7", Headers: Headers{"authorization": {tc.token}}}
		res, passed := app.authorizeHTTP(context.Background(), decl, newAuthCall(req, e, args, "123456789012", "api", "$default"))
		status, body := "", ""
		if res != nil {
			status, body = strconv.Itoa(res.status), string(res.body)
		}
		p, _ := json.Marshal(passed)
		if status != tc.status || body != tc.body || string(p) != tc.passed {
			t.Errorf("token %q: got %q %s %s, want %q %s %s", tc.token, status, body, p, tc.status, tc.body, tc.passed)
		}
	}
}
