package openapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
