package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// exampleManifests builds each example app once per test binary.
var exampleManifests = struct {
	sync.Mutex
	m map[string]*manifest.Manifest
}{m: map[string]*manifest.Manifest{}}

func exampleManifest(t *testing.T, name string) *manifest.Manifest {
	t.Helper()
	exampleManifests.Lock()
	defer exampleManifests.Unlock()
	if m := exampleManifests.m[name]; m != nil {
		return m
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m, err := build.Manifest(ctx, filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatalf("building the %s example's manifest: %v", name, err)
	}
	exampleManifests.m[name] = m
	return m
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"hello", "kitchensink"} {
		t.Run(name, func(t *testing.T) {
			m := exampleManifest(t, name)
			doc, err := Build(m, Options{Title: name + "-dev", IntegrationURI: testURI})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", name+".json"), got, *update)
		})
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestGoldenKitchensinkContent checks, beyond the bytes, what the
// kitchensink body must hold for the app to work deployed.
func TestGoldenKitchensinkContent(t *testing.T) {
	m := exampleManifest(t, "kitchensink")
	doc, err := Build(m, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	paths := doc["paths"].(map[string]any)
	want := 0
	for _, r := range m.Routes {
		for _, method := range r.Methods {
			want++
			op, ok := get(paths, r.Path, strings.ToLower(method))
			if !ok {
				t.Errorf("route %s %s is missing", method, r.Path)
				continue
			}
			if uri, _ := get(op, ExtIntegration, "uri"); uri != testURI {
				t.Errorf("%s %s: integration uri %v", method, r.Path, uri)
			}
		}
	}
	got := 0
	for _, item := range paths {
		for _, op := range item.(map[string]any) {
			if typ, _ := get(op, ExtIntegration, "type"); typ == "aws_proxy" {
				got++
			}
		}
	}
	if got != want {
		t.Errorf("the body has %d proxy operations, the manifest %d route methods", got, want)
	}
	// kitchensink's two CORS routes differ (one allows any origin, one a
	// single origin with credentials): no gateway response may grant
	// either's origin to the other.
	if _, ok := doc[ExtGatewayResponses]; ok {
		t.Errorf("gateway responses set although the CORS routes disagree")
	}
	if bt := compact(doc[ExtBinaryMediaTypes]); !strings.Contains(bt, `"application/json"`) || !strings.Contains(bt, `"application/octet-stream"`) {
		t.Errorf("binary media types %s lack application/json (gzip route) or application/octet-stream", bt)
	}
}

type check struct {
	path []string
	want string // JSON; "" means the key must be absent
}

func TestFeatures(t *testing.T) {
	custom := func(name string, ttl int) *manifest.Authorizer {
		return &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: name, Header: "X-Token", TTLSeconds: ttl,
			AuthorizerURI: "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations"}
	}
	pool := &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization",
		ProviderARNs: []string{"arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_B", "arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_A"}}
	with := func(r manifest.Route, f func(*manifest.Route)) manifest.Route {
		f(&r)
		return r
	}
	fullCORS := &manifest.CORS{AllowOrigin: "https://foo.example.com", AllowHeaders: append(append([]string(nil), manifest.DefaultCORSHeaders...), "X-Special-Header"),
		ExposeHeaders: []string{"X-Total", "X-Next"}, MaxAge: 600, AllowCredentials: true}
	proxy := `{"type":"aws_proxy","httpMethod":"POST","uri":"` + testURI + `","passthroughBehavior":"when_no_match"}`
	defaultAllowHeaders := "Authorization,Content-Type,X-Amz-Date,X-Amz-Security-Token,X-Api-Key"

	cases := []struct {
		name   string
		m      *manifest.Manifest
		opts   Options
		checks []check
	}{
		{
			name: "plain route: proxy integration, nothing else",
			m:    newManifest(route("/", "index")),
			checks: []check{
				{[]string{"openapi"}, `"3.0.1"`},
				{[]string{"info"}, `{"title":"demo","version":"1.0"}`},
				{[]string{"paths", "/", "get"}, `{"responses":{"200":{"description":"OK"}},"x-amazon-apigateway-integration":` + proxy + `}`},
				{[]string{"paths", "/", "options"}, ""},
				{[]string{"components"}, ""},
				{[]string{ExtAPIKeySource}, ""},
				{[]string{ExtGatewayResponses}, ""},
				{[]string{ExtBinaryMediaTypes}, `[]`},
			},
		},
		{
			name:   "title from the options",
			m:      newManifest(route("/", "index")),
			opts:   Options{Title: "demo-prod", IntegrationURI: testURI},
			checks: []check{{[]string{"info", "title"}, `"demo-prod"`}},
		},
		{
			name: "binary types with a plain slash, in order, without duplicates",
			m: func() *manifest.Manifest {
				m := newManifest(route("/", "index"))
				m.BinaryTypes = []string{"image/png", "application/octet-stream", "*/*", "image/png"}
				return m
			}(),
			checks: []check{{[]string{ExtBinaryMediaTypes}, `["image/png","application/octet-stream","*/*"]`}},
		},
		{
			name: "captures become path parameters, in order",
			m:    newManifest(route("/users/{name}/posts/{post}", "post", "GET", "PUT"), route("/users", "users")),
			checks: []check{
				{[]string{"paths", "/users/{name}/posts/{post}", "get", "parameters"}, `[{"name":"name","in":"path","required":true,"schema":{"type":"string"}},{"name":"post","in":"path","required":true,"schema":{"type":"string"}}]`},
				{[]string{"paths", "/users/{name}/posts/{post}", "put", "parameters", "1", "name"}, `"post"`},
				{[]string{"paths", "/users", "get", "parameters"}, ""},
			},
		},
		{
			name: "a shared path with two handlers",
			m:    newManifest(route("/shared", "shared_get"), route("/shared", "shared_post", "POST")),
			checks: []check{
				{[]string{"paths", "/shared", "get", ExtIntegration}, proxy},
				{[]string{"paths", "/shared", "post", ExtIntegration}, proxy},
				{[]string{"paths", "/shared", "options"}, ""},
			},
		},
		{
			name: "CORS(true) on a shared path: one preflight with both handlers' methods",
			m: newManifest(with(route("/shared", "a", "GET", "PUT"), func(r *manifest.Route) { r.CORS = defaultCORS() }),
				with(route("/shared", "b", "DELETE"), func(r *manifest.Route) { r.CORS = defaultCORS() })),
			checks: []check{
				{[]string{"paths", "/shared", "options", ExtIntegration}, `{"type":"mock","requestTemplates":{"application/json":"{\"statusCode\": 200}"},"passthroughBehavior":"when_no_match",
					"responses":{"default":{"statusCode":"200","responseTemplates":{"application/json":""},"responseParameters":{
					"method.response.header.Access-Control-Allow-Methods":"'DELETE,GET,PUT,OPTIONS'",
					"method.response.header.Access-Control-Allow-Origin":"'*'",
					"method.response.header.Access-Control-Allow-Headers":"'` + defaultAllowHeaders + `'"}}}}`},
				{[]string{"paths", "/shared", "options", "responses", "200", "headers"}, `{"Access-Control-Allow-Methods":{"schema":{"type":"string"}},"Access-Control-Allow-Origin":{"schema":{"type":"string"}},"Access-Control-Allow-Headers":{"schema":{"type":"string"}}}`},
				{[]string{"paths", "/shared", "options", "security"}, ""},
				{[]string{ExtGatewayResponses, "DEFAULT_4XX"}, `{"responseParameters":{"gatewayresponse.header.Access-Control-Allow-Origin":"'*'","gatewayresponse.header.Access-Control-Allow-Headers":"'` + defaultAllowHeaders + `'"},
					"responseTemplates":{"application/json":"{\"message\":$context.error.messageString}"}}`},
				{[]string{ExtGatewayResponses, "DEFAULT_5XX", "responseParameters", "gatewayresponse.header.Access-Control-Allow-Origin"}, `"'*'"`},
			},
		},
		{
			name: "CORSConfig: every header, on the preflight and the gateway responses",
			m:    newManifest(with(route("/c/{id}", "c", "GET", "PUT"), func(r *manifest.Route) { r.CORS = fullCORS })),
			checks: []check{
				{[]string{"paths", "/c/{id}", "options", ExtIntegration, "responses", "default", "responseParameters"}, `{
					"method.response.header.Access-Control-Allow-Methods":"'GET,PUT,OPTIONS'",
					"method.response.header.Access-Control-Allow-Origin":"'https://foo.example.com'",
					"method.response.header.Access-Control-Allow-Headers":"'` + defaultAllowHeaders + `,X-Special-Header'",
					"method.response.header.Access-Control-Expose-Headers":"'X-Total,X-Next'",
					"method.response.header.Access-Control-Max-Age":"'600'",
					"method.response.header.Access-Control-Allow-Credentials":"'true'"}`},
				{[]string{"paths", "/c/{id}", "options", "parameters", "0", "name"}, `"id"`},
				{[]string{ExtGatewayResponses, "DEFAULT_4XX", "responseParameters"}, `{
					"gatewayresponse.header.Access-Control-Allow-Origin":"'https://foo.example.com'",
					"gatewayresponse.header.Access-Control-Allow-Headers":"'` + defaultAllowHeaders + `,X-Special-Header'",
					"gatewayresponse.header.Access-Control-Expose-Headers":"'X-Total,X-Next'",
					"gatewayresponse.header.Access-Control-Max-Age":"'600'",
					"gatewayresponse.header.Access-Control-Allow-Credentials":"'true'"}`},
			},
		},
		{
			name: "CORS routes that disagree: no gateway responses",
			m: newManifest(with(route("/a", "a"), func(r *manifest.Route) { r.CORS = defaultCORS() }),
				with(route("/b", "b"), func(r *manifest.Route) { r.CORS = fullCORS }), route("/c", "c")),
			checks: []check{
				{[]string{ExtGatewayResponses}, ""},
				{[]string{"paths", "/a", "options", ExtIntegration, "type"}, `"mock"`},
				{[]string{"paths", "/b", "options", ExtIntegration, "type"}, `"mock"`},
				{[]string{"paths", "/c", "options"}, ""},
			},
		},
		{
			name: "API key",
			m:    newManifest(with(route("/k", "k", "GET", "POST"), func(r *manifest.Route) { r.APIKeyRequired = true }), route("/open", "open")),
			checks: []check{
				{[]string{"paths", "/k", "get", "security"}, `[{"api_key":[]}]`},
				{[]string{"paths", "/k", "post", "security"}, `[{"api_key":[]}]`},
				{[]string{"paths", "/open", "get", "security"}, ""},
				{[]string{"components", "securitySchemes"}, `{"api_key":{"type":"apiKey","name":"x-api-key","in":"header"}}`},
				{[]string{ExtAPIKeySource}, `"HEADER"`},
			},
		},
		{
			name: "IAM authorizer",
			m: newManifest(with(route("/iam", "iam"), func(r *manifest.Route) {
				r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerIAM}
			})),
			checks: []check{
				{[]string{"paths", "/iam", "get", "security"}, `[{"sigv4":[]}]`},
				{[]string{"components", "securitySchemes"}, `{"sigv4":{"type":"apiKey","name":"Authorization","in":"header","x-amazon-apigateway-authtype":"awsSigv4"}}`},
				{[]string{ExtAPIKeySource}, ""},
			},
		},
		{
			name: "Cognito user pool authorizer",
			m:    newManifest(with(route("/pool", "p"), func(r *manifest.Route) { r.Authorizer = pool })),
			checks: []check{
				{[]string{"paths", "/pool", "get", "security"}, `[{"pool":[]}]`},
				{[]string{"components", "securitySchemes", "pool"}, `{"type":"apiKey","name":"Authorization","in":"header","x-amazon-apigateway-authtype":"cognito_user_pools",
					"x-amazon-apigateway-authorizer":{"type":"cognito_user_pools","identitySource":"method.request.header.Authorization",
					"providerARNs":["arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_A","arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_B"]}}`},
			},
		},
		{
			name: "custom TOKEN authorizer, default TTL",
			m:    newManifest(with(route("/tok", "t"), func(r *manifest.Route) { r.Authorizer = custom("tok", 0) })),
			checks: []check{
				{[]string{"paths", "/tok", "get", "security"}, `[{"tok":[]}]`},
				{[]string{"components", "securitySchemes", "tok"}, `{"type":"apiKey","name":"X-Token","in":"header","x-amazon-apigateway-authtype":"custom",
					"x-amazon-apigateway-authorizer":{"type":"token","identitySource":"method.request.header.X-Token","authorizerResultTtlInSeconds":300,
					"authorizerUri":"arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations"}}`},
			},
		},
		{
			name:   "custom TOKEN authorizer, its own TTL",
			m:      newManifest(with(route("/tok", "t"), func(r *manifest.Route) { r.Authorizer = custom("tok", 60) })),
			checks: []check{{[]string{"components", "securitySchemes", "tok", ExtAuthorizer, "authorizerResultTtlInSeconds"}, `60`}},
		},
		{
			name: "API key and authorizer: one requirement naming both",
			m: newManifest(with(route("/both", "b"), func(r *manifest.Route) {
				r.APIKeyRequired, r.Authorizer = true, custom("tok", 0)
			})),
			checks: []check{{[]string{"paths", "/both", "get", "security"}, `[{"api_key":[],"tok":[]}]`}},
		},
		{
			name: "routes sharing an authorizer share its scheme",
			m: newManifest(with(route("/a", "a"), func(r *manifest.Route) { r.Authorizer = custom("tok", 0) }),
				with(route("/b", "b", "POST"), func(r *manifest.Route) { r.Authorizer = custom("tok", 300) })),
			checks: []check{
				{[]string{"paths", "/a", "get", "security"}, `[{"tok":[]}]`},
				{[]string{"paths", "/b", "post", "security"}, `[{"tok":[]}]`},
				{[]string{"components", "securitySchemes", "tok", ExtAuthorizer, "type"}, `"token"`},
			},
		},
		{
			name: "app authorizers: token and request, with their functions' URIs",
			m: func() *manifest.Manifest {
				m := newManifest(with(route("/a", "a"), func(r *manifest.Route) {
					r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerApp, Name: "gate", Header: "X-Token", TTLSeconds: 300}
				}), with(route("/b/{id}", "b"), func(r *manifest.Route) {
					r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerApp, Name: "tenant", IdentitySources: []string{"query.key", "header.X-Tenant"}}
				}))
				m.Functions = []manifest.Function{{Name: "gate", Kind: manifest.KindAuthorizer}, {Name: "tenant", Kind: manifest.KindAuthorizer}}
				return m
			}(),
			opts: Options{IntegrationURI: testURI, AuthorizerURIs: map[string]string{"gate": "uri:gate", "tenant": "uri:tenant"}},
			checks: []check{
				{[]string{"paths", "/a", "get", "security"}, `[{"gate":[]}]`},
				{[]string{"components", "securitySchemes", "gate"}, `{"type":"apiKey","name":"X-Token","in":"header","x-amazon-apigateway-authtype":"custom",
					"x-amazon-apigateway-authorizer":{"type":"token","identitySource":"method.request.header.X-Token","authorizerResultTtlInSeconds":300,"authorizerUri":"uri:gate"}}`},
				{[]string{"paths", "/b/{id}", "get", "security"}, `[{"tenant":[]}]`},
				{[]string{"components", "securitySchemes", "tenant"}, `{"type":"apiKey","name":"key","in":"query","x-amazon-apigateway-authtype":"custom",
					"x-amazon-apigateway-authorizer":{"type":"request","identitySource":"method.request.querystring.key, method.request.header.X-Tenant","authorizerResultTtlInSeconds":0,"authorizerUri":"uri:tenant"}}`},
			},
		},
		{
			name: "authorizer names that are not component keys, or are taken",
			m: newManifest(with(route("/a", "a"), func(r *manifest.Route) { r.Authorizer = custom("my auth!", 0) }),
				with(route("/b", "b"), func(r *manifest.Route) { r.Authorizer = custom("my_auth_", 0) }),
				with(route("/c", "c"), func(r *manifest.Route) {
					r.Authorizer = custom("sigv4", 0)
				}),
				with(route("/d", "d"), func(r *manifest.Route) {
					r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerIAM}
				})),
			checks: []check{
				{[]string{"paths", "/a", "get", "security"}, `[{"` + SchemeName("my auth!") + `":[]}]`},
				{[]string{"paths", "/b", "get", "security"}, `[{"my_auth_":[]}]`},
				{[]string{"paths", "/c", "get", "security"}, `[{"` + SchemeName("sigv4") + `":[]}]`},
				{[]string{"paths", "/d", "get", "security"}, `[{"sigv4":[]}]`},
				{[]string{"components", "securitySchemes", "sigv4", ExtAuthType}, `"awsSigv4"`},
				{[]string{"components", "securitySchemes", SchemeName("sigv4"), ExtAuthType}, `"custom"`},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts.IntegrationURI == "" {
				opts = testOptions
			}
			doc, err := Build(tc.m, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tc.checks {
				got, ok := get(doc, c.path...)
				at := strings.Join(c.path, " → ")
				if c.want == "" {
					if ok {
						t.Errorf("%s: want absent, got %s", at, compact(got))
					}
					continue
				}
				if !ok {
					t.Errorf("%s: absent, want %s", at, c.want)
					continue
				}
				if want := mustJSON(t, c.want); !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %s\nwant %s", at, compact(got), compact(want))
				}
			}
		})
	}
}

