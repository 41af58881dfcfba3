package openapi

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/manifest"
)

// Parity tests: for every route of a manifest, what the body makes API
// Gateway answer is what framework's local server (its API Gateway
// emulation, framework/gateway.go) answers for the same request.

const tokURI = "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:auth/invocations"

// sortRoutes puts routes in framework's manifest order.
func sortRoutes(m *manifest.Manifest) *manifest.Manifest {
	sort.SliceStable(m.Routes, func(i, j int) bool {
		if m.Routes[i].Path != m.Routes[j].Path {
			return m.Routes[i].Path < m.Routes[j].Path
		}
		return m.Routes[i].Methods[0] < m.Routes[j].Methods[0]
	})
	return m
}

func parityManifests(t *testing.T) map[string]*manifest.Manifest {
	with := func(r manifest.Route, f func(*manifest.Route)) manifest.Route {
		f(&r)
		return r
	}
	iam := &manifest.Authorizer{Type: manifest.AuthorizerIAM}
	tok := &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: "tok", Header: "X-Token", AuthorizerURI: tokURI, TTLSeconds: 300}
	pool := &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization",
		ProviderARNs: []string{"arn:aws:cognito-idp:us-east-1:123456789012:userpool/us-east-1_A"}}

	shared := func(r manifest.Route) manifest.Route { r.CORS = defaultCORS(); return r }
	secured := sortRoutes(newManifest(
		shared(with(route("/items", "list"), func(r *manifest.Route) { r.APIKeyRequired = true })),
		shared(with(route("/items/{id}", "item", "GET", "PUT"), func(r *manifest.Route) { r.Authorizer = iam })),
		shared(with(route("/items/{id}", "remove", "DELETE"), func(r *manifest.Route) { r.Authorizer = tok })),
		shared(with(route("/pool/{a}/{b}", "pooled", "HEAD", "POST"), func(r *manifest.Route) { r.Authorizer, r.APIKeyRequired = pool, true })),
		shared(route("/open", "open", "GET", "PATCH")),
		shared(with(route("/raw", "raw", "POST"), func(r *manifest.Route) { r.ContentTypes = []string{"application/octet-stream"} })),
		route("/plain", "plain", "GET", "OPTIONS"),
		with(route("/plain/{x}", "plainkey"), func(r *manifest.Route) { r.APIKeyRequired, r.Authorizer = true, tok }),
	))
	secured.BinaryTypes = []string{"application/octet-stream"}

	config := func(r manifest.Route) manifest.Route {
		r.CORS = &manifest.CORS{AllowOrigin: "https://foo.example.com",
			AllowHeaders:  []string{"Authorization", "Content-Type", "X-Amz-Date", "X-Amz-Security-Token", "X-Api-Key", "X-Special-Header"},
			ExposeHeaders: []string{"X-Total", "X-Next"}, MaxAge: 600, AllowCredentials: true}
		return r
	}
	configured := sortRoutes(newManifest(
		config(with(route("/c/{id}", "c", "GET", "PUT"), func(r *manifest.Route) { r.APIKeyRequired = true })),
		config(with(route("/c/{id}", "cpost", "POST"), func(r *manifest.Route) { r.Authorizer = pool })),
		config(with(route("/d", "d", "DELETE"), func(r *manifest.Route) { r.Authorizer = tok })),
	))

	return map[string]*manifest.Manifest{
		"kitchensink": exampleManifest(t, "kitchensink"),
		"secured":     secured,
		"configured":  configured,
		"big":         bigManifest(120),
	}
}

// staticHeaders reads the header mappings of a parameter map (keys with
// prefix, values single-quoted static values).
func staticHeaders(t *testing.T, params any, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	pm, ok := params.(map[string]any)
	if !ok {
		t.Fatalf("responseParameters are %s", compact(params))
	}
	for k, v := range pm {
		s, _ := v.(string)
		if !strings.HasPrefix(k, prefix) || len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
			t.Fatalf("mapping %s: %s is not a static header value", k, compact(v))
		}
		out[http.CanonicalHeaderKey(strings.TrimPrefix(k, prefix))] = s[1 : len(s)-1]
	}
	return out
}

