package engine

// Every test here that synthesizes shares the one jsii runtime (one Node.js
// process) of this test binary: keep stack tests in this package rather
// than in new test binaries.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/policy/scan"
)

var update = flag.Bool("update", false, "rewrite the golden templates under testdata/")

// template is a synthesized template, decoded.
type template struct {
	Description string
	Resources   map[string]resource
	Outputs     map[string]map[string]any
	Parameters  map[string]any
	Rules       map[string]any
}

type resource struct {
	Type       string
	Properties map[string]any
	DependsOn  any
}

func readTemplate(t *testing.T, path string) *template {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tpl template
	if err := json.Unmarshal(b, &tpl); err != nil {
		t.Fatalf("template %s: %v", path, err)
	}
	return &tpl
}

// ofType returns the resources of a type, by logical ID.
func (tp *template) ofType(typ string) map[string]resource {
	out := map[string]resource{}
	for id, r := range tp.Resources {
		if r.Type == typ {
			out[id] = r
		}
	}
	return out
}

// one returns the only resource of a type.
func (tp *template) one(t *testing.T, typ string) resource {
	t.Helper()
	rs := tp.ofType(typ)
	if len(rs) != 1 {
		t.Fatalf("template has %d resources of type %s, want 1", len(rs), typ)
	}
	for _, r := range rs {
		return r
	}
	panic("unreachable")
}

// body is the REST API's OpenAPI definition.
func (tp *template) body(t *testing.T) map[string]any {
	t.Helper()
	b, ok := tp.one(t, "AWS::ApiGateway::RestApi").Properties["Body"].(map[string]any)
	if !ok {
		t.Fatal("RestApi has no inline Body")
	}
	return b
}

var (
	hex64 = regexp.MustCompile(`[0-9a-f]{64}`)
)

// normalize returns the template with its volatile values (asset hashes,
// which depend on the Go toolchain) replaced by placeholders, indented with
// sorted keys, so that a golden diff shows what changed and nothing else.
func normalize(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = hex64.ReplaceAll(b, []byte("<sha256>"))
	return append(b, '\n')
}

// assetHash reads the Lambda package's asset hash from the asset manifest.
func assetHashes(t *testing.T, res *Result) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(res.AssemblyDir, res.StackName+".assets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Files map[string]struct {
			Source struct{ Path, Packaging string }
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for h, f := range m.Files {
		if strings.HasSuffix(f.Source.Path, ".zip") {
			out = append(out, h)
		}
	}
	return out
}

