package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthGatedExample synthesizes examples/gated, whose routes are
// protected by two app authorizers and a user pool authorizer, behind a
// REST API (stage dev) and an HTTP API (stage http): each app authorizer
// gets a Lambda function of its own (its FRAMEWORK_HANDLER, the app's
// package), an authorizer whose URI is that function's with the TTL and
// identity sources configured (REST TOKEN/REQUEST; HTTP API REQUEST with
// payload 2.0 and simple responses), and a permission for the API's
// authorizers to call it; the user pool is a Cognito authorizer on the
// REST API and a JWT authorizer on the HTTP API. cfn-lint finds no error.
func TestSynthGatedExample(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	for _, stage := range []string{"dev", "http"} {
		t.Run(stage, func(t *testing.T) {
			res, err := Synth(context.Background(), Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", "gated"), Stage: stage, OutDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(res.TemplatePath)
			if err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, filepath.Join("testdata", "gated-"+stage+".template.json"), normalize(t, raw), *update)
			tpl := readTemplate(t, res.TemplatePath)
			checkNoRedundantDependsOn(t, tpl)

			fnIDs := map[string]string{} // FRAMEWORK_HANDLER → logical ID
			for id, r := range tpl.Resources {
				if r.Type != "AWS::Lambda::Function" {
					continue
				}
				name := ""
				if env, ok := r.Properties["Environment"].(map[string]any); ok {
					name, _ = env["Variables"].(map[string]any)[names.EnvHandler].(string)
				}
				fnIDs[name] = id
			}
			if len(fnIDs) != 3 || fnIDs["bearer"] == "" || fnIDs["tenant-key"] == "" || fnIDs[""] == "" {
				t.Fatalf("functions by FRAMEWORK_HANDLER: %v; want the API's, bearer and tenant-key", fnIDs)
			}
			var apiID string
			if stage == "dev" {
				checkRESTAuthorizers(t, tpl, fnIDs)
				for id := range tpl.ofType("AWS::ApiGateway::RestApi") {
					apiID = id
				}
			} else {
				checkHTTPAuthorizers(t, tpl, fnIDs)
				for id := range tpl.ofType("AWS::ApiGatewayV2::Api") {
					apiID = id
				}
			}

			// API Gateway may call each authorizer function, from this API's authorizers only.
			permitted := map[string]bool{}
			for _, r := range tpl.Resources {
				if r.Type != "AWS::Lambda::Permission" || !strings.Contains(jsonOf(t, r.Properties["SourceArn"]), "/authorizers/*") {
					continue
				}
				if r.Properties["Principal"] != "apigateway.amazonaws.com" || !strings.Contains(jsonOf(t, r.Properties["SourceArn"]), `{"Ref":"`+apiID+`"}`) {
					t.Errorf("authorizer permission: %s", jsonOf(t, r.Properties))
				}
				for name, id := range fnIDs {
					if strings.Contains(jsonOf(t, r.Properties["FunctionName"]), `"`+id+`"`) {
						permitted[name] = true
					}
				}
			}
			if len(permitted) != 2 || !permitted["bearer"] || !permitted["tenant-key"] {
				t.Errorf("authorizer invoke permissions for %v; want bearer and tenant-key", permitted)
			}
			for _, h := range []string{"bearer", "tenant-key"} {
				if _, ok := tpl.Outputs[names.FunctionOutput(h)]; !ok {
					t.Errorf("no output %s for %s", names.FunctionOutput(h), h)
				}
			}
			cfnLint(t, res.TemplatePath)
		})
	}
}

