package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthGatedExample synthesizes examples/gated, whose routes are
// protected by two app authorizers: each gets a Lambda function of its own
// (its FRAMEWORK_HANDLER, the app's package), a REST TOKEN or REQUEST
// authorizer whose URI is that function's with the TTL configured, and a
// permission for API Gateway to call it; cfn-lint finds no error.
func TestSynthGatedExample(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	res, err := Synth(context.Background(), Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", "gated"), OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(res.TemplatePath)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "gated-dev.template.json"), normalize(t, raw), *update)
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

	// The authorizers, in the REST API's body.
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

	// API Gateway may call each authorizer function, from this API's authorizers only.
	var apiID string
	for id := range tpl.ofType("AWS::ApiGateway::RestApi") {
		apiID = id
	}
	permitted := map[string]bool{}
	for _, r := range tpl.Resources {
		if r.Type != "AWS::Lambda::Permission" || !strings.Contains(jsonOf(t, r.Properties["SourceArn"]), "/authorizers/*") {
			continue
		}
		if r.Properties["Principal"] != "apigateway.amazonaws.com" || !strings.Contains(jsonOf(t, r.Properties["SourceArn"]), apiID) {
			t.Errorf("authorizer permission: %s", jsonOf(t, r.Properties))
		}
		for name, id := range fnIDs {
			if strings.Contains(jsonOf(t, r.Properties["FunctionName"]), `"`+id+`"`) {
				permitted[name] = true
			}
		}
	}
	if !permitted["bearer"] || !permitted["tenant-key"] || permitted[""] {
		t.Errorf("authorizer invoke permissions for %v; want bearer and tenant-key", permitted)
	}
	for _, h := range []string{"bearer", "tenant-key"} {
		if _, ok := tpl.Outputs[names.FunctionOutput(h)]; !ok {
			t.Errorf("no output %s for %s", names.FunctionOutput(h), h)
		}
	}
	cfnLint(t, res.TemplatePath)
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
