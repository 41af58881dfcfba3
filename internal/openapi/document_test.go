package openapi

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/testutil"
)

// validateOpenAPI runs the independent checker openapi-spec-validator on
// the JSON document data and fails the test with its report.
func validateOpenAPI(t *testing.T, name string, data []byte) {
	t.Helper()
	if out, err := exec.Command("python3", "-c", "import openapi_spec_validator").CombinedOutput(); err != nil {
		t.Fatalf("openapi-spec-validator is needed to check the OpenAPI documents and is not installed (pip install openapi-spec-validator): %v\n%s", err, out)
	}
	path := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", "-m", "openapi_spec_validator", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": OK") {
		t.Errorf("openapi-spec-validator refuses the %s document: %v\n%s", name, err, out)
	}
}

// TestDocumentGolden generates the document of the examples, compares it
// with testdata/<app>.openapi.json and validates it.
func TestDocumentGolden(t *testing.T) {
	for _, name := range []string{"kitchensink", "bookstore"} {
		t.Run(name, func(t *testing.T) {
			doc, err := Document(exampleManifest(t, name), DocOptions{ServerURL: "/dev"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			for _, ext := range []string{"x-amazon-apigateway"} {
				if bytes.Contains(got, []byte(ext)) {
					t.Errorf("the document holds API Gateway extensions (%s)", ext)
				}
			}
			testutil.Golden(t, filepath.Join("testdata", name+".openapi.json"), got, *update)
			validateOpenAPI(t, name, got)
		})
	}
}

// TestBuildValidates checks that the body API Gateway imports is valid
// OpenAPI 3.0 too.
func TestBuildValidates(t *testing.T) {
	for _, name := range []string{"hello", "kitchensink", "bookstore"} {
		t.Run(name, func(t *testing.T) {
			doc, err := Build(exampleManifest(t, name), testOptions)
			if err != nil {
				t.Fatal(err)
			}
			data, err := Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			validateOpenAPI(t, name, data)
		})
	}
}

func TestDocumentOperations(t *testing.T) {
	m := &manifest.Manifest{Version: manifest.Version, App: "ops", Routes: []manifest.Route{
		{Path: "/items/{id}", Methods: []string{"GET", "PUT"}, Handler: "item", ContentTypes: []string{"application/json"}},
		{Path: "/other", Methods: []string{"GET"}, Handler: "item", ContentTypes: []string{"application/json"}},
		{Path: "/secure", Methods: []string{"POST"}, Handler: "g.secure", ContentTypes: []string{"application/json"}, APIKeyRequired: true,
			Authorizer:    &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization", ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_x"}},
			RequestSchema: map[string]any{"type": "object"}, Status: 201},
	}}
	doc, err := Document(m, DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		path []string
		want string
	}{
		{[]string{"paths", "/items/{id}", "get", "operationId"}, `"item_get"`},
		{[]string{"paths", "/items/{id}", "put", "operationId"}, `"item_put"`},
		{[]string{"paths", "/other", "get", "operationId"}, `"item_get_other"`},
		{[]string{"paths", "/secure", "post", "tags"}, `["g"]`},
		{[]string{"paths", "/secure", "post", "security"}, `[{"api_key":[],"pool":[]}]`},
		{[]string{"paths", "/secure", "post", "requestBody"}, `{"content":{"application/json":{"schema":{"type":"object"}}},"required":true}`},
		{[]string{"paths", "/secure", "post", "responses", "201", "description"}, `"The handler's answer."`},
		{[]string{"paths", "/secure", "post", "responses", "401", "content", "application/json", "schema"}, `{"$ref":"#/components/schemas/GatewayError"}`},
		{[]string{"paths", "/secure", "post", "responses", "403", "content", "application/json", "schema"}, `{"$ref":"#/components/schemas/GatewayError"}`},
		{[]string{"paths", "/secure", "post", "responses", "400", "content", "application/json", "schema"}, `{"$ref":"#/components/schemas/Error"}`},
		{[]string{"components", "securitySchemes", "pool"}, `{"description":"A Cognito user pool token.","in":"header","name":"Authorization","type":"apiKey"}`},
		{[]string{"tags"}, `[{"name":"g"}]`},
		{[]string{"servers"}, ""},
	}
	for _, c := range checks {
		got, ok := get(doc, c.path...)
		if c.want == "" {
			if ok {
				t.Errorf("%v is set: %v", c.path, got)
			}
			continue
		}
		if s := compact(got); s != c.want {
			t.Errorf("%v = %s, want %s", c.path, s, c.want)
		}
	}
	data, _ := Marshal(doc)
	validateOpenAPI(t, "ops", data)
}

// A route behind a Lambda authorizer (the app's own or a custom one) lists
// 403 next to 401: API Gateway answers 403 to the authorizer's deny (REST
// API: {"Message": ...}; HTTP API: {"message": "Forbidden"}), as framework
// local does.
func TestDocumentAuthorizerDeny(t *testing.T) {
	m := &manifest.Manifest{Version: manifest.Version, App: "deny", Routes: []manifest.Route{
		{Path: "/app", Methods: []string{"GET"}, Handler: "app", ContentTypes: []string{"application/json"},
			Authorizer: &manifest.Authorizer{Type: manifest.AuthorizerApp, Name: "gate", Header: "Authorization"}},
		{Path: "/custom", Methods: []string{"GET"}, Handler: "custom", ContentTypes: []string{"application/json"}, APIKeyRequired: true,
			Authorizer: &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: "tok", Header: "X-Token", AuthorizerURI: "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:tok/invocations", TTLSeconds: 300}},
	}, Functions: []manifest.Function{{Name: "gate", Kind: manifest.KindAuthorizer}}}
	doc, err := Document(m, DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/app", "/custom"} {
		for _, status := range []string{"401", "403"} {
			if _, ok := get(doc, "paths", p, "get", "responses", status); !ok {
				t.Errorf("%s: no %s response", p, status)
			}
		}
		desc, _ := get(doc, "paths", p, "get", "responses", "403", "description")
		if s, _ := desc.(string); !strings.Contains(s, "denies") {
			t.Errorf("%s: 403 says %q, want the authorizer's deny", p, desc)
		}
	}
	if desc, _ := get(doc, "paths", "/custom", "get", "responses", "403", "description"); !strings.Contains(desc.(string), "API key") {
		t.Errorf("/custom: 403 says %q, want the missing API key too", desc)
	}
	data, _ := Marshal(doc)
	validateOpenAPI(t, "deny", data)
}