// corsOf returns the Access-Control-* headers of a local answer.
func corsOf(t *testing.T, h http.Header) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			if len(v) != 1 {
				t.Errorf("local header %s sent %d times: %q", k, len(v), v)
			}
			out[http.CanonicalHeaderKey(k)] = strings.Join(v, ",")
		}
	}
	return out
}

func sameHeaders(t *testing.T, what string, deployed, local map[string]string) {
	t.Helper()
	for k, v := range deployed {
		if lv, ok := local[k]; !ok {
			t.Errorf("%s: deployed sends %s: %q, local does not send it", what, k, v)
		} else if lv != v {
			t.Errorf("%s: %s deployed %q, local %q", what, k, v, lv)
		}
	}
	for k, v := range local {
		if _, ok := deployed[k]; !ok {
			t.Errorf("%s: local sends %s: %q, deployed does not", what, k, v)
		}
	}
}

// TestCORSPreflightParity compares, for every CORS path, the preflight
// headers of the body's OPTIONS method with the local preflight's.
func TestCORSPreflightParity(t *testing.T) {
	for name, m := range parityManifests(t) {
		t.Run(name, func(t *testing.T) {
			app := appFromManifest(t, m)
			client := frameworktest.New(app)
			doc, err := Build(m, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			corsPaths := map[string]bool{}
			for _, r := range m.Routes {
				if r.CORS != nil {
					corsPaths[r.Path] = true
				}
			}
			compared := 0
			for p, item := range doc["paths"].(map[string]any) {
				op, _ := get(item, "options")
				if typ, _ := get(op, ExtIntegration, "type"); typ != "mock" {
					if corsPaths[p] {
						t.Errorf("CORS path %s has no preflight answered by API Gateway", p)
					}
					continue
				}
				if !corsPaths[p] {
					t.Errorf("path %s has no CORS route but a MOCK preflight", p)
				}
				if sc, _ := get(op, ExtIntegration, "responses", "default", "statusCode"); sc != "200" {
					t.Errorf("%s: preflight status %v, want 200", p, sc)
				}
				params, _ := get(op, ExtIntegration, "responses", "default", "responseParameters")
				deployed := staticHeaders(t, params, methodResponseHeader)
				declared, _ := get(op, "responses", "200", "headers")
				for h := range deployed {
					if _, ok := declared.(map[string]any)[h]; !ok {
						t.Errorf("%s: header %s is mapped but not declared in the 200 method response", p, h)
					}
				}
				resp := client.Do("OPTIONS", concretePath(p), nil, map[string]string{"Origin": "https://foo.example.com", "Access-Control-Request-Method": "GET"})
				if resp.StatusCode != 200 {
					t.Errorf("%s: local preflight status %d, want 200", p, resp.StatusCode)
				}
				sameHeaders(t, "preflight "+p, deployed, corsOf(t, resp.Headers))
				compared++
			}
			if compared != len(corsPaths) {
				t.Errorf("compared %d preflights, the manifest has %d CORS paths", compared, len(corsPaths))
			}
			t.Logf("%d CORS paths compared", compared)
		})
	}
}

// credentials returns the headers satisfying each scheme of a security
// requirement, and the local answer expected when that scheme's header is
// missing.
func credentials(t *testing.T, doc map[string]any, scheme string) (header, value string, status int, message string) {
	t.Helper()
	def, ok := get(doc, "components", "securitySchemes", scheme)
	if !ok {
		t.Fatalf("security scheme %s is not defined", scheme)
	}
	name, _ := get(def, "name")
	header = name.(string)
	authType, _ := get(def, ExtAuthType)
	switch {
	case scheme == SchemeAPIKey:
		return header, "a-key", 403, `{"message":"Forbidden"}`
	case authType == "awsSigv4":
		return header, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/execute-api/aws4_request", 403, `{"message":"Missing Authentication Token"}`
	case authType == "custom" || authType == "cognito_user_pools":
		return header, "a-token", 401, `{"message":"Unauthorized"}`
	}
	t.Fatalf("scheme %s: unexpected %s", scheme, compact(def))
	return
}

// TestGatewayAnswersParity checks, route method by route method, that the
// body requires exactly the credentials the local emulation requires (API
// key, IAM signature, token header), that API Gateway's own refusals carry
// the CORS headers the local ones carry (the gateway responses', on every
// route, when the body sets them), and that the body declares exactly
// the methods the local server serves.
func TestGatewayAnswersParity(t *testing.T) {
	for name, m := range parityManifests(t) {
		t.Run(name, func(t *testing.T) {
			client := frameworktest.New(appFromManifest(t, m))
			doc, err := Build(m, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			var gw map[string]string
			if params, ok := get(doc, ExtGatewayResponses, "DEFAULT_4XX", "responseParameters"); ok {
				gw = staticHeaders(t, params, gatewayResponseHeader)
			}
			allCreds := map[string]string{"Accept": "*/*"}
			for _, r := range m.Routes {
				for _, method := range r.Methods {
					op, _ := get(doc, "paths", r.Path, strings.ToLower(method))
					// Accept: */* lets a binary answer through (kitchensink
					// treats application/json as binary).
					creds := map[string]string{"Content-Type": r.ContentTypes[0], "Accept": "*/*"}
					type refusal struct {
						header, message string
						code            int
					}
					var refusals []refusal
					if req, ok := get(op, "security", "0"); ok {
						for scheme := range req.(map[string]any) {
							h, v, code, msg := credentials(t, doc, scheme)
							creds[h], allCreds[h] = v, v
							refusals = append(refusals, refusal{header: h, code: code, message: msg})
						}
					}
					what := method + " " + r.Path
					resp := client.Do(method, concretePath(r.Path), []byte("{}"), creds)
					if resp.StatusCode != 200 || (method != "HEAD" && !strings.Contains(string(resp.Body), handlerMarker(r.Handler))) {
						t.Errorf("%s with every credential the body requires: local %d %s, want the handler's answer", what, resp.StatusCode, resp.Body)
					}
					for _, ref := range refusals {
						less := map[string]string{}
						for k, v := range creds {
							if k != ref.header {
								less[k] = v
							}
						}
						resp := client.Do(method, concretePath(r.Path), []byte("{}"), less)
						if resp.StatusCode != ref.code || (method != "HEAD" && strings.TrimSpace(string(resp.Body)) != ref.message) {
							t.Errorf("%s without %s: local %d %s, want %d %s", what, ref.header, resp.StatusCode, resp.Body, ref.code, ref.message)
						}
						local := corsOf(t, resp.Headers)
						switch {
						case gw != nil: // DEFAULT_4XX: on every path
							sameHeaders(t, what+" refused", gw, local)
						case r.CORS == nil && len(local) > 0:
							t.Errorf("%s refused: local sends CORS headers on a non-CORS route: %v", what, local)
						}
					}
				}
			}
			// Every method on every path: declared in the body exactly when
			// the local server does not answer it with API Gateway's 403.
			for p, item := range doc["paths"].(map[string]any) {
				for _, method := range manifest.SupportedMethods() {
					_, declared := item.(map[string]any)[strings.ToLower(method)]
					resp := client.Do(method, concretePath(p), nil, allCreds)
					missing := resp.StatusCode == 403 && (method == "HEAD" || strings.Contains(string(resp.Body), "Missing Authentication Token"))
					if declared == missing {
						t.Errorf("%s %s: declared in the body %v, local answer %d %s", method, p, declared, resp.StatusCode, resp.Body)
					}
				}
			}
		})
	}
}
