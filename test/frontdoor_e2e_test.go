package test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/testutil"
)

// setStage sets keys of a stage of the new project's config.json, adding
// the stage when it has none. new-project's dev stage names its REST API
// stage, which the other front doors do not have, so that key goes.
func setStage(t testing.TB, proj, stage string, keys map[string]any) {
	t.Helper()
	path := filepath.Join(proj, ".framework", "config.json")
	var cfg map[string]any
	testutil.ReadJSON(t, path, &cfg)
	stages, _ := cfg["stages"].(map[string]any)
	if stages == nil {
		stages = map[string]any{}
		cfg["stages"] = stages
	}
	st, _ := stages[stage].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	delete(st, "api_gateway_stage")
	for k, v := range keys {
		st[k] = v
	}
	stages[stage] = st
	raw, _ := json.MarshalIndent(cfg, "", "  ")
	writeFile(t, path, string(raw))
}

// TestDeployHTTPAPIStage drives the built CLI through an api_type http
// stage against the CloudFormation stand-in and moto: deploy prints the
// HTTP API's URL (no stage segment) and url the same, a code change is
// hotswapped, diff shows a new route as a route, deploy --hotswap falls
// back to a full deploy for it, and destroy deletes the stack.
func TestDeployHTTPAPIStage(t *testing.T) {
	c, proj := startShop(t)
	run := cliRunner(t, proj, c.env)
	// A key only a REST API has is refused on an HTTP API, with the fix.
	setStage(t, proj, "dev", map[string]any{"api_type": "http", "api_gateway_stage": "dev"})
	out := run(1, "synth")
	wantOutput(t, out, `stages.dev.api_gateway_stage: stage "dev" has api_type "http" (API Gateway HTTP API), which has no named stage`)
	setStage(t, proj, "dev", map[string]any{"api_type": "http"})

	out = run(0, "deploy")
	m := regexp.MustCompile(`(?m)^HTTP API URL: (https://[a-z0-9]{10}\.execute-api\.us-east-1\.amazonaws\.com/)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("deploy printed no HTTP API URL:\n%s", out)
	}
	if got := strings.TrimSpace(run(0, "url")); got != m[1] {
		t.Errorf("url printed %q, deploy %q", got, m[1])
	}
	tpl := c.cfn.Template("shop-dev")
	for _, want := range []string{`"AWS::ApiGatewayV2::Api"`, `"AWS::ApiGatewayV2::Route"`, `"RouteKey":"GET /"`, `"StageName":"$default"`, `"PayloadFormatVersion":"2.0"`} {
		if !strings.Contains(tpl, want) {
			t.Errorf("deployed template lacks %s", want)
		}
	}
	if strings.Contains(tpl, `"AWS::ApiGateway::RestApi"`) {
		t.Error("an http stage deployed a REST API")
	}

	fn := c.functionName(t)
	editGreeting(t, proj, "hotswapped")
	out = run(0, "deploy", "--hotswap")
	wantOutput(t, out, "Hotswapped 1 function of stack shop-dev in ", "HTTP API URL: "+m[1])
	if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want {
		t.Errorf("function code %s after the hotswap, want %s", got, want)
	}

	addUsersRoute(t, proj)
	out = run(0, "diff")
	wantOutput(t, out, "POST /users/{name}")
	out = run(0, "deploy", "--hotswap")
	wantOutput(t, out, "Hotswap not possible: a route change (+ POST /users/{name}). Deploying fully.", "Deployed stack shop-dev in ")
	if !strings.Contains(c.cfn.Template("shop-dev"), `"RouteKey":"POST /users/{name}"`) {
		t.Error("the deployed template lacks the new route")
	}

	out = run(0, "destroy", "--yes")
	wantOutput(t, out, "Deleted stage dev (stack shop-dev).")
	run(2, "url")
}

// TestDeployFunctionURLStage deploys an api_type function_url stage: the
// stack has a function URL, deploy and url print it, destroy deletes it.
func TestDeployFunctionURLStage(t *testing.T) {
	c, proj := startShop(t)
	run := cliRunner(t, proj, c.env)
	setStage(t, proj, "web", map[string]any{"api_type": "function_url", "function_url_auth": "AWS_IAM"})
	out := run(0, "deploy", "--stage", "web")
	m := regexp.MustCompile(`(?m)^Function URL: (https://[a-z0-9]{20}\.lambda-url\.us-east-1\.on\.aws/)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("deploy printed no function URL:\n%s", out)
	}
	if got := strings.TrimSpace(run(0, "url", "--stage", "web")); got != m[1] {
		t.Errorf("url printed %q, deploy %q", got, m[1])
	}
	tpl := c.cfn.Template("shop-web")
	if !strings.Contains(tpl, `"AWS::Lambda::Url"`) || !strings.Contains(tpl, `"AuthType":"AWS_IAM"`) || strings.Contains(tpl, `"AWS::ApiGateway::RestApi"`) {
		t.Errorf("deployed template:\n%s", tpl)
	}
	out = run(0, "destroy", "--stage", "web", "--yes")
	if !strings.Contains(out, "Deleted stage web (stack shop-web).") {
		t.Errorf("destroy:\n%s", out)
	}
}

// TestLocalRefusesWhatTheFrontDoorLacks: a route the stage's front door
// cannot serve (an API key on an HTTP API stage) is refused by framework
// local with synth's message, as the stage would not deploy, and the app
// is served once the stage's configuration allows it.
func TestLocalRefusesWhatTheFrontDoorLacks(t *testing.T) {
	env := testEnv(t)
	proj := newProject(t, env, "keyed")
	writeFile(t, filepath.Join(proj, "main.go"), `package main

import "github.com/framework-dev/framework/framework"

func main() {
	app := framework.New("keyed")
	app.Route("/", func(r *framework.Request) (any, error) { return map[string]string{"hello": "world"}, nil })
	app.Route("/admin", func(r *framework.Request) (any, error) { return "secret", nil }, framework.APIKeyRequired())
	app.Run()
}
`)
	setStage(t, proj, "dev", map[string]any{"api_type": "http"})

	s := startLocal(t, proj, env)
	ev := s.seenEvent("front_door_error") // the first build's comes before serving
	if ev == nil {
		t.Fatalf("no front_door_error event before serving; events %v", s.seen)
	}
	msg, _ := ev["error"].(string)
	for _, want := range []string{"route /admin", "requires an API key", "HTTP API", `set api_type to "rest"`, "framework synth and deploy refuse this stage"} {
		if !strings.Contains(msg, want) {
			t.Errorf("front_door_error %q: want it to say %q", msg, want)
		}
	}
	if got := get(t, s.URL+"/", nil); got.status != 503 || !strings.Contains(got.body, "requires an API key") {
		t.Errorf("GET / while the front door refuses the app = %d %s, want 503 with the reason", got.status, got.body)
	}

	setStage(t, proj, "dev", map[string]any{"api_type": "rest"})
	s.waitEvent(t, "started", 2*time.Minute)
	if got := get(t, s.URL+"/", nil); got.status != 200 || got.body != `{"hello":"world"}` {
		t.Errorf("GET / once the stage is a REST API = %d %s", got.status, got.body)
	}
	if got := get(t, s.URL+"/admin", nil); got.status != 403 {
		t.Errorf("GET /admin without a key = %d %s, want 403", got.status, got.body)
	}
}
