package engine

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/testutil"
)

// settingCases are config.json stages, each using production keys; the
// golden file testdata/settings/<name>.json holds what each adds to or
// changes in the template of a stage without them.
var settingCases = []struct {
	name   string
	stage  string            // the stage's keys, a JSON object
	files  map[string]string // extra files under .framework/
	checks func(t *testing.T, tpl *template)
}{
	{name: "base", stage: `{}`},
	{name: "reserved_concurrency", stage: `{"reserved_concurrency": 5}`, checks: func(t *testing.T, tpl *template) {
		if v := tpl.one(t, "AWS::Lambda::Function").Properties["ReservedConcurrentExecutions"]; v != 5.0 {
			t.Errorf("ReservedConcurrentExecutions %v", v)
		}
	}},
	{name: "layers", stage: `{"layers": ["arn:aws:lambda:us-east-1:123456789012:layer:otel:3", "arn:aws:lambda:us-east-1:580247275435:layer:LambdaInsightsExtension-Arm64:20"]}`},
	{name: "vpc", stage: `{"subnet_ids": ["subnet-0123456789abcdef0", "subnet-0fedcba9876543210"], "security_group_ids": ["sg-0123456789abcdef0"]}`, checks: func(t *testing.T, tpl *template) {
		if !strings.Contains(tpl.json(t, "AWS::IAM::Role"), "AWSLambdaVPCAccessExecutionRole") {
			t.Error("the role lacks the VPC access policy")
		}
	}},
	{name: "xray", stage: `{"xray": true}`, checks: func(t *testing.T, tpl *template) {
		if tpl.one(t, "AWS::ApiGateway::Stage").Properties["TracingEnabled"] != true {
			t.Error("the API stage does not trace")
		}
		if !strings.Contains(tpl.json(t, "AWS::IAM::Role"), "AWSXRayDaemonWriteAccess") {
			t.Error("the role lacks the X-Ray policy")
		}
	}},
	{name: "log_retention_in_days", stage: `{"log_retention_in_days": 14}`, checks: func(t *testing.T, tpl *template) {
		lg := tpl.one(t, "AWS::Logs::LogGroup")
		if lg.Properties["RetentionInDays"] != 14.0 || !strings.Contains(tpl.json(t, "AWS::Logs::LogGroup"), `"/aws/lambda/"`) {
			t.Errorf("log group %v", lg.Properties)
		}
	}},
	{name: "regional", stage: `{"api_gateway_endpoint_type": "REGIONAL"}`},
	{name: "private", stage: `{"api_gateway_endpoint_type": "PRIVATE", "api_gateway_policy_file": "api-policy.json"}`,
		files: map[string]string{"api-policy.json": `{"Version": "2012-10-17", "Statement": [
  {"Effect": "Allow", "Principal": "*", "Action": "execute-api:Invoke", "Resource": "execute-api:/*"},
  {"Effect": "Deny", "Principal": "*", "Action": "execute-api:Invoke", "Resource": "execute-api:/*", "Condition": {"StringNotEquals": {"aws:SourceVpce": "vpce-0123456789abcdef0"}}}]}`}},
	{name: "minimum_compression_size", stage: `{"minimum_compression_size": 1024}`},
	{name: "custom_domain_edge", stage: `{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-123456789abc", "hosted_zone_id": "Z0123456789ABCDEFGHIJ"}}`,
		checks: func(t *testing.T, tpl *template) {
			if tpl.Outputs["CustomDomainURL"] == nil {
				t.Error("no CustomDomainURL output")
			}
		}},
	{name: "custom_domain_regional", stage: `{"api_gateway_endpoint_type": "REGIONAL", "api_gateway_custom_domain": {"domain_name": "shop.example.com", "certificate_arn": "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-123456789abc", "base_path": "v1", "tls_version": "TLS_1_0", "hosted_zone_name": "example.com"}}`},
	{name: "access_log", stage: `{"access_log": false}`},
	{name: "imported_role", stage: `{"manage_role": false, "role_id": "arn:aws:iam::123456789012:role/shop-prod", "xray": true, "subnet_ids": ["subnet-0123456789abcdef0"], "security_group_ids": ["sg-0123456789abcdef0"]}`,
		checks: func(t *testing.T, tpl *template) {
			if n := len(tpl.ofType("AWS::IAM::Role")) + len(tpl.ofType("AWS::IAM::Policy")); n != 0 {
				t.Errorf("%d IAM resources with an imported role, want none", n)
			}
		}},
}

