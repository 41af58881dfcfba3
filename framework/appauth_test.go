package framework_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
)

// gateApp has a token authorizer deciding on the token's text, and a
// request authorizer on a tenant header and a key query parameter.
func gateApp(calls *atomic.Int32) *framework.App {
	app := framework.New("gated")
	app.ErrorLog = io.Discard
	gate := framework.AppAuthorizer{Name: "gate", Header: "X-Token", Func: func(_ context.Context, in framework.AuthRequest) (framework.AuthResult, error) {
		calls.Add(1)
		switch {
		case strings.HasPrefix(in.Token, "allow-"):
			return framework.AuthResult{Allow: true, PrincipalID: strings.TrimPrefix(in.Token, "allow-"),
				Context: map[string]any{"tenant": "acme", "level": 3, "admin": true, "route": in.Method + " " + in.Path}}, nil
		case in.Token == "deny":
			return framework.AuthResult{PrincipalID: "someone"}, nil
		case in.Token == "expired":
			return framework.AuthResult{}, framework.UnauthorizedError{Message: "token expired"}
		case in.Token == "nested":
			return framework.AuthResult{Allow: true, PrincipalID: "n", Context: map[string]any{"user": map[string]string{"id": "1"}}}, nil
		}
		return framework.AuthResult{}, errors.New("the token service is down")
	}}
	tenant := &framework.AppAuthorizer{Name: "tenant", IdentitySources: []string{"header.X-Tenant", "query.key"}, TTLSeconds: -1,
		Func: func(_ context.Context, in framework.AuthRequest) (framework.AuthResult, error) {
			calls.Add(1)
			ok := in.Headers.Get("x-tenant") == "acme" && in.QueryParams["key"][0] == "k1" && in.URIParams["id"] == "a b"
			return framework.AuthResult{Allow: ok, PrincipalID: "t-" + in.Headers.Get("x-tenant"), Context: map[string]any{"path": in.Path}}, nil
		}}
	whoami := func(r *framework.Request) (any, error) {
		out := maps.Clone(r.GatewayContext.Authorizer)
		delete(out, "integrationLatency")
		return out, nil
	}
	app.Route("/me", whoami, framework.WithAuthorizer(gate))
	app.Route("/me", whoami, framework.WithAuthorizer(gate), framework.Methods("POST"))
	app.Route("/t/{id}", func(r *framework.Request, id string) (any, error) { return whoami(r) }, framework.WithAuthorizer(tenant))
	app.Route("/open", func(r *framework.Request) (any, error) { return r.GatewayContext.Authorizer == nil, nil })
	return app
}

