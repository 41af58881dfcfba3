package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthFrontDoors synthesizes the kitchensink example's http and url
// stages (api_type http and function_url in its config.json) as `framework
// synth --stage` does, compares them with their golden templates, checks
// the front door each has, and lints both with cfn-lint.
func TestSynthFrontDoors(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "kitchensink")
	var paths []string
	for _, stage := range []string{"http", "url"} {
		res, err := Synth(ctx, Options{ProjectDir: dir, Stage: stage, OutDir: t.TempDir()})
		if err != nil {
			t.Fatalf("stage %s: %v", stage, err)
		}
		raw, err := os.ReadFile(res.TemplatePath)
		if err != nil {
			t.Fatal(err)
		}
		testutil.Golden(t, filepath.Join("testdata", "kitchensink-"+stage+".template.json"), normalize(t, raw), *update)
		paths = append(paths, res.TemplatePath)
		tpl := readTemplate(t, res.TemplatePath)
		if n := len(tpl.ofType("AWS::ApiGateway::RestApi")) + len(tpl.ofType("AWS::ApiGateway::Deployment")); n != 0 {
			t.Errorf("stage %s: %d REST API resources, want none", stage, n)
		}
		if tpl.Outputs["EndpointURL"] == nil {
			t.Errorf("stage %s: no EndpointURL output for `framework url`", stage)
		}
		switch stage {
		case "http":
			tpl.one(t, "AWS::ApiGatewayV2::Api")
			st := tpl.one(t, "AWS::ApiGatewayV2::Stage")
			if st.Properties["StageName"] != "$default" || st.Properties["AutoDeploy"] != true {
				t.Errorf("stage %v, want $default with auto-deploy", st.Properties)
			}
			in := tpl.one(t, "AWS::ApiGatewayV2::Integration")
			if in.Properties["PayloadFormatVersion"] != "2.0" || in.Properties["IntegrationType"] != "AWS_PROXY" {
				t.Errorf("integration %v", in.Properties)
			}
			keys := map[string]bool{}
			for _, r := range tpl.ofType("AWS::ApiGatewayV2::Route") {
				keys[r.Properties["RouteKey"].(string)] = true
			}
			// Every declared method, plus OPTIONS on the two CORS paths.
			for _, k := range []string{"GET /", "GET /users/{name}", "PUT /users/{name}", "POST /echo", "GET /cors", "POST /cors", "OPTIONS /cors", "OPTIONS /cors-custom", "GET /shared", "POST /shared"} {
				if !keys[k] {
					t.Errorf("no route %q among %v", k, keys)
				}
			}
			if keys["OPTIONS /"] || keys["DELETE /users/{name}"] {
				t.Errorf("routes %v include undeclared ones", keys)
			}
			if n := len(tpl.ofType("AWS::Lambda::Permission")); n != 1 {
				t.Errorf("%d invoke permissions, want one for the whole API", n)
			}
		case "url":
			u := tpl.one(t, "AWS::Lambda::Url")
			if u.Properties["AuthType"] != "NONE" {
				t.Errorf("function URL %v, want auth NONE by default", u.Properties)
			}
			if len(tpl.ofType("AWS::ApiGatewayV2::Api")) != 0 {
				t.Error("a function URL stage has an HTTP API")
			}
		}
	}
	for _, p := range paths {
		cfnLint(t, p)
	}
}