// The document says what a client of an idempotent route must send and
// may receive (the Idempotency-Key header, required with KeyRequired; the
// Idempotent-Replayed header of a replay; 400, 409 and 422), and which
// content types a streaming route answers with. The app is declared with
// framework's API and its manifest goes through JSON, as `framework
// openapi` reads it from the built app.
func TestDocumentIdempotencyAndStreams(t *testing.T) {
	app := framework.New("shop")
	keys := resource.NewTable(app, "keys", resource.TableSpec{PartitionKey: resource.Key{Name: "id", Type: resource.String}, TTLAttribute: "expires"})
	type order struct{ Item string }
	app.Route("/orders", func(r *framework.Request, in order) (order, error) { return in, nil },
		framework.Methods("POST"), framework.Name("createOrder"), resource.Idempotent(keys, resource.Idempotency{}))
	app.Route("/pay/{id}", func(r *framework.Request, id string) (any, error) { return nil, nil },
		framework.Methods("POST"), framework.Name("pay"), resource.Idempotent(keys, resource.Idempotency{KeyRequired: true}))
	app.Route("/events", func(r *framework.Request) (any, error) { return nil, nil }, framework.Name("events"), framework.Streaming("text/event-stream"))
	app.Route("/export", func(r *framework.Request) (any, error) { return nil, nil }, framework.Name("export"), framework.Streaming("text/csv; charset=utf-8"))
	app.Route("/raw", func(r *framework.Request) (any, error) { return nil, nil }, framework.Name("raw"), framework.Streaming())
	declared, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(declared)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	doc, err := Document(&m, DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	header := func(path, method string) map[string]any {
		params, _ := get(doc, "paths", path, method, "parameters")
		list, _ := params.([]any)
		for _, p := range list {
			if p := p.(map[string]any); p["in"] == "header" && p["name"] == "Idempotency-Key" {
				return p
			}
		}
		return nil
	}
	if h := header("/orders", "post"); h == nil || h["required"] != false || compact(h["schema"]) != `{"maxLength":255,"minLength":1,"type":"string"}` {
		t.Errorf("POST /orders: the Idempotency-Key header parameter is %s, want an optional string of at most 255", compact(h))
	}
	if h := header("/pay/{id}", "post"); h == nil || h["required"] != true {
		t.Errorf("POST /pay/{id} (KeyRequired): the Idempotency-Key header parameter is %s, want it required", compact(h))
	}
	if params, _ := get(doc, "paths", "/pay/{id}", "post", "parameters"); !strings.Contains(compact(params), `"in":"path","name":"id"`) {
		t.Errorf("POST /pay/{id}: the path parameter is gone: %s", compact(params))
	}
	for _, p := range []string{"/orders", "/pay/{id}"} {
		for status, code := range map[string]string{"400": "IdempotencyKeyMissing", "409": "IdempotencyKeyInUse", "422": "IdempotencyKeyReused"} {
			desc, _ := get(doc, "paths", p, "post", "responses", status, "description")
			ref, _ := get(doc, "paths", p, "post", "responses", status, "content", "application/json", "schema", "$ref")
			if s, _ := desc.(string); !strings.Contains(s, code) || ref != "#/components/schemas/Error" {
				t.Errorf("POST %s: the %s answer is %q (%v), want %s in the Error shape", p, status, desc, ref, code)
			}
		}
	}
	if desc, _ := get(doc, "paths", "/orders", "post", "responses", "400", "description"); !strings.Contains(desc.(string), "schema") {
		t.Errorf("POST /orders: the 400 answer %q lost the typed body's refusal", desc)
	}
	if h, ok := get(doc, "paths", "/orders", "post", "responses", "200", "headers", "Idempotent-Replayed", "schema"); !ok || compact(h) != `{"enum":["true"],"type":"string"}` {
		t.Errorf("POST /orders: the success answer's Idempotent-Replayed header is %s", compact(h))
	}
	if _, ok := get(doc, "paths", "/orders", "post", "responses", "200", "content", "application/json"); !ok {
		t.Errorf("POST /orders: the success answer lost its JSON schema")
	}
	if _, ok := get(doc, "paths", "/events", "get", "parameters"); ok {
		t.Errorf("GET /events (not idempotent) has parameters")
	}
	for path, want := range map[string]string{"/events": "text/event-stream", "/export": "text/csv; charset=utf-8", "/raw": "*/*"} {
		content, _ := get(doc, "paths", path, "get", "responses", "200", "content")
		c, _ := content.(map[string]any)
		if _, ok := c[want]; !ok || len(c) != 1 {
			t.Errorf("GET %s streams: its answer's content is %s, want %s", path, compact(content), want)
		}
	}
	out, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	validateOpenAPI(t, "idempotency-streams", out)
}
