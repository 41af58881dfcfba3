package test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
)

// addAppAuthorizer protects a new GET /me route of the new project's app
// with an in-app token authorizer named gate.
func addAppAuthorizer(t testing.TB, proj string) {
	t.Helper()
	path := filepath.Join(proj, "main.go")
	src, _ := os.ReadFile(path)
	out := strings.Replace(string(src), "\tapp.Run()", `	gate := framework.AppAuthorizer{Name: "gate", Func: func(ctx context.Context, in framework.AuthRequest) (framework.AuthResult, error) {
		return framework.AuthResult{Allow: in.Token == "let-me-in", PrincipalID: "someone"}, nil
	}}
	app.Route("/me", func(r *framework.Request) (any, error) {
		return r.GatewayContext.Authorizer["principalId"], nil
	}, framework.WithAuthorizer(gate))

	app.Run()`, 1)
	out = strings.Replace(out, `import "github.com/framework-dev/framework/framework"`, "import (\n\t\"context\"\n\n\t\"github.com/framework-dev/framework/framework\"\n)", 1)
	if !strings.Contains(out, "gate :=") || !strings.Contains(out, `"context"`) {
		t.Fatalf("main.go of new-project has no app.Run() line or single import:\n%s", src)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeployAppAuthorizer deploys an app with an in-app authorizer against
// the CloudFormation stand-in and moto, behind a REST API and an HTTP API:
// the authorizer's function is deployed beside the API's, a code change is
// hotswapped into both (they run one package), and destroy deletes the
// stacks.
func TestDeployAppAuthorizer(t *testing.T) {
	c, proj := startShop(t)
	addAppAuthorizer(t, proj)
	setStage(t, proj, "web", map[string]any{"api_type": "http"})
	run := cliRunner(t, proj, c.env)
	functions := func() map[string]string { // "api" or "gate" → function name
		out, err := c.lambda.ListFunctions(context.Background(), &lambda.ListFunctionsInput{})
		if err != nil {
			t.Fatal(err)
		}
		fns := map[string]string{}
		for _, f := range out.Functions {
			name := aws.ToString(f.FunctionName)
			switch {
			case strings.Contains(name, "-AppFunction"):
				fns["api"] = name
			case strings.Contains(name, "-AppFngate"):
				fns["gate"] = name
			default:
				fns[name] = name
			}
		}
		return fns
	}

	out := run(0, "deploy")
	wantOutput(t, out, "CREATE_COMPLETE        AWS::Lambda::Function AppFngate", "Rest API URL: https://")
	tpl := c.cfn.Template("shop-dev")
	for _, want := range []string{`"x-amazon-apigateway-authtype":"custom"`, `"type":"token"`, `"FRAMEWORK_HANDLER":"gate"`, `/authorizers/*`} {
		if !strings.Contains(tpl, want) {
			t.Errorf("deployed template lacks %s", want)
		}
	}
	fns := functions()
	if len(fns) != 2 || fns["gate"] == "" || fns["api"] == "" {
		t.Fatalf("functions in moto: %v; want the API's and gate's", fns)
	}

	editGreeting(t, proj, "hotswapped")
	out = run(0, "deploy", "--hotswap")
	wantOutput(t, out, "Hotswapped 2 functions of stack shop-dev in ")
	for h, fn := range fns {
		if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want {
			t.Errorf("function %q (%s) code %s after the hotswap, want %s", h, fn, got, want)
		}
	}

	out = run(0, "deploy", "--stage", "web")
	wantOutput(t, out, "HTTP API URL: https://")
	tpl = c.cfn.Template("shop-web")
	for _, want := range []string{`"AWS::ApiGatewayV2::Authorizer"`, `"AuthorizerType":"REQUEST"`, `"EnableSimpleResponses":true`, `"AuthorizationType":"CUSTOM"`} {
		if !strings.Contains(tpl, want) {
			t.Errorf("deployed http template lacks %s", want)
		}
	}

	for _, stage := range []string{"dev", "web"} {
		out = run(0, "destroy", "--stage", stage, "--yes")
		wantOutput(t, out, "Deleted stage "+stage+" (stack shop-"+stage+").")
		run(2, "url", "--stage", stage)
	}
}