// TestAppAuthorizerLocalAndLambda: the same requests get the same answers
// from the local server and through the Lambda adapter, with REST
// authorizer events behind a REST API and 2.0 authorizer events behind an
// HTTP API: the front door's refusals (401 for a missing token, and on a
// REST API for an UnauthorizedError; 403 for a deny; 500 for a failure or
// a context it cannot pass on), and on allow the handler sees the
// principal and the context as strings, on both.
func TestAppAuthorizerLocalAndLambda(t *testing.T) {
	const (
		explicitDeny = `{"Message":"User is not authorized to access this resource with an explicit deny"}`
		unauthorized = `{"message":"Unauthorized"}`
		forbidden    = `{"message":"Forbidden"}`
	)
	type testCase struct {
		method, path string
		headers      map[string]string
		status       int
		body         string
		httpStatus   int    // behind an HTTP API, when not the same
		httpBody     string //
		called       bool
	}
	cases := []testCase{
		{"GET", "/me", nil, 401, unauthorized, 0, "", false},
		{"GET", "/me", map[string]string{"X-Token": "allow-ann"}, 200, `{"admin":"true","level":"3","principalId":"ann","route":"GET /me","tenant":"acme"}`, 0, "", true},
		{"POST", "/me", map[string]string{"X-Token": "allow-bob"}, 200, `{"admin":"true","level":"3","principalId":"bob","route":"POST /me","tenant":"acme"}`, 0, "", true},
		{"GET", "/me", map[string]string{"X-Token": "deny"}, 403, explicitDeny, 403, forbidden, true},
		{"GET", "/me", map[string]string{"X-Token": "expired"}, 401, unauthorized, 403, forbidden, true},
		{"GET", "/me", map[string]string{"X-Token": "what"}, 500, `{"message":null}`, 500, `{"message":"Internal Server Error"}`, true},
		{"GET", "/me", map[string]string{"X-Token": "nested"}, 500, `{"message":null}`, 500, `{"message":"Internal Server Error"}`, true},
		{"GET", "/t/a%20b?key=k1", map[string]string{"X-Tenant": "acme"}, 200, `{"path":"/t/a b","principalId":"t-acme"}`, 0, "", true},
		{"GET", "/t/a%20b?key=k2", map[string]string{"X-Tenant": "acme"}, 403, explicitDeny, 403, forbidden, true},
		{"GET", "/t/a%20b", map[string]string{"X-Tenant": "acme"}, 401, unauthorized, 0, "", false},
		{"GET", "/t/a%20b?key=k1", nil, 401, unauthorized, 0, "", false},
		{"GET", "/open", nil, 200, `true`, 0, "", false},
	}
	for _, door := range []string{"rest", "http"} {
		for _, via := range []string{"local", "lambda"} {
			// A new app each time: API Gateway would answer a token it
			// has seen from its cache, without calling the authorizer.
			var calls atomic.Int32
			c := frameworktest.New(gateApp(&calls))
			c.APIType = door
			for _, tc := range cases {
				status, body := tc.status, tc.body
				if door == "http" && tc.httpStatus != 0 {
					status, body = tc.httpStatus, tc.httpBody
				}
				calls.Store(0)
				var res *frameworktest.Response
				if via == "local" {
					res = c.Do(tc.method, tc.path, nil, tc.headers)
				} else {
					res = c.Lambda(tc.method, tc.path, nil, tc.headers)
				}
				if res.StatusCode != status || string(res.Body) != body {
					t.Errorf("%s %s %v, %s via %s: got %d %s, want %d %s", tc.method, tc.path, tc.headers, door, via, res.StatusCode, res.Body, status, body)
				}
				if got := calls.Load() > 0; got != tc.called {
					t.Errorf("%s %s %v, %s via %s: authorizer called: %v, want %v", tc.method, tc.path, tc.headers, door, via, got, tc.called)
				}
			}
		}
	}
}

// invokeJSON invokes the handler name with event and decodes its result.
func invokeJSON(t *testing.T, app *framework.App, name string, event any, out any) error {
	t.Helper()
	b, err := json.Marshal(event)
	if err != nil {
		t.Fatal(err)
	}
	res, err := apphook.Of(app).Invoke(context.Background(), name, b)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s answered %s: %v", name, res, err)
	}
	return nil
}