func TestSharedCORS(t *testing.T) {
	other := defaultCORS()
	other.AllowOrigin = "https://a.example.com"
	// The same headers written differently: an unsorted list without the defaults.
	sameAsDefault := &manifest.CORS{AllowOrigin: "*", AllowHeaders: []string{"X-Api-Key", "Authorization"}}
	for _, tc := range []struct {
		name  string
		cors  []*manifest.CORS
		want  *manifest.CORS
		isNil bool
	}{
		{"no CORS route", []*manifest.CORS{nil, nil}, nil, true},
		{"one setting", []*manifest.CORS{nil, defaultCORS(), defaultCORS()}, defaultCORS(), false},
		{"one setting written two ways", []*manifest.CORS{defaultCORS(), sameAsDefault}, defaultCORS(), false},
		{"two settings", []*manifest.CORS{defaultCORS(), nil, other}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newManifest()
			for i, c := range tc.cors {
				r := route("/r"+itoa(i), "h")
				r.CORS = c
				m.Routes = append(m.Routes, r)
			}
			got := SharedCORS(m)
			if tc.isNil != (got == nil) || (got != nil && !got.Equal(tc.want)) {
				t.Errorf("SharedCORS = %s, want %s", compact(got), compact(tc.want))
			}
		})
	}
}