// checkRESTAuthorizers checks the REST API's authorizers in its body.
func checkRESTAuthorizers(t *testing.T, tpl *template, fnIDs map[string]string) {
	t.Helper()
	schemes, _ := tpl.body(t)["components"].(map[string]any)["securitySchemes"].(map[string]any)
	for name, want := range map[string]struct{ typ, source, ttl string }{
		"bearer":     {"token", "method.request.header.Authorization", "300"},
		"tenant-key": {"request", "method.request.header.X-Tenant, method.request.querystring.key", "0"},
	} {
		s, _ := schemes[name].(map[string]any)
		auth, _ := s["x-amazon-apigateway-authorizer"].(map[string]any)
		if auth == nil || s["x-amazon-apigateway-authtype"] != "custom" || auth["type"] != want.typ || auth["identitySource"] != want.source || jsonOf(t, auth["authorizerResultTtlInSeconds"]) != want.ttl {
			t.Errorf("authorizer %s: %s", name, jsonOf(t, s))
			continue
		}
		if uri := jsonOf(t, auth["authorizerUri"]); !strings.Contains(uri, `"`+fnIDs[name]+`","Arn"`) {
			t.Errorf("authorizer %s: URI %s does not name its function %s", name, uri, fnIDs[name])
		}
	}
	if pool, _ := schemes["pool"].(map[string]any); pool["x-amazon-apigateway-authtype"] != "cognito_user_pools" {
		t.Errorf("pool: %s", jsonOf(t, pool))
	}
}

// checkHTTPAuthorizers checks the HTTP API's authorizers and the routes
// that use them.
func checkHTTPAuthorizers(t *testing.T, tpl *template, fnIDs map[string]string) {
	t.Helper()
	byName := map[string]string{} // authorizer name → logical ID
	for id, r := range tpl.ofType("AWS::ApiGatewayV2::Authorizer") {
		p := r.Properties
		name, _ := p["Name"].(string)
		byName[name] = id
		switch name {
		case "bearer", "tenant-key":
			want := map[string]string{"bearer": `["$request.header.Authorization"]`, "tenant-key": `["$request.header.X-Tenant","$request.querystring.key"]`}[name]
			ttl := map[string]string{"bearer": "300", "tenant-key": "0"}[name]
			if p["AuthorizerType"] != "REQUEST" || p["AuthorizerPayloadFormatVersion"] != "2.0" || p["EnableSimpleResponses"] != true ||
				jsonOf(t, p["IdentitySource"]) != want || jsonOf(t, p["AuthorizerResultTtlInSeconds"]) != ttl ||
				!strings.Contains(jsonOf(t, p["AuthorizerUri"]), `"`+fnIDs[name]+`","Arn"`) {
				t.Errorf("HTTP API authorizer %s: %s", name, jsonOf(t, p))
			}
		case "pool":
			if p["AuthorizerType"] != "JWT" || jsonOf(t, p["JwtConfiguration"]) != `{"Audience":["example-client-id"],"Issuer":"https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example"}` ||
				jsonOf(t, p["IdentitySource"]) != `["$request.header.Authorization"]` {
				t.Errorf("HTTP API authorizer pool: %s", jsonOf(t, p))
			}
		default:
			t.Errorf("unexpected HTTP API authorizer %s", name)
		}
	}
	if len(byName) != 3 {
		t.Fatalf("HTTP API authorizers %v; want bearer, tenant-key and pool", byName)
	}
	routes := map[string]string{}
	for _, r := range tpl.ofType("AWS::ApiGatewayV2::Route") {
		routes[r.Properties["RouteKey"].(string)] = fmt.Sprint(r.Properties["AuthorizationType"], " ", jsonOf(t, r.Properties["AuthorizerId"]))
	}
	for key, want := range map[string]string{
		"GET /me": "CUSTOM " + `{"Ref":"` + byName["bearer"] + `"}`, "GET /tenants/{name}/report": "CUSTOM " + `{"Ref":"` + byName["tenant-key"] + `"}`,
		"GET /profile": "JWT " + `{"Ref":"` + byName["pool"] + `"}`, "GET /": "<nil> null",
	} {
		if routes[key] != want {
			t.Errorf("route %s: authorization %s, want %s", key, routes[key], want)
		}
	}
}

// jsonOf is v as compact JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