// TestAppAuthorizerLambdaEvents: deployed, the authorizer's function
// answers REST TOKEN and REQUEST events with an IAM policy (for the whole
// stage when decisions are cached, for the method only when not), fails
// with exactly "Unauthorized" for an UnauthorizedError, and answers HTTP
// API 2.0 events with a simple response.
func TestAppAuthorizerLambdaEvents(t *testing.T) {
	var calls atomic.Int32
	app := gateApp(&calls)
	const arn = "arn:aws:execute-api:eu-west-1:111122223333:abc123/prod/GET/me"

	var pol events.APIGatewayCustomAuthorizerResponse
	if err := invokeJSON(t, app, "gate", events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "allow-ann", MethodArn: arn}, &pol); err != nil {
		t.Fatal(err)
	}
	st := pol.PolicyDocument.Statement
	if pol.PrincipalID != "ann" || len(st) != 1 || st[0].Effect != "Allow" || st[0].Resource[0] != "arn:aws:execute-api:eu-west-1:111122223333:abc123/prod/*" || st[0].Action[0] != "execute-api:Invoke" {
		t.Errorf("TOKEN allow: got %+v", pol)
	}
	if pol.Context["tenant"] != "acme" || pol.Context["level"] != float64(3) || pol.Context["route"] != "GET /me" {
		t.Errorf("TOKEN allow: context %v", pol.Context)
	}
	pol = events.APIGatewayCustomAuthorizerResponse{}
	if err := invokeJSON(t, app, "gate", events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "deny", MethodArn: arn}, &pol); err != nil {
		t.Fatal(err)
	}
	if st := pol.PolicyDocument.Statement; len(st) != 1 || st[0].Effect != "Deny" {
		t.Errorf("TOKEN deny: got %+v", pol)
	}
	err := invokeJSON(t, app, "gate", events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "expired", MethodArn: arn}, &pol)
	if err == nil || err.Error() != "Unauthorized" {
		t.Errorf("TOKEN UnauthorizedError: got error %v, want exactly Unauthorized", err)
	}

	// A REQUEST event; TTL -1: the policy names the method only. Its path
	// is as the client sent it, percent-encoded; Func sees it decoded.
	tarn := "arn:aws:execute-api:eu-west-1:111122223333:abc123/prod/GET/t/a%20b"
	req := events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type: "REQUEST", MethodArn: tarn, Resource: "/t/{id}", Path: "/t/a%20b", HTTPMethod: "GET",
		Headers: map[string]string{"X-Tenant": "acme"}, QueryStringParameters: map[string]string{"key": "k1"},
		PathParameters: map[string]string{"id": "a%20b"},
	}
	pol = events.APIGatewayCustomAuthorizerResponse{}
	if err := invokeJSON(t, app, "tenant", req, &pol); err != nil {
		t.Fatal(err)
	}
	if st := pol.PolicyDocument.Statement; pol.PrincipalID != "t-acme" || len(st) != 1 || st[0].Effect != "Allow" || st[0].Resource[0] != tarn {
		t.Errorf("REQUEST allow: got %+v", pol)
	}
	if pol.Context["path"] != "/t/a b" {
		t.Errorf("REQUEST allow: Func saw the path %q, want it decoded, as locally", pol.Context["path"])
	}

	// HTTP API, payload 2.0: simple responses.
	v2 := events.APIGatewayV2CustomAuthorizerV2Request{
		Version: "2.0", Type: "REQUEST", RouteArn: "arn:aws:execute-api:eu-west-1:111122223333:abc123/$default/GET/me",
		IdentitySource: []string{"allow-cy"}, RouteKey: "GET /me", RawPath: "/me",
		Headers:        map[string]string{"x-token": "allow-cy"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/me"}},
	}
	var simple events.APIGatewayV2CustomAuthorizerSimpleResponse
	if err := invokeJSON(t, app, "gate", v2, &simple); err != nil {
		t.Fatal(err)
	}
	if !simple.IsAuthorized || simple.Context["principalId"] != "cy" || simple.Context["tenant"] != "acme" || simple.Context["admin"] != "true" || simple.Context["level"] != "3" || simple.Context["route"] != "GET /me" {
		t.Errorf("HTTP API allow: got %+v", simple)
	}
	for _, token := range []string{"deny", "expired"} {
		v2.Headers["x-token"] = token
		simple = events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: true}
		if err := invokeJSON(t, app, "gate", v2, &simple); err != nil {
			t.Fatal(err)
		}
		if simple.IsAuthorized {
			t.Errorf("HTTP API %s: authorized", token)
		}
	}
	v2.Headers["x-token"] = "what"
	if err := invokeJSON(t, app, "gate", v2, &simple); err == nil || !strings.Contains(err.Error(), "token service is down") {
		t.Errorf("HTTP API failure: got error %v", err)
	}
	if err := invokeJSON(t, app, "gate", map[string]string{"type": "WEBSOCKET"}, &simple); err == nil || !strings.Contains(err.Error(), "expected a REST API TOKEN or REQUEST event or an HTTP API 2.0 event") {
		t.Errorf("an event of no authorizer: got error %v", err)
	}
}