func TestSchemeName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" means: sanitized with a hash suffix
	}{
		{"pool", "pool"}, {"My-Pool.v2_x", "My-Pool.v2_x"}, {"api_key", ""}, {"sigv4", ""}, {"my auth", ""}, {"é", ""}, {"", ""},
	} {
		got := SchemeName(tc.in)
		if tc.want != "" && got != tc.want {
			t.Errorf("SchemeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !schemeNameRe.MatchString(got) || got == SchemeAPIKey || got == SchemeSigV4 {
			t.Errorf("SchemeName(%q) = %q: not a usable component key", tc.in, got)
		}
	}
	if a, b := SchemeName("my auth"), SchemeName("my_auth"); a == b {
		t.Errorf("two names share the scheme %q", a)
	}
	if a, b := SchemeName("my auth"), SchemeName("my!auth"); a == b {
		t.Errorf("two names share the scheme %q", a)
	}
	if SchemeName("x y") != SchemeName("x y") {
		t.Error("SchemeName is not deterministic")
	}
}

func TestBuildErrors(t *testing.T) {
	with := func(r manifest.Route, f func(*manifest.Route)) manifest.Route {
		f(&r)
		return r
	}
	tok := func(name, header, uri string) *manifest.Authorizer {
		return &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: name, Header: header, AuthorizerURI: uri, TTLSeconds: 300}
	}
	const uri = "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:1:function:a/invocations"
	cases := []struct {
		name string
		m    *manifest.Manifest
		opts Options
		want []string // substrings of the error
	}{
		{"unknown authorizer kind", newManifest(route("/ok", "ok"), with(route("/x", "xh"), func(r *manifest.Route) {
			r.Authorizer = &manifest.Authorizer{Type: "saml", Name: "s"}
		})), testOptions, []string{`route GET /x (handler "xh")`, `"saml"`, "unknown"}},
		{"conflicting authorizer definitions", newManifest(
			with(route("/a", "ah"), func(r *manifest.Route) { r.Authorizer = tok("auth", "Authorization", uri) }),
			with(route("/b", "bh", "POST"), func(r *manifest.Route) { r.Authorizer = tok("auth", "X-Other", uri) }),
		), testOptions, []string{`route GET /a (handler "ah")`, `route POST /b (handler "bh")`, `"auth"`, "header Authorization vs X-Other"}},
		{"authorizer name used by two kinds", newManifest(
			with(route("/a", "ah"), func(r *manifest.Route) { r.Authorizer = tok("auth", "Authorization", uri) }),
			with(route("/b", "bh"), func(r *manifest.Route) {
				r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "auth", Header: "Authorization", ProviderARNs: []string{"arn:aws:cognito-idp:us-east-1:1:userpool/p"}}
			}),
		), testOptions, []string{`(handler "ah")`, `(handler "bh")`, "kind custom vs cognito_user_pools"}},
		{"custom authorizer without a Lambda URI", newManifest(with(route("/a", "ah"), func(r *manifest.Route) { r.Authorizer = tok("auth", "Authorization", "https://example.com") })),
			testOptions, []string{`(handler "ah")`, "not a Lambda invocation URI"}},
		{"user pool without ARNs", newManifest(with(route("/a", "ah"), func(r *manifest.Route) {
			r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "p", Header: "Authorization"}
		})), testOptions, []string{`(handler "ah")`, "no provider ARNs"}},
		{"authorizer without a name", newManifest(with(route("/a", "ah"), func(r *manifest.Route) { r.Authorizer = tok("", "Authorization", uri) })),
			testOptions, []string{`(handler "ah")`, "no name"}},
		{"authorizer without a header", newManifest(with(route("/a", "ah"), func(r *manifest.Route) { r.Authorizer = tok("t", "", uri) })),
			testOptions, []string{`(handler "ah")`, "not a request header name"}},
		{"app authorizer without its function's URI", func() *manifest.Manifest {
			m := newManifest(with(route("/a", "ah"), func(r *manifest.Route) {
				r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerApp, Name: "gate", Header: "Authorization"}
			}))
			m.Functions = []manifest.Function{{Name: "gate", Kind: manifest.KindAuthorizer}}
			return m
		}(), testOptions, []string{`(handler "ah")`, `app authorizer "gate"`, "AuthorizerURIs has no invocation URI"}},
		{"app authorizer without its function", newManifest(with(route("/a", "ah"), func(r *manifest.Route) {
			r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerApp, Name: "gate", Header: "Authorization"}
		})), testOptions, []string{`(handler "ah")`, `no function of kind authorizer named "gate"`}},
		{"one method, two handlers", newManifest(route("/s", "one", "GET", "POST"), route("/s", "two", "POST")),
			testOptions, []string{`(handler "one")`, `(handler "two")`, "both declare POST"}},
		{"different CORS on a shared path", newManifest(with(route("/s", "one"), func(r *manifest.Route) { r.CORS = defaultCORS() }), route("/s", "two", "POST")),
			testOptions, []string{`(handler "one")`, `(handler "two")`, "CORS"}},
		{"OPTIONS on a CORS path", newManifest(with(route("/s", "one", "GET", "OPTIONS"), func(r *manifest.Route) { r.CORS = defaultCORS() })),
			testOptions, []string{`(handler "one")`, "OPTIONS"}},
		{"a single quote in a CORS value", newManifest(with(route("/s", "one"), func(r *manifest.Route) {
			r.CORS = defaultCORS()
			r.CORS.ExposeHeaders = []string{"X-It's"}
		})), testOptions, []string{`(handler "one")`, "single quote"}},
		{"unknown method", newManifest(route("/s", "one", "get")), testOptions, []string{`(handler "one")`, `"get"`}},
		{"no methods", newManifest(manifest.Route{Path: "/s", Handler: "one"}), testOptions, []string{`(handler "one")`, "no methods"}},
		{"a path without its slash", newManifest(route("s", "one")), testOptions, []string{`(handler "one")`, `does not start with "/"`}},
		{"a malformed capture", newManifest(route("/s/{a}b", "one")), testOptions, []string{`(handler "one")`, "capture"}},
		{"a greedy capture", newManifest(route("/s/{proxy+}", "one")), testOptions, []string{`(handler "one")`, "capture"}},
		// Paths the runtime refuses are refused here too (one ParsePath).
		{"a capture name starting with a digit", newManifest(route("/s/{1d}", "one")), testOptions, []string{`(handler "one")`, "capture"}},
		{"a character API Gateway refuses in a path", newManifest(route("/s/a b", "one")), testOptions, []string{`(handler "one")`, `"a b"`, "characters"}},
		{"a trailing slash", newManifest(route("/s/", "one")), testOptions, []string{`(handler "one")`, `end with "/"`}},
		{"one path, two capture names", newManifest(route("/u/{a}", "one"), route("/u/{b}", "two", "POST")), testOptions, []string{"/u/{a}", "/u/{b}", "capture names"}},
		{"two handlers of one name on a path", newManifest(route("/s", "one"), route("/s", "one", "POST")), testOptions, []string{"route /s", `two handlers named "one"`}},
		{"a list of origins", newManifest(with(route("/s", "one"), func(r *manifest.Route) {
			r.CORS = defaultCORS()
			r.CORS.AllowOrigin = "https://a.example,https://b.example"
		})), testOptions, []string{`(handler "one")`, "single origin"}},
		{"content types mixing binary and not", func() *manifest.Manifest {
			m := newManifest(with(route("/s", "one", "POST"), func(r *manifest.Route) { r.ContentTypes = []string{"image/png", "application/json"} }))
			m.BinaryTypes = []string{"image/png"}
			return m
		}(), testOptions, []string{`(handler "one")`, "mix binary and non-binary"}},
		{"binary type escaped with ~1", func() *manifest.Manifest {
			m := newManifest(route("/", "index"))
			m.BinaryTypes = []string{"image~1png"}
			return m
		}(), testOptions, []string{`"image~1png"`, `"image/png"`}},
		{"no integration URI", newManifest(route("/", "index")), Options{}, []string{"IntegrationURI"}},
		{"no title", func() *manifest.Manifest { m := newManifest(route("/", "index")); m.App = ""; return m }(), testOptions, []string{"title"}},
		{"another manifest version", func() *manifest.Manifest { m := newManifest(route("/", "index")); m.Version = 99; return m }(), testOptions, []string{"version 99"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Build(tc.m, tc.opts)
			if err == nil {
				t.Fatalf("no error; body %s", compact(doc))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestDeterministicAndJSONReady builds twice and checks the same bytes come
// out, and that the value is exactly what JSON decoding gives back.
func TestDeterministicAndJSONReady(t *testing.T) {
	for name, m := range map[string]*manifest.Manifest{"kitchensink": exampleManifest(t, "kitchensink"), "big": bigManifest(300)} {
		t.Run(name, func(t *testing.T) {
			before := compact(m)
			var outs [][]byte
			var first map[string]any
			for range 2 {
				doc, err := Build(m, testOptions)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = doc
				}
				b, err := Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, b)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Fatalf("two builds differ:\n%s", testutil.FirstDiff(string(outs[0]), string(outs[1])))
			}
			if !bytes.HasSuffix(outs[0], []byte("}\n")) {
				t.Errorf("Marshal output does not end with a newline")
			}
			var decoded map[string]any
			if err := json.Unmarshal(outs[0], &decoded); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(first, decoded) {
				t.Errorf("Build's value is not what its JSON decodes to (a type JSON does not give back, such as int or []string)")
			}
			if bytes.Contains(outs[0], []byte(`\u00`)) {
				t.Errorf("Marshal escaped characters that need no escape")
			}
			if compact(m) != before {
				t.Errorf("Build changed the manifest")
			}
		})
	}
}

// TestLargeManifest: 1,000 routes build into one body that fits a
// CloudFormation template (1 MB at most) with room to spare; the sizes are
// logged (go test -v -run LargeManifest).
func TestLargeManifest(t *testing.T) {
	const limit = 1 << 20 // CloudFormation's template size limit, bytes
	for _, tc := range []struct {
		name string
		m    *manifest.Manifest
		max  int // bytes of compact JSON
	}{
		// 1,000 handlers on 500 paths, 1,250 methods (1,417 operations with
		// the preflights): about 54% of the limit.
		{"typical", typicalManifest(1000), limit * 6 / 10},
		// 1,000 handlers on 1,000 paths with 2,000 methods (2,333 operations), a third with
		// CORS, a quarter with two captures: about the limit itself; a
		// regression bound only (see the package documentation on size).
		{"heavy", bigManifest(1000), limit * 11 / 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Build(tc.m, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			indented, err := Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			compactBytes, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			paths := doc["paths"].(map[string]any)
			ops := 0
			for _, item := range paths {
				ops += len(item.(map[string]any))
			}
			oneSpace, err := json.MarshalIndent(doc, "", " ") // as CDK writes template.json
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d routes: %d paths, %d operations (OPTIONS included), %d bytes compact (%.0f per operation), %d indented by one space, %d by two",
				len(tc.m.Routes), len(paths), ops, len(compactBytes), float64(len(compactBytes))/float64(ops), len(oneSpace), len(indented))
			if len(compactBytes) > tc.max {
				t.Errorf("the compact body is %d bytes, over %d", len(compactBytes), tc.max)
			}
			if per := len(compactBytes) / ops; per > 500 {
				t.Errorf("%d bytes per operation: the body grew", per)
			}
			want := map[string]bool{}
			for _, r := range tc.m.Routes {
				want[r.Path] = true
			}
			if len(paths) != len(want) {
				t.Errorf("%d paths, the manifest has %d", len(paths), len(want))
			}
		})
	}
	doc, err := Build(bigManifest(1000), testOptions)
	if err != nil {
		t.Fatal(err)
	}
	schemes, _ := get(doc, "components", "securitySchemes")
	if n := len(schemes.(map[string]any)); n != 6 { // api_key, sigv4, pool, custom0..2
		t.Errorf("%d security schemes, want 6: %s", n, compact(schemes))
	}
}

func BenchmarkBuild1000(b *testing.B) {
	m := typicalManifest(1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(m, testOptions); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildMarshal1000(b *testing.B) {
	m := typicalManifest(1000)
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Build(m, testOptions)
		if err != nil {
			b.Fatal(err)
		}
		out, err := Marshal(doc)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
}