// TestSynthSettings synthesizes a stage per production key from a
// config.json, compares what each changes in the template with its golden
// fragment, and runs cfn-lint on every template.
func TestSynthSettings(t *testing.T) {
	lint, err := exec.LookPath("cfn-lint")
	if err != nil {
		t.Fatal("cfn-lint is not installed: this test checks the templates with it (pip install cfn-lint)")
	}
	ctx := context.Background()
	m := &manifest.Manifest{Version: manifest.Version, App: "shop", Routes: []manifest.Route{route("/", "GET"), route("/users/{name}", "GET")}}
	templates := map[string]string{}
	outs := t.TempDir() // outlives the subtests, for cfn-lint
	var base map[string]any
	for _, tc := range settingCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, `{"version": "1.0", "app_name": "shop", "stages": {"prod": `+tc.stage+`}}`)
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, ".framework", name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := constructs.LoadConfig(dir, "prod")
			if err != nil {
				t.Fatal(err)
			}
			res, err := assemble(ctx, prebuilt(t, m, "prod", cfg, nil), filepath.Join(outs, tc.name), nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(res.TemplatePath)
			if err != nil {
				t.Fatal(err)
			}
			templates[tc.name] = res.TemplatePath
			var tpl map[string]any
			if err := json.Unmarshal(normalize(t, raw), &tpl); err != nil {
				t.Fatal(err)
			}
			if tc.name == "base" {
				base = tpl
				return
			}
			if base == nil {
				t.Fatal("the base case did not synthesize")
			}
			testutil.Golden(t, filepath.Join("testdata", "settings", tc.name+".json"), fragment(t, base, tpl), *update)
			if tc.checks != nil {
				tc.checks(t, readTemplate(t, res.TemplatePath))
			}
		})
	}

	// cfn-lint, once for every template: no error (exit code bit 2).
	paths := slices.Sorted(maps.Values(templates))
	out, err := exec.Command(lint, append([]string{"--format", "parseable"}, paths...)...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("cfn-lint: %v\n%s", err, out)
	}
	if code&2 != 0 {
		t.Errorf("cfn-lint found errors (exit %d):\n%s", code, out)
	} else if len(out) > 0 {
		t.Logf("cfn-lint warnings (exit %d):\n%s", code, out)
	}
	if len(paths) != len(settingCases) {
		t.Errorf("cfn-lint checked %d templates, want %d", len(paths), len(settingCases))
	}
}

// fragment returns the resources and outputs of tpl that base lacks or
// has with other values, as indented JSON: what a setting changes.
func fragment(t *testing.T, base, tpl map[string]any) []byte {
	t.Helper()
	out := map[string]any{}
	for _, section := range []string{"Resources", "Outputs"} {
		b, _ := base[section].(map[string]any)
		n, _ := tpl[section].(map[string]any)
		changed := map[string]any{}
		for k, v := range n {
			if !reflect.DeepEqual(b[k], v) {
				changed[k] = changedPart(b[k], v)
			}
		}
		for k := range b {
			if _, ok := n[k]; !ok {
				changed[k] = "(removed)"
			}
		}
		if len(changed) > 0 {
			out[section] = changed
		}
	}
	raw, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(raw, '\n')
}

// changedPart returns what of a resource neu differs from old: a new
// resource whole; of a resource of the same type, its type and the
// properties (and attributes such as DependsOn) that differ.
func changedPart(old, neu any) any {
	o, ok1 := old.(map[string]any)
	n, ok2 := neu.(map[string]any)
	if !ok1 || !ok2 || n["Type"] == nil || o["Type"] != n["Type"] {
		return neu
	}
	out := map[string]any{"Type": n["Type"]}
	for k, v := range n {
		if k == "Properties" {
			continue
		}
		if !reflect.DeepEqual(o[k], v) {
			out[k] = v
		}
	}
	for k := range o {
		if _, ok := n[k]; !ok {
			out[k] = "(removed)"
		}
	}
	op, _ := o["Properties"].(map[string]any)
	np, _ := n["Properties"].(map[string]any)
	props := map[string]any{}
	for k, v := range np {
		if !reflect.DeepEqual(op[k], v) {
			props[k] = v
		}
	}
	for k := range op {
		if _, ok := np[k]; !ok {
			props[k] = "(removed)"
		}
	}
	if len(props) > 0 {
		out["Properties"] = props
	}
	return out
}

// json returns the resources of type typ as JSON text.
func (tp *template) json(t *testing.T, typ string) string {
	t.Helper()
	b, err := json.Marshal(tp.ofType(typ))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