// TestSynthExamples synthesizes the example apps through Synth, as
// `framework synth` does, and compares the templates with the golden ones.
func TestSynthExamples(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	for _, app := range []string{"hello", "kitchensink"} {
		t.Run(app, func(t *testing.T) {
			out := t.TempDir()
			res, err := Synth(ctx, Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", app), OutDir: out})
			if err != nil {
				t.Fatal(err)
			}
			if res.StackName != app+"-dev" || res.App != app || res.Stage != "dev" || res.Reused {
				t.Errorf("result = %+v", res)
			}
			if res.TemplatePath != filepath.Join(out, app+"-dev.template.json") {
				t.Errorf("template path %s", res.TemplatePath)
			}
			raw, err := os.ReadFile(res.TemplatePath)
			if err != nil {
				t.Fatal(err)
			}
			tpl := readTemplate(t, res.TemplatePath)
			if res.ResourceCount != len(tpl.Resources) {
				t.Errorf("ResourceCount %d, template has %d", res.ResourceCount, len(tpl.Resources))
			}
			testutil.Golden(t, filepath.Join("testdata", app+"-dev.template.json"), normalize(t, raw), *update)
			checkNoRedundantDependsOn(t, tpl)

			// The stack deploys without `cdk bootstrap`: no bootstrap
			// version parameter or rule, assets in the framework's bucket.
			if len(tpl.Parameters) != 0 || len(tpl.Rules) != 0 {
				t.Errorf("template has parameters %v / rules %v; want none (no bootstrap)", tpl.Parameters, tpl.Rules)
			}
			code := tpl.one(t, "AWS::Lambda::Function").Properties["Code"].(map[string]any)
			if sub := code["S3Bucket"].(map[string]any)["Fn::Sub"]; sub != names.AssetsBucketName {
				t.Errorf("code bucket %v, want %s", sub, names.AssetsBucketName)
			}
			mf, err := os.ReadFile(filepath.Join(out, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(mf, []byte("assumeRoleArn")) || bytes.Contains(mf, []byte("BootstrapVersion")) {
				t.Errorf("cloud assembly manifest names bootstrap roles or versions:\n%s", mf)
			}

			// Same source, same asset hash; nothing changed, assembly reused.
			first := assetHashes(t, res)
			if len(first) != 1 {
				t.Fatalf("asset manifest has %d zip assets, want 1", len(first))
			}
			again, err := Synth(ctx, Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", app), OutDir: out})
			if err != nil {
				t.Fatal(err)
			}
			if !again.Reused || again.ResourceCount != res.ResourceCount || again.TemplatePath != res.TemplatePath {
				t.Errorf("second synth with nothing changed: %+v, want the assembly reused", again)
			}
			// A full second synth (reuse defeated) gives the same asset hash and template.
			if err := os.Remove(filepath.Join(out, KeyFile)); err != nil {
				t.Fatal(err)
			}
			third, err := Synth(ctx, Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", app), OutDir: out})
			if err != nil {
				t.Fatal(err)
			}
			if third.Reused {
				t.Fatal("synth reused an assembly without its key file")
			}
			if h := assetHashes(t, third); len(h) != 1 || h[0] != first[0] {
				t.Errorf("asset hash changed between two synths of the same source: %v then %v", first, h)
			}
			raw3, _ := os.ReadFile(third.TemplatePath)
			if !bytes.Equal(raw, raw3) {
				t.Error("template changed between two synths of the same source")
			}
		})
	}
}

// TestSynthReuseInvalidated: a change of stage configuration synthesizes
// again, and the configuration's tags (top level merged with the stage's)
// become the stack's tags in the assembly, which deploy hands to
// CloudFormation.
func TestSynthReuseInvalidated(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	dir := copyProject(t, filepath.Join(testutil.RepoRoot(t), "examples", "hello"))
	out := t.TempDir()
	if _, err := Synth(ctx, Options{ProjectDir: dir, OutDir: out}); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, `{"version": "1.0", "app_name": "hello", "tags": {"team": "api"},
		"stages": {"dev": {"lambda_memory_size": 256, "tags": {"cost-center": "42"}}}}`)
	res, err := Synth(ctx, Options{ProjectDir: dir, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reused {
		t.Fatal("configuration changed, yet the assembly was reused")
	}
	fn := readTemplate(t, res.TemplatePath).one(t, "AWS::Lambda::Function")
	if fn.Properties["MemorySize"] != float64(256) {
		t.Errorf("MemorySize = %v, want 256", fn.Properties["MemorySize"])
	}
	if got := stackTags(t, res); len(got) != 2 || got["team"] != "api" || got["cost-center"] != "42" {
		t.Errorf("stack tags in the assembly %v, want team=api and cost-center=42 from config.json", got)
	}
}

// stackTags returns the tags of the synthesized stack in its assembly's manifest.
func stackTags(t *testing.T, res *Result) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(res.AssemblyDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mf struct {
		Artifacts map[string]struct {
			Properties struct{ Tags map[string]string }
		}
	}
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	return mf.Artifacts[res.StackName].Properties.Tags
}

// copyProject copies an example app into a module of its own in a temp dir.
func copyProject(t *testing.T, src string) string {
	t.Helper()
	root := testutil.RepoRoot(t)
	dir := t.TempDir()
	main, err := os.ReadFile(filepath.Join(src, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	writeModule(t, dir, map[string]string{"main.go": string(main)})
	cfg, err := os.ReadFile(filepath.Join(src, ".framework", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, string(cfg))
	_ = root
	return dir
}

// writeModule writes files into dir as a module that requires this
// repository's framework through a replace directive.
func writeModule(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	testutil.WriteFiles(t, dir, testutil.FrameworkModule(t, files))
}

func writeConfig(t testing.TB, dir, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".framework"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".framework", "config.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// prebuilt returns synthesis inputs for a manifest, with a stand-in package,
// prepared as Synth prepares a project's (constructs.Prepare).
func prebuilt(t *testing.T, m *manifest.Manifest, stage string, cfg *constructs.Config, pol *policy.Document) *inputs {
	t.Helper()
	zip := filepath.Join(t.TempDir(), "function.zip")
	if err := os.WriteFile(zip, []byte("stand-in package of "+m.App), 0o644); err != nil {
		t.Fatal(err)
	}
	var cpol *constructs.PolicyDocument
	if pol != nil {
		b, err := json.Marshal(pol)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &cpol); err != nil {
			t.Fatal(err)
		}
	}
	p, err := constructs.Prepare(context.Background(), &constructs.AppProps{Manifest: m, PackageZip: zip, Stage: stage, Config: cfg, Policy: cpol}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA(zip)
	if err != nil || p.PackageSHA256 != sum {
		t.Fatalf("prepared package hash %s, want %s (%v)", p.PackageSHA256, sum, err)
	}
	return &inputs{Prepared: p}
}

func route(path string, methods ...string) manifest.Route {
	return manifest.Route{Path: path, Methods: methods, Handler: strings.ToLower(methods[0]) + strings.ReplaceAll(path, "/", "_"), ContentTypes: []string{"application/json"}}
}

// TestStackFeatures synthesizes stacks for manifests using each route
// feature and checks what API Gateway, Lambda and IAM get.
func TestStackFeatures(t *testing.T) {
	ctx := context.Background()
	cors := &manifest.CORS{AllowOrigin: "*", AllowHeaders: manifest.DefaultCORSHeaders}
	const authURI = "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:check-token/invocations"
	m := &manifest.Manifest{Version: manifest.Version, App: "features", BinaryTypes: []string{"application/octet-stream", "image/png"}}
	add := func(r manifest.Route, f func(*manifest.Route)) {
		f(&r)
		m.Routes = append(m.Routes, r)
	}
	add(route("/", "GET"), func(r *manifest.Route) {})
	add(route("/items/{id}", "GET", "PUT"), func(r *manifest.Route) { r.CORS = cors })
	add(route("/keyed", "POST"), func(r *manifest.Route) { r.APIKeyRequired = true })
	add(route("/iam", "GET"), func(r *manifest.Route) {
		r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerIAM}
	})
	add(route("/pool", "GET"), func(r *manifest.Route) {
		r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization",
			ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_abc"}}
	})
	add(route("/custom", "GET"), func(r *manifest.Route) {
		r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: "token", Header: "X-Token", AuthorizerURI: authURI, TTLSeconds: 60}
	})
	add(route("/custom2", "DELETE"), func(r *manifest.Route) {
		r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: "token", Header: "X-Token", AuthorizerURI: authURI, TTLSeconds: 60}
	})
	cfg := &constructs.Config{
		EnvironmentVariables: map[string]string{"TABLE": "orders", "MODE": "prod"},
		MemorySize:           512, TimeoutSeconds: 20, Architecture: constructs.ArchX8664, APIGatewayStage: "v1",
	}
	cfg.Tags = map[string]string{"team": "api", "cost-center": "42"}
	in := prebuilt(t, m, "prod", cfg, nil)
	res, err := assemble(ctx, in, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StackName != "features-prod" {
		t.Errorf("stack %s", res.StackName)
	}
	tpl := readTemplate(t, res.TemplatePath)

	t.Run("paths and methods", func(t *testing.T) {
		paths := tpl.body(t)["paths"].(map[string]any)
		want := map[string][]string{"/": {"get"}, "/items/{id}": {"get", "options", "put"}, "/keyed": {"post"}, "/iam": {"get"}, "/pool": {"get"}, "/custom": {"get"}, "/custom2": {"delete"}}
		if len(paths) != len(want) {
			t.Errorf("paths %v", keys(paths))
		}
		for p, methods := range want {
			item, ok := paths[p].(map[string]any)
			if !ok {
				t.Errorf("path %s missing", p)
				continue
			}
			if got := keys(item); strings.Join(got, ",") != strings.Join(methods, ",") {
				t.Errorf("path %s methods %v, want %v", p, got, methods)
			}
			for _, meth := range methods {
				integ := item[meth].(map[string]any)["x-amazon-apigateway-integration"].(map[string]any)
				if meth == "options" {
					if integ["type"] != "mock" {
						t.Errorf("%s OPTIONS integration %v, want mock", p, integ["type"])
					}
					continue
				}
				if integ["type"] != "aws_proxy" || !strings.Contains(fmt.Sprint(integ["uri"]), "Fn::GetAtt") {
					t.Errorf("%s %s integration %v, want aws_proxy to the function", p, meth, integ)
				}
			}
		}
	})
	t.Run("binary media types", func(t *testing.T) {
		got := fmt.Sprint(tpl.body(t)["x-amazon-apigateway-binary-media-types"])
		if got != "[application/octet-stream image/png]" {
			t.Errorf("binary media types %s", got)
		}
	})
	t.Run("CORS preflight", func(t *testing.T) {
		opt := tpl.body(t)["paths"].(map[string]any)["/items/{id}"].(map[string]any)["options"].(map[string]any)
		params := opt["x-amazon-apigateway-integration"].(map[string]any)["responses"].(map[string]any)["default"].(map[string]any)["responseParameters"].(map[string]any)
		if params["method.response.header.Access-Control-Allow-Methods"] != "'GET,PUT,OPTIONS'" {
			t.Errorf("preflight Allow-Methods %v", params["method.response.header.Access-Control-Allow-Methods"])
		}
	})
	t.Run("API key", func(t *testing.T) {
		plan := tpl.one(t, "AWS::ApiGateway::UsagePlan")
		stages := plan.Properties["ApiStages"].([]any)
		if len(stages) != 1 || !strings.Contains(fmt.Sprint(stages[0]), "Ref") {
			t.Errorf("usage plan stages %v", stages)
		}
		key := tpl.one(t, "AWS::ApiGateway::ApiKey")
		_ = key
		tpl.one(t, "AWS::ApiGateway::UsagePlanKey")
		out, ok := tpl.Outputs[names.OutputAPIKeyID]
		if !ok || !strings.Contains(fmt.Sprint(out["Value"]), "Ref") {
			t.Errorf("APIKeyId output %v; want a Ref to the key (its ID, not its value)", out)
		}
		if strings.Contains(fmt.Sprint(out["Value"]), "Value") {
			t.Errorf("APIKeyId output exposes the key's value: %v", out)
		}
		if tpl.body(t)["x-amazon-apigateway-api-key-source"] != "HEADER" {
			t.Error("body has no api key source HEADER")
		}
	})
	t.Run("authorizers", func(t *testing.T) {
		schemes := tpl.body(t)["components"].(map[string]any)["securitySchemes"].(map[string]any)
		for name, authType := range map[string]string{"sigv4": "awsSigv4", "pool": "cognito_user_pools", "token": "custom"} {
			s, ok := schemes[name].(map[string]any)
			if !ok || s["x-amazon-apigateway-authtype"] != authType {
				t.Errorf("security scheme %s = %v, want authtype %s", name, s, authType)
			}
		}
		perms := tpl.ofType("AWS::Lambda::Permission")
		var api, authz int
		for _, p := range perms {
			fn := fmt.Sprint(p.Properties["FunctionName"])
			src := fmt.Sprint(p.Properties["SourceArn"])
			if p.Properties["Principal"] != "apigateway.amazonaws.com" {
				t.Errorf("permission principal %v", p.Properties["Principal"])
			}
			switch {
			case fn == "arn:aws:lambda:eu-west-1:123456789012:function:check-token":
				authz++
				if !strings.Contains(src, "/authorizers/*") {
					t.Errorf("authorizer permission source %s", src)
				}
			case strings.Contains(fn, "Fn::GetAtt"):
				api++
				if !strings.HasSuffix(strings.TrimRight(src, "]"), "/*/*/*") {
					t.Errorf("API permission source %s, want the whole API /*/*/*", src)
				}
			default:
				t.Errorf("unexpected permission on %s", fn)
			}
		}
		if api != 1 || authz != 1 {
			t.Errorf("%d API permissions and %d authorizer permissions, want one each (one per function, not per route)", api, authz)
		}
	})
	t.Run("function", func(t *testing.T) {
		fn := tpl.one(t, "AWS::Lambda::Function").Properties
		env := fn["Environment"].(map[string]any)["Variables"].(map[string]any)
		if env["TABLE"] != "orders" || env["MODE"] != "prod" || env[names.EnvStage] != "prod" || len(env) != 3 {
			t.Errorf("environment %v", env)
		}
		if fn["MemorySize"] != float64(512) || fn["Timeout"] != float64(20) || fmt.Sprint(fn["Architectures"]) != "[x86_64]" ||
			fn["Runtime"] != "provided.al2023" || fn["Handler"] != "bootstrap" {
			t.Errorf("function properties %v", fn)
		}
	})
	t.Run("stage and outputs", func(t *testing.T) {
		st := tpl.one(t, "AWS::ApiGateway::Stage")
		if st.Properties["StageName"] != "v1" {
			t.Errorf("stage %v, want v1 (api_gateway_stage)", st.Properties["StageName"])
		}
		for _, o := range []string{names.OutputEndpointURL, names.OutputRestAPIID, names.OutputFunctionName, names.OutputFunctionArn, names.OutputRoleArn, names.OutputAPIKeyID} {
			if _, ok := tpl.Outputs[o]; !ok {
				t.Errorf("output %s missing", o)
			}
		}
		url := fmt.Sprint(tpl.Outputs[names.OutputEndpointURL]["Value"])
		for _, part := range []string{"https://", ".execute-api.", "AWS::Region", "AWS::URLSuffix", "/"} {
			if !strings.Contains(url, part) {
				t.Errorf("EndpointURL %s lacks %q", url, part)
			}
		}
		if len(tpl.Outputs) != 6 {
			t.Errorf("outputs %v, want exactly the six of the contract", keys(tpl.Outputs))
		}
	})
	t.Run("tags", func(t *testing.T) {
		// Stack tags: the deployer passes them to CloudFormation, which puts
		// them on the stack and on every resource that takes tags.
		if got := stackTags(t, res); len(got) != 2 || got["team"] != "api" || got["cost-center"] != "42" {
			t.Errorf("stack tags in the assembly %v", got)
		}
	})
}

// TestStackRolePolicy: the role's policy is the one generated from a
// fixture app's AWS SDK calls; it grants the logging actions once, on the
// Lambda functions' log groups, with no managed policy granting them again
// on every log group.
func TestStackRolePolicy(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	pol, err := scan.Generate(filepath.Join(testutil.RepoRoot(t), "internal", "policy", "testdata", "fixture"))
	if err != nil {
		t.Fatalf("generate the fixture's policy (make test-deps downloads its modules): %v", err)
	}
	m := &manifest.Manifest{Version: manifest.Version, App: "fixture", Routes: []manifest.Route{route("/", "GET")}}
	res, err := assemble(context.Background(), prebuilt(t, m, "dev", nil, pol), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Policy, pol) {
		t.Errorf("Result.Policy %+v is not the policy synthesized %+v", res.Policy, pol)
	}
	tpl := readTemplate(t, res.TemplatePath)
	role := tpl.one(t, "AWS::IAM::Role").Properties
	if arns, ok := role["ManagedPolicyArns"]; ok {
		t.Errorf("role managed policies %v, want none: the generated policy grants the logging actions", arns)
	}
	// The logging actions are on the function's own log group only, in a
	// policy of their own (the role's inline policy cannot name the
	// function: a dependency cycle).
	logging := tpl.one(t, "AWS::IAM::Policy").Properties
	if logs := fmt.Sprint(role["Policies"]); strings.Contains(logs, "logs:") {
		t.Errorf("role policies %s, want the logging actions in the function's logging policy", logs)
	}
	if logs := fmt.Sprint(logging); !strings.Contains(logs, "logs:PutLogEvents") || !strings.Contains(logs, "log-group:/aws/lambda/${Name}") || strings.Contains(logs, "/aws/lambda/*") {
		t.Errorf("logging policy %s, want the logging actions on the function's own log group only", logs)
	}
	gotActions := map[string]bool{}
	for _, s := range slices.Concat(role["Policies"].([]any)[0].(map[string]any)["PolicyDocument"].(map[string]any)["Statement"].([]any),
		logging["PolicyDocument"].(map[string]any)["Statement"].([]any)) {
		switch a := s.(map[string]any)["Action"].(type) {
		case string:
			gotActions[a] = true
		case []any:
			for _, x := range a {
				gotActions[x.(string)] = true
			}
		}
	}
	want := policy.Actions(pol)
	if len(want) < 4 {
		t.Fatalf("fixture policy has only %v", want)
	}
	for _, a := range want {
		if !gotActions[a] {
			t.Errorf("role policy lacks %s", a)
		}
	}
	if len(gotActions) != len(want) {
		t.Errorf("role policy actions %v, want %v", gotActions, want)
	}

	// A hand-written policy without the logging actions: the role's own
	// policy still lets the function write its logs, on the Lambda
	// functions' log groups only, and no managed policy is attached.
	own := &policy.Document{Version: policy.PolicyVersion, Statement: []policy.Statement{{Sid: "Read", Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: []string{"*"}}}}
	res, err = assemble(context.Background(), prebuilt(t, m, "dev", nil, own), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tpl = readTemplate(t, res.TemplatePath)
	role = tpl.one(t, "AWS::IAM::Role").Properties
	if arns, ok := role["ManagedPolicyArns"]; ok || !strings.Contains(fmt.Sprint(tpl.one(t, "AWS::IAM::Policy").Properties), "logs:PutLogEvents") || !strings.Contains(fmt.Sprint(role["Policies"]), "s3:GetObject") {
		t.Errorf("role managed policies %v, policies %v with a policy that cannot write logs, want its statements and logging", arns, role["Policies"])
	}
}

// TestStackExistingRole: manage_role false with role_id imports the role and creates none.
func TestStackExistingRole(t *testing.T) {
	for _, roleID := range []string{"arn:aws:iam::123456789012:role/app-role", "app-role"} {
		t.Run(roleID, func(t *testing.T) {
			m := &manifest.Manifest{Version: manifest.Version, App: "byorole", Routes: []manifest.Route{route("/", "GET")}}
			res, err := assemble(context.Background(), prebuilt(t, m, "dev", &constructs.Config{RoleID: roleID}, nil), t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tpl := readTemplate(t, res.TemplatePath)
			if n := len(tpl.ofType("AWS::IAM::Role")) + len(tpl.ofType("AWS::IAM::Policy")); n != 0 {
				t.Errorf("%d IAM roles/policies created; want none with an existing role", n)
			}
			fnRole := fmt.Sprint(tpl.one(t, "AWS::Lambda::Function").Properties["Role"])
			if !strings.Contains(fnRole, "role/app-role") {
				t.Errorf("function role %s, want the existing app-role", fnRole)
			}
			if !strings.Contains(fmt.Sprint(tpl.Outputs[names.OutputRoleArn]["Value"]), "app-role") {
				t.Errorf("RoleArn output %v", tpl.Outputs[names.OutputRoleArn])
			}
			if res.Policy != nil {
				t.Errorf("Result.Policy %v, want nil for an existing role", res.Policy)
			}
		})
	}
}

// TestSynth1000Routes: a generated app with 1,000 routes synthesizes into
// one stack within CloudFormation's limits.
func TestSynth1000Routes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,000-route app")
	}
	t.Setenv(build.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	writeModule(t, dir, map[string]string{"main.go": manyRoutesApp(1000)})
	writeConfig(t, dir, `{"version": "1.0", "app_name": "many"}`)
	res, err := Synth(context.Background(), Options{ProjectDir: dir, OutDir: filepath.Join(dir, "cdk.out")})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(res.TemplatePath)
	if err != nil {
		t.Fatal(err)
	}
	tpl := readTemplate(t, res.TemplatePath)
	ops := 0
	for _, item := range tpl.body(t)["paths"].(map[string]any) {
		ops += len(item.(map[string]any))
	}
	t.Logf("1,000 routes: %d operations, %d resources, template %d bytes", ops, res.ResourceCount, fi.Size())
	if ops < 1000 {
		t.Errorf("%d operations in the body, want at least 1,000", ops)
	}
	if res.ResourceCount > 500 {
		t.Errorf("%d resources, over CloudFormation's 500", res.ResourceCount)
	}
	if fi.Size() > 1<<20 {
		t.Errorf("template %d bytes, over CloudFormation's 1 MB", fi.Size())
	}
}

// manyRoutesApp returns the source of an app with n routes shaped like a
// REST API: each resource has a collection route (GET and POST) and an item
// route with a capture (GET); one resource in ten has CORS, one in seven
// requires an API key.
func manyRoutesApp(n int) string {
	var b strings.Builder
	b.WriteString("package main\n\nimport \"github.com/framework-dev/framework/framework\"\n\n")
	b.WriteString("func h0(r *framework.Request) (any, error) { return nil, nil }\n")
	b.WriteString("func h1(r *framework.Request, a string) (any, error) { return a, nil }\n\n")
	b.WriteString("func main() {\n\tapp := framework.New(\"many\")\n")
	for i := 0; i < n; i++ {
		res := fmt.Sprintf("/resource%03d", i/2)
		opts := fmt.Sprintf("framework.Name(\"h%d\")", i)
		if (i/2)%10 == 3 {
			opts += ", framework.CORS(true)"
		}
		if (i/2)%7 == 5 {
			opts += ", framework.APIKeyRequired()"
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, "\tapp.Route(%q, h0, framework.Methods(\"GET\", \"POST\"), %s)\n", res, opts)
		} else {
			fmt.Fprintf(&b, "\tapp.Route(%q, h1, %s)\n", res+"/{id}", opts)
		}
	}
	b.WriteString("\tapp.Run()\n}\n")
	return b.String()
}

// TestSynthConfigErrors: configuration mistakes stop synth naming the file and key.
func TestSynthConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config, stage string
		want                []string
	}{
		{"memory", `{"version": "1.0", "app_name": "x", "lambda_memory_size": 64}`, "dev", []string{"config.json", "lambda_memory_size"}},
		{"stage key", `{"version": "1.0", "app_name": "x", "stages": {"prod": {"lambda_timeout": "ten"}}}`, "prod", []string{"config.json", "stages.prod.lambda_timeout"}},
		{"role", `{"version": "1.0", "app_name": "x", "manage_role": false}`, "dev", []string{"config.json", "role_id"}},
		{"syntax", `{"version": "1.0",`, "dev", []string{"config.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, tc.config)
			_, err := Synth(context.Background(), Options{ProjectDir: dir, Stage: tc.stage, OutDir: t.TempDir()})
			if err == nil {
				t.Fatal("synth succeeded with a broken configuration")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

// TestSynthBuildErrors: a failing build or refused routes stop synth with
// the compiler's or the app's message.
func TestSynthBuildErrors(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	for _, tc := range []struct {
		name, main string
		as         any
		want       string
	}{
		{"compile", "package main\n\nfunc main() { undefinedThing() }\n", new(*build.CompileError), "undefinedThing"},
		{"routes", "package main\n\nimport \"github.com/framework-dev/framework/framework\"\n\nfunc main() {\n\tapp := framework.New(\"bad\")\n\tapp.Route(\"/x/{id}\", func(r *framework.Request) (any, error) { return nil, nil })\n\tapp.Run()\n}\n", new(*build.RoutesError), "/x/{id}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeModule(t, dir, map[string]string{"main.go": tc.main})
			writeConfig(t, dir, `{"version": "1.0", "app_name": "bad"}`)
			_, err := Synth(context.Background(), Options{ProjectDir: dir, OutDir: t.TempDir()})
			if err == nil {
				t.Fatal("synth succeeded")
			}
			if !errors.As(err, tc.as) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %T %q, want %T mentioning %q", err, err, tc.as, tc.want)
			}
		})
	}
}

// TestSynthAppNameMismatch: an app_name that differs from the app's own
// name stops synth, so deploy never creates a stack url and destroy miss.
func TestSynthAppNameMismatch(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	dir := t.TempDir()
	writeModule(t, dir, map[string]string{"main.go": manyRoutesApp(1)})
	writeConfig(t, dir, `{"version": "1.0", "app_name": "shop"}`)
	_, err := Synth(context.Background(), Options{ProjectDir: dir, OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `app_name "shop"`) || !strings.Contains(err.Error(), `framework.New("many")`) || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("err = %v, want one naming config.json, app_name \"shop\" and framework.New(\"many\")", err)
	}
}

// TestSynthWithoutNode: a synth that must run the CDK stops on the Node
// check with one line, before anything is written.
func TestSynthWithoutNode(t *testing.T) {
	t.Setenv("JSII_NODE", filepath.Join(t.TempDir(), "no-node-here"))
	m := &manifest.Manifest{Version: manifest.Version, App: "nonode", Routes: []manifest.Route{route("/", "GET")}}
	out := t.TempDir()
	_, err := assemble(context.Background(), prebuilt(t, m, "dev", nil, nil), out, nil)
	var ne *NodeError
	if !errors.As(err, &ne) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want a one-line NodeError", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("assembly directory has %d entries after the refusal, want none", len(entries))
	}
}

func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func fileSHA(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256Sum(b)), nil
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// TestDeploymentFollowsTheRoutes: API Gateway serves a REST API's changes
// only through a new deployment, so the Deployment's logical ID must change
// with the body (a new route) and stay put when nothing changed.
func TestDeploymentFollowsTheRoutes(t *testing.T) {
	deployment := func(routes ...manifest.Route) string {
		t.Helper()
		m := &manifest.Manifest{Version: manifest.Version, App: "deploys", Routes: routes}
		res, err := assemble(context.Background(), prebuilt(t, m, "dev", nil, nil), t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ids := keys(readTemplate(t, res.TemplatePath).ofType("AWS::ApiGateway::Deployment"))
		if len(ids) != 1 {
			t.Fatalf("deployments %v, want one", ids)
		}
		return ids[0]
	}
	a := deployment(route("/", "GET"))
	if b := deployment(route("/", "GET")); b != a {
		t.Errorf("same routes, new deployment: %s then %s", a, b)
	}
	if c := deployment(route("/", "GET"), route("/more", "POST")); c == a {
		t.Errorf("a new route kept deployment %s: the stage would not serve it", a)
	}
}