// TestAppAuthorizerManifest: each app authorizer is one function of kind
// authorizer, and the routes' authorizer says token or request and the TTL.
func TestAppAuthorizerManifest(t *testing.T) {
	var calls atomic.Int32
	m, err := apphook.Of(gateApp(&calls)).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var fns []string
	for _, f := range m.Functions {
		fns = append(fns, string(f.Kind)+":"+f.Name)
	}
	if strings.Join(fns, " ") != "authorizer:gate authorizer:tenant" {
		t.Errorf("functions: %v", fns)
	}
	byPath := map[string]*manifest.Authorizer{}
	for _, r := range m.Routes {
		byPath[r.Path] = r.Authorizer
	}
	if a := byPath["/me"]; a == nil || a.Type != "app" || a.Header != "X-Token" || a.TTLSeconds != 300 || a.IdentitySources != nil {
		t.Errorf("/me: %+v", a)
	}
	if a := byPath["/t/{id}"]; a == nil || a.Type != "app" || a.Header != "" || a.TTLSeconds != 0 || strings.Join(a.IdentitySources, ",") != "header.X-Tenant,query.key" {
		t.Errorf("/t/{id}: %+v", a)
	}
}

// TestAppAuthorizerDeclarationErrors: mistakes are declaration errors that
// say what to do.
func TestAppAuthorizerDeclarationErrors(t *testing.T) {
	allow := func(context.Context, framework.AuthRequest) (framework.AuthResult, error) {
		return framework.AuthResult{Allow: true, PrincipalID: "p"}, nil
	}
	other := func(context.Context, framework.AuthRequest) (framework.AuthResult, error) {
		return framework.AuthResult{}, nil
	}
	h := func(*framework.Request) (any, error) { return nil, nil }
	for _, tc := range []struct {
		name  string
		build func(app *framework.App)
		want  string
	}{
		{"nil pointer", func(app *framework.App) {
			app.Route("/", h, framework.WithAuthorizer((*framework.AppAuthorizer)(nil)))
		}, "WithAuthorizer(nil): pass a RoleAuthorizer"},
		{"nil func", func(app *framework.App) {
			app.Route("/", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate"}))
		}, `app authorizer "gate": Func is nil`},
		{"two funcs, one name", func(app *framework.App) {
			app.Route("/a", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", Func: allow}))
			app.Route("/b", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", Func: other}))
		}, "declare the AppAuthorizer once and pass it to every route"},
		{"two headers, one name", func(app *framework.App) {
			app.Route("/a", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", Func: allow}))
			app.Route("/b", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", Header: "X-T", Func: allow}))
		}, `define authorizer "gate" differently (header Authorization vs X-T)`},
		{"bad name", func(app *framework.App) {
			app.Route("/", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "my gate", Func: allow}))
		}, "an app authorizer's name is also its Lambda function's"},
		{"bad identity source", func(app *framework.App) {
			app.Route("/", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", IdentitySources: []string{"cookie.sid"}, Func: allow}))
		}, `identity source "cookie.sid": write header.NAME (a request header) or query.NAME`},
		{"header and sources", func(app *framework.App) {
			app.Route("/", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", Header: "X-T", IdentitySources: []string{"query.k"}, Func: allow}))
		}, "a token authorizer has Header, a request authorizer IdentitySources; keep one"},
		{"TTL", func(app *framework.App) {
			app.Route("/", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", TTLSeconds: 4000, Func: allow}))
		}, "TTL 4000 s is outside API Gateway's 0..3600"},
		{"name of a function", func(app *framework.App) {
			framework.LambdaFunction(app, "gate", func(context.Context, int) (int, error) { return 0, nil })
			app.Route("/", h, framework.WithAuthorizer(framework.AppAuthorizer{Name: "gate", Func: allow}))
		}, `two functions are named "gate"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := framework.New("bad")
			tc.build(app)
			err := app.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// jwt returns an unsigned JWT with the given claims (its signature is
// not checked locally).
func jwt(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + ".c2ln"
}

// TestJWTAuthorizerHTTP: behind an HTTP API, a JWTAuthorizer and a
// UserPoolAuthorizer with its app clients are JWT authorizers: locally and
// through the Lambda adapter (with the 2.0 event an HTTP API sends), a
// token of another issuer or audience, an expired one or none is 401, and
// the handler sees a good token's claims and scopes.
func TestJWTAuthorizerHTTP(t *testing.T) {
	app := framework.New("jwts")
	claims := func(r *framework.Request) (any, error) { return r.GatewayContext.Authorizer, nil }
	app.Route("/jwt", claims, framework.WithAuthorizer(framework.JWTAuthorizer{Name: "jwt", Issuer: "https://id.example.com", Audiences: []string{"api", "cli"}}))
	app.Route("/pool", claims, framework.WithAuthorizer(framework.UserPoolAuthorizer{Name: "pool", ClientIDs: []string{"client-1"},
		ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_abc"}}))
	c := frameworktest.New(app)
	c.APIType = "http"
	later := float64(time.Now().Add(time.Hour).Unix())
	pool := "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc"
	for _, tc := range []struct {
		path, token string
		status      int
		body        string
	}{
		{"/jwt", "", 401, `{"message":"Unauthorized"}`},
		{"/jwt", "not-a-jwt", 401, `{"message":"Unauthorized"}`},
		{"/jwt", "Bearer " + jwt(map[string]any{"iss": "https://id.example.com", "aud": "cli", "sub": "u1", "exp": later, "scope": "read write"}), 200,
			`{"claims":{"aud":"cli","exp":"` + strconv.FormatFloat(later, 'f', -1, 64) + `","iss":"https://id.example.com","scope":"read write","sub":"u1"},"scopes":["read","write"]}`},
		{"/jwt", jwt(map[string]any{"iss": "https://other.example.com", "aud": "cli", "exp": later}), 401, `{"message":"Unauthorized"}`},
		{"/jwt", jwt(map[string]any{"iss": "https://id.example.com", "aud": []string{"web"}, "exp": later}), 401, `{"message":"Unauthorized"}`},
		{"/jwt", jwt(map[string]any{"iss": "https://id.example.com", "aud": "api", "exp": 1000}), 401, `{"message":"Unauthorized"}`},
		{"/pool", jwt(map[string]any{"iss": pool, "client_id": "client-1", "exp": later, "token_use": "access"}), 200,
			`{"claims":{"client_id":"client-1","exp":"` + strconv.FormatFloat(later, 'f', -1, 64) + `","iss":"` + pool + `","token_use":"access"},"scopes":null}`},
		{"/pool", jwt(map[string]any{"iss": pool, "client_id": "client-2", "exp": later}), 401, `{"message":"Unauthorized"}`},
	} {
		var h map[string]string
		if tc.token != "" {
			h = map[string]string{"Authorization": tc.token}
		}
		for via, res := range map[string]*frameworktest.Response{"local": c.Get(tc.path, h), "lambda": c.Lambda("GET", tc.path, nil, h)} {
			if res.StatusCode != tc.status || string(res.Body) != tc.body {
				t.Errorf("GET %s with %q via %s: %d %s, want %d %s", tc.path, tc.token, via, res.StatusCode, res.Body, tc.status, tc.body)
			}
		}
	}
	// A JWT authorizer's declaration is checked.
	bad := framework.New("bad")
	bad.Route("/", claims, framework.WithAuthorizer(framework.JWTAuthorizer{Name: "j", Issuer: "http://id.example.com"}))
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `issuer "http://id.example.com" is not an https URL`) {
		t.Errorf("plain-http issuer: %v", err)
	}
	bad = framework.New("bad")
	bad.Route("/", claims, framework.WithAuthorizer(framework.JWTAuthorizer{Name: "j", Issuer: "https://id.example.com"}))
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "no audiences") {
		t.Errorf("no audiences: %v", err)
	}
}

// TestAppAuthorizerDenyWithCORS: with CORS on every route, the deployed
// REST API's gateway responses (which carry the CORS headers) write the
// deny's body with their template, {"message": ...}; the local server and
// the Lambda path answer the same, with the CORS headers.
func TestAppAuthorizerDenyWithCORS(t *testing.T) {
	app := framework.New("corsy")
	app.API.CORS = true
	gate := framework.AppAuthorizer{Name: "gate", Func: func(context.Context, framework.AuthRequest) (framework.AuthResult, error) {
		return framework.AuthResult{}, nil
	}}
	app.Route("/", func(*framework.Request) (any, error) { return "ok", nil }, framework.WithAuthorizer(gate))
	c := frameworktest.New(app)
	for via, res := range map[string]*frameworktest.Response{
		"local":  c.Get("/", map[string]string{"Authorization": "t"}),
		"lambda": c.Lambda("GET", "/", nil, map[string]string{"Authorization": "t"}),
	} {
		if res.StatusCode != 403 || string(res.Body) != `{"message":"User is not authorized to access this resource with an explicit deny"}` || res.Header("Access-Control-Allow-Origin") == nil {
			t.Errorf("via %s: %d %s %v", via, res.StatusCode, res.Body, res.Headers)
		}
	}
}

// TestAppAuthorizerCache: as API Gateway does, an authorizer's answer is
// cached for its TTL per token and stands for every route it protects, so
// a Func deciding per route is answered from the cache on another route;
// with caching off (-1) it is called every time. Failures are not cached.
func TestAppAuthorizerCache(t *testing.T) {
	for _, door := range []string{"rest", "http"} {
		for _, ttl := range []int{0, -1} {
			var calls atomic.Int32
			app := framework.New("cached")
			app.ErrorLog = io.Discard
			perRoute := framework.AppAuthorizer{Name: "per-route", TTLSeconds: ttl, Func: func(_ context.Context, in framework.AuthRequest) (framework.AuthResult, error) {
				calls.Add(1)
				if in.Token == "flaky" && calls.Load() == 1 {
					return framework.AuthResult{}, errors.New("first call fails")
				}
				return framework.AuthResult{Allow: in.Path == "/a", PrincipalID: "p"}, nil
			}}
			h := func(*framework.Request) (any, error) { return "ok", nil }
			app.Route("/a", h, framework.WithAuthorizer(perRoute))
			app.Route("/b", h, framework.WithAuthorizer(perRoute))
			c := frameworktest.New(app)
			c.APIType = door
			tok := map[string]string{"Authorization": "t1"}
			got := []int{c.Get("/a", tok).StatusCode, c.Get("/a", tok).StatusCode, c.Get("/b", tok).StatusCode}
			want, wantCalls := []int{200, 200, 200}, int32(1) // /b allowed by /a's cached answer
			if ttl == -1 {
				want, wantCalls = []int{200, 200, 403}, 3
			}
			if !slices.Equal(got, want) || calls.Load() != wantCalls {
				t.Errorf("%s, TTL %d: statuses %v, want %v; %d calls, want %d", door, ttl, got, want, calls.Load(), wantCalls)
			}
			calls.Store(0)
			flaky := map[string]string{"Authorization": "flaky"}
			if s1, s2 := c.Get("/a", flaky).StatusCode, c.Get("/a", flaky).StatusCode; s1 != 500 || s2 != 200 || calls.Load() != 2 {
				t.Errorf("%s, TTL %d: a failure then a success: %d %d, %d calls; want 500 200, 2 calls", door, ttl, s1, s2, calls.Load())
			}
		}
	}
}