// TestFrontDoorFeatures: what a route declares reaches an HTTP API or a
// function URL, or is refused at synth time naming the route and the
// front door.
func TestFrontDoorFeatures(t *testing.T) {
	ctx := context.Background()
	iam := route("/iam", "GET")
	iam.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerIAM}
	m := &manifest.Manifest{Version: manifest.Version, App: "doors", Routes: []manifest.Route{route("/", "GET"), iam}}

	domain := &constructs.CustomDomain{DomainName: "api.example.com", CertificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc", BasePath: "v1", HostedZoneName: "example.com"}
	res, err := assemble(ctx, prebuilt(t, m, "dev", &constructs.Config{APIType: constructs.APIHTTP, CustomDomain: domain}, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tpl := readTemplate(t, res.TemplatePath)
	for _, r := range tpl.ofType("AWS::ApiGatewayV2::Route") {
		want := map[string]any{"GET /": nil, "GET /iam": "AWS_IAM"}[r.Properties["RouteKey"].(string)]
		if r.Properties["AuthorizationType"] != want {
			t.Errorf("route %v: authorization %v, want %v", r.Properties["RouteKey"], r.Properties["AuthorizationType"], want)
		}
	}
	d := tpl.one(t, "AWS::ApiGatewayV2::DomainName")
	if !strings.Contains(tpl.json(t, "AWS::ApiGatewayV2::DomainName"), `"EndpointType":"REGIONAL"`) || d.Properties["DomainName"] != "api.example.com" {
		t.Errorf("domain %v", d.Properties)
	}
	if mp := tpl.one(t, "AWS::ApiGatewayV2::ApiMapping"); mp.Properties["ApiMappingKey"] != "v1" {
		t.Errorf("mapping %v", mp.Properties)
	}
	tpl.one(t, "AWS::Route53::RecordSet")
	if tpl.Outputs["CustomDomainURL"]["Value"] != "https://api.example.com/v1/" {
		t.Errorf("CustomDomainURL %v", tpl.Outputs["CustomDomainURL"])
	}
	cfnLint(t, res.TemplatePath)

	res, err = assemble(ctx, prebuilt(t, m, "dev", &constructs.Config{APIType: constructs.APIFunctionURL, FunctionURLAuth: constructs.URLAuthIAM}, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if u := readTemplate(t, res.TemplatePath).one(t, "AWS::Lambda::Url"); u.Properties["AuthType"] != "AWS_IAM" {
		t.Errorf("function URL %v, want AWS_IAM", u.Properties)
	}
	cfnLint(t, res.TemplatePath)

	keyed := route("/keyed", "POST")
	keyed.APIKeyRequired = true
	pool := route("/pool", "GET")
	pool.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization", ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_abc"}}
	twoPools := pool
	twoPools.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization", Audiences: []string{"client"},
		ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_abc", "arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_def"}}
	jwt := route("/jwt", "GET")
	jwt.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerJWT, Name: "jwt", Header: "Authorization", Issuer: "https://issuer.example.com", Audiences: []string{"api"}}
	for _, tc := range []struct {
		name  string
		r     manifest.Route
		cfg   constructs.Config
		wants []string
	}{
		{"api key on http", keyed, constructs.Config{APIType: constructs.APIHTTP}, []string{"route /keyed (handler post_keyed) requires an API key", "API Gateway HTTP API", `set api_type to "rest"`}},
		{"api key on function url", keyed, constructs.Config{APIType: constructs.APIFunctionURL}, []string{"route /keyed", "Lambda function URL"}},
		{"user pool without app clients on http", pool, constructs.Config{APIType: constructs.APIHTTP}, []string{"route /pool (handler get_pool)", `user pool authorizer "pool" names no app client`, "UserPoolAuthorizer.ClientIDs", `set api_type to "rest"`}},
		{"two user pools on http", twoPools, constructs.Config{APIType: constructs.APIHTTP}, []string{"route /pool (handler get_pool)", `trusts 2 user pools`}},
		{"jwt on rest", jwt, constructs.Config{}, []string{`route GET /jwt (handler "get_jwt")`, `JWT authorizer "jwt": a REST API has no JWT authorizers`, `"api_type": "http"`}},
		{"jwt on function url", jwt, constructs.Config{APIType: constructs.APIFunctionURL}, []string{"route /jwt (handler get_jwt)", `"jwt" is a jwt authorizer, which a function URL has not`}},
		{"iam on an open function url", iam, constructs.Config{APIType: constructs.APIFunctionURL}, []string{"route /iam (handler get_iam)", `"function_url_auth": "AWS_IAM"`}},
		{"compression on http", route("/", "GET"), constructs.Config{APIType: constructs.APIHTTP, MinimumCompressionSize: new(int)}, []string{"HTTP API has no response compression"}},
		{"unknown type", route("/", "GET"), constructs.Config{APIType: "graphql"}, []string{`api type "graphql"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zip := filepath.Join(t.TempDir(), "function.zip")
			if err := os.WriteFile(zip, []byte("stand-in"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := tc.cfg
			_, err := constructs.Prepare(ctx, &constructs.AppProps{Manifest: &manifest.Manifest{Version: manifest.Version, App: "doors", Routes: []manifest.Route{tc.r}}, PackageZip: zip, Stage: "dev", Config: &cfg}, nil)
			if err == nil {
				t.Fatal("prepared without error")
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}
