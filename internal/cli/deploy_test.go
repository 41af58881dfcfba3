package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/cfnstandin"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/deploy/deploytest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/synth"
)

// lifecycle drives the deploy commands through MainEnv against the AWS
// stand-ins, with synthesis replaced by a cloud assembly fixture whose
// template each step may change. Each command runs in its own Env, with
// the stdin and terminal answer the test last set.
type lifecycle struct {
	t       *testing.T
	aws     *cfnstandin.AWS
	project string
	mutate  func(tpl map[string]any)
	// rebuild, when not empty, is the bootstrap of a new Lambda package
	// the next syntheses put in place of the fixture's.
	rebuild string
	cache   string // FRAMEWORK_CACHE_DIR, where deploy records go
	policy  *policy.Document
	synths  int
	// input is the next command's stdin; terminal says whether stdin is a
	// terminal.
	input    string
	terminal bool
}

func newLifecycle(t *testing.T) *lifecycle {
	l := &lifecycle{t: t, aws: cfnstandin.Start(t), project: t.TempDir(), cache: t.TempDir()}
	if err := config.Default("hello").Write(l.project); err != nil {
		t.Fatal(err)
	}
	l.policy = &policy.Document{Version: policy.PolicyVersion, Statement: []policy.Statement{{
		Sid: "Logs", Effect: "Allow", Action: []string{"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}, Resource: []string{"arn:*:logs:*:*:*"},
	}}}
	return l
}

// synth stands for internal/synth: it copies the fixture assembly and
// applies the current template change.
func (l *lifecycle) synth(ctx context.Context, o synth.Options) (*synth.Result, error) {
	l.synths++
	dir := filepath.Join(l.t.TempDir(), "cdk.out")
	if err := deploytest.Assembly(dir, l.mutate); err != nil {
		return nil, err
	}
	if l.rebuild != "" {
		if err := deploytest.Rebuild(dir, l.rebuild); err != nil {
			return nil, err
		}
	}
	if o.Stage != "dev" {
		l.t.Fatalf("synth of stage %q, the fixture has dev only", o.Stage)
	}
	return &synth.Result{App: "hello", Stage: "dev", StackName: "hello-dev", AssemblyDir: dir,
		TemplatePath: filepath.Join(dir, "hello-dev.template.json"), ResourceCount: 6, Policy: l.policy}, nil
}

// run runs the CLI in the project and returns its exit code and output.
func (l *lifecycle) run(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(l.input), Stdout: &stdout, Stderr: &stderr,
		StdinIsTerminal: func() bool { return l.terminal },
		Getenv:          environ(map[string]string{names.EnvPollInterval: "1ms", names.EnvCacheDir: l.cache}),
		Synth:           l.synth,
	}
	code := MainEnv(append([]string{"-C", l.project}, args...), env)
	l.t.Logf("$ framework %s  (exit %d)\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	return code, stdout.String(), stderr.String()
}

// environ returns a Getenv reading vars.
func environ(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func (l *lifecycle) expect(args []string, wantCode int, wantOut ...string) string {
	l.t.Helper()
	code, stdout, stderr := l.run(args...)
	if code != wantCode {
		l.t.Fatalf("framework %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, wantCode, stdout, stderr)
	}
	for _, w := range wantOut {
		if !strings.Contains(stdout+stderr, w) {
			l.t.Errorf("framework %s: output lacks %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), w, stdout, stderr)
		}
	}
	return stdout
}

func apiPaths(tpl map[string]any) map[string]any {
	r := tpl["Resources"].(map[string]any)["RestApi"].(map[string]any)["Properties"].(map[string]any)
	return r["Body"].(map[string]any)["paths"].(map[string]any)
}

func rolePolicy(tpl map[string]any) map[string]any {
	r := tpl["Resources"].(map[string]any)["FunctionRole"].(map[string]any)["Properties"].(map[string]any)
	return r["Policies"].([]any)[0].(map[string]any)["PolicyDocument"].(map[string]any)
}

// change adds POST /users/{name}, changes the CORS preflight of /cors and
// grants s3:GetObject and s3:PutObject.
func change(tpl map[string]any) {
	p := apiPaths(tpl)
	p["/users/{name}"] = map[string]any{"post": p["/"].(map[string]any)["get"]}
	opt := p["/cors"].(map[string]any)["options"].(map[string]any)["x-amazon-apigateway-integration"].(map[string]any)
	params := opt["responses"].(map[string]any)["default"].(map[string]any)["responseParameters"].(map[string]any)
	params["method.response.header.Access-Control-Allow-Origin"] = "'https://example.com'"
	pol := rolePolicy(tpl)
	pol["Statement"] = append(pol["Statement"].([]any), map[string]any{
		"Sid": "S3", "Effect": "Allow", "Action": []any{"s3:GetObject", "s3:PutObject"}, "Resource": "*",
	})
}

var urlLine = regexp.MustCompile(`(?m)^Rest API URL: (https://[a-z0-9]{10}\.execute-api\.us-east-1\.amazonaws\.com/dev/)$`)

func TestDeployLifecycle(t *testing.T) {
	l := newLifecycle(t)

	// Nothing deployed yet.
	l.expect([]string{"url"}, 2, "stage dev is not deployed: no stack hello-dev in us-east-1")
	out := l.expect([]string{"diff"}, 0, "Stack hello-dev (not deployed: everything is added)", "+ AWS::Lambda::Function Function", "+ GET /cors", "function api: + logs:CreateLogGroup",
		"\nDeploy would create stack hello-dev.\n")
	_ = out

	// First deploy.
	out = l.expect([]string{"deploy"}, 0, "Initiating first time deployment...", "creating stack FrameworkAssets with the S3 bucket framework-assets-123456789012-us-east-1")
	m := urlLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("deploy printed no base URL ending in /dev/:\n%s", out)
	}
	url := m[1]
	want, _ := l.policy.Marshal()
	if got, err := os.ReadFile(filepath.Join(l.project, ".framework", "policy.json")); err != nil || !bytes.Equal(got, want) {
		t.Errorf(".framework/policy.json = %q, %v; want the synthesized policy", got, err)
	}
	if strings.TrimSpace(l.expect([]string{"url"}, 0)) != url {
		t.Error("url does not print the deployed base URL")
	}

	// Same app again: no changes, same URL.
	out = l.expect([]string{"deploy"}, 0, "No changes: stack hello-dev is up to date.", "Rest API URL: "+url)
	if strings.Contains(out, "Initiating") {
		t.Error("a second deploy announced a first time deployment")
	}

	// A route, CORS and policy change: diff shows it.
	l.mutate = change
	l.expect([]string{"diff"}, 0,
		"~ AWS::ApiGateway::RestApi RestApi (updated in place)",
		"+ POST /users/{name}",
		"~ GET /cors: cors changed",
		"Permissions\n  function api: + s3:GetObject, s3:PutObject on *",
		"+ Policies[0].PolicyDocument.Statement[1]: {\"Action\":[\"s3:GetObject\",\"s3:PutObject\"],\"Effect\":\"Allow\",\"Resource\":\"*\",\"Sid\":\"S3\"}",
		"~ Body.paths (OpenAPI routes: see Routes)",
		"0 to add, 2 to modify (0 replaced), 0 to remove.",
		"\nDeploy would update stack hello-dev.\n")
	l.expect([]string{"diff", "--fail"}, 1, "differs from the deployed one")
	jsonOut := l.expect([]string{"diff", "--json"}, 0)
	var rep struct {
		Action   string `json:"action"`
		Deployed bool   `json:"deployed"`
		Routes   []struct{ Action, Method, Path string }
		IAM      []struct{ Action string }
	}
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil || !rep.Deployed || len(rep.Routes) != 2 || len(rep.IAM) != 1 || rep.Action != "update" {
		t.Errorf("diff --json = %+v, %v", rep, err)
	}

	// The policy grows: without a terminal and without --yes, deploy refuses.
	before := l.aws.CFN.Template("hello-dev")
	l.expect([]string{"deploy"}, 1, "Updating IAM policy.", "  + s3:GetObject", "  + s3:PutObject", "stdin is not a terminal", "pass --yes")
	if l.aws.CFN.Template("hello-dev") != before {
		t.Fatal("a refused policy change was deployed")
	}
	// On a terminal the answer decides.
	l.terminal, l.input = true, "n\n"
	l.expect([]string{"deploy"}, 1, "Would you like to continue?  [Y/n]: ", "declined")
	l.input = "\n"
	l.expect([]string{"deploy"}, 0, "Would you like to continue?  [Y/n]: ", "Rest API URL: "+url)
	if !strings.Contains(l.aws.CFN.Template("hello-dev"), "/users/{name}") {
		t.Error("the confirmed deploy did not update the stack")
	}
	l.expect([]string{"diff", "--fail"}, 0, "No differences", "Deploy would find stack hello-dev up to date.")

	// Destroy: refused without a terminal, asked on one.
	l.terminal = false
	l.expect([]string{"destroy"}, 1, "refusing to delete stack hello-dev without confirmation")
	l.terminal, l.input = true, "y\n"
	l.expect([]string{"delete"}, 0, "Delete stack hello-dev (the REST API, functions, role and resources of stage dev) in us-east-1? [y/N]: ", "Deleted stage dev (stack hello-dev).")
	l.expect([]string{"url"}, 2, "stage dev is not deployed")
	l.expect([]string{"destroy", "--yes"}, 0, "Stage dev is not deployed: there is no stack hello-dev in us-east-1. Nothing to delete.")
}

func TestDeployFailureExitsNonZero(t *testing.T) {
	l := newLifecycle(t)
	l.aws.CFN.FailResource("FunctionRole", "Resource handler returned message: \"User is not authorized to perform: iam:CreateRole\"")
	_, stdout, stderr := l.run("deploy")
	if !strings.Contains(stdout, "FunctionRole (AWS::IAM::Role) CREATE_FAILED: Resource handler returned message: \"User is not authorized to perform: iam:CreateRole\"") ||
		!strings.Contains(stdout, "Rolled back: stack hello-dev is ROLLBACK_COMPLETE") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "deploying stack hello-dev failed (ROLLBACK_COMPLETE)") {
		t.Errorf("stderr %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(l.project, ".framework", "policy.json")); err != nil {
		t.Errorf("policy.json not written for the attempted deploy: %v", err)
	}
	l.expect([]string{"url"}, 2, "stage dev has no deployed API: stack hello-dev is ROLLBACK_COMPLETE and has no EndpointURL output")
	l.expect([]string{"diff"}, 0, "Stack hello-dev (not deployed: everything is added)",
		"Deploy would delete stack hello-dev (ROLLBACK_COMPLETE: its first deployment failed and left no resources) and create it again.")
	l.expect([]string{"deploy"}, 0, "is ROLLBACK_COMPLETE: its first deployment failed and left no resources. Deleting it to create it again.", "Initiating first time deployment...", "Rest API URL: ")
}

func TestDeployRefusesInProgressStack(t *testing.T) {
	l := newLifecycle(t)
	l.aws.CFN.SetStatus("hello-dev", "UPDATE_IN_PROGRESS")
	l.expect([]string{"deploy"}, 1, "stack hello-dev is UPDATE_IN_PROGRESS")
	l.expect([]string{"diff"}, 0, "Deploy would stop: stack hello-dev is UPDATE_IN_PROGRESS: another operation is running on it")
	l.expect([]string{"destroy", "--yes"}, 1, "stack hello-dev is UPDATE_IN_PROGRESS")
	l.aws.CFN.SetStatus("hello-dev", "UPDATE_ROLLBACK_FAILED")
	l.expect([]string{"deploy"}, 1, "continue-update-rollback --stack-name hello-dev")
}

func TestAWSConfigErrors(t *testing.T) {
	l := newLifecycle(t)
	t.Setenv("AWS_REGION", "")
	l.expect([]string{"url"}, 1, "no AWS region: set AWS_REGION, pass --region")
	l.expect([]string{"deploy", "--region", "eu-west-1", "--profile", "missing"}, 1, `profile "missing"`)
	if l.synths != 0 {
		t.Error("deploy synthesized before checking the AWS configuration")
	}
}

func TestDeployNoAutogenPolicyLeavesPolicyFile(t *testing.T) {
	l := newLifecycle(t)
	path := filepath.Join(l.project, ".framework", "policy.json")
	hand := []byte("{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": []\n}\n")
	if err := os.WriteFile(path, hand, 0o644); err != nil {
		t.Fatal(err)
	}
	l.expect([]string{"deploy", "--no-autogen-policy"}, 0, "Rest API URL: ")
	if got, _ := os.ReadFile(path); !bytes.Equal(got, hand) {
		t.Errorf("--no-autogen-policy rewrote the hand-written policy.json:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(l.project, ".framework"))
	if len(entries) != 2 {
		t.Errorf(".framework holds %d entries, want config.json and policy.json only", len(entries))
	}
}

func TestPollIntervalMustBeADuration(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	if err := config.Default("hello").Write(project); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"url", "destroy", "diff", "deploy"} {
		var stderr bytes.Buffer
		code := MainEnv([]string{"-C", project, cmd}, &Env{Stderr: &stderr, Getenv: environ(map[string]string{names.EnvPollInterval: "fast"})})
		if code != 1 || !strings.Contains(stderr.String(), `FRAMEWORK_POLL_INTERVAL="fast": want a positive duration such as 5s`) {
			t.Errorf("%s with FRAMEWORK_POLL_INTERVAL=fast: exit %d, stderr %q", cmd, code, stderr.String())
		}
	}
}

func TestAskRepeatsUntilYesOrNo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		input, wantOut string
		def, want      bool
		wantErr        bool
	}{
		{input: "\n", def: true, want: true, wantOut: "Continue? "},
		{input: "\n", def: false, want: false, wantOut: "Continue? "},
		{input: "yes\n", want: true, wantOut: "Continue? "},
		{input: "maybe\nN\n", def: true, want: false, wantOut: "Continue? Please answer y or n.\nContinue? "},
		{input: "y", want: true, wantOut: "Continue? "},
		{input: "", wantErr: true, wantOut: "Continue? "},
	} {
		var out bytes.Buffer
		got, err := ask(context.Background(), &Env{Stdin: strings.NewReader(tc.input), Stdout: &out}, "Continue? ", tc.def)
		if got != tc.want || (err != nil) != tc.wantErr || out.String() != tc.wantOut {
			t.Errorf("ask with input %q, default %v = %v, %v, printing %q; want %v (error %v), printing %q", tc.input, tc.def, got, err, out.String(), tc.want, tc.wantErr, tc.wantOut)
		}
	}
}

// lambdaFunction stands for the Lambda API of the one function a deploy of
// the fixture creates: it reports the code the function runs and takes
// UpdateFunctionCode, answering that the update is done.
type lambdaFunction struct {
	mu      sync.Mutex
	code    string   // CodeSha256
	updates []string // S3 keys of UpdateFunctionCode
}

func (l *lambdaFunction) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configuration"):
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/code"):
		var in struct{ S3Key string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		l.updates = append(l.updates, in.S3Key)
		l.code = "updated from " + in.S3Key
	default:
		http.Error(w, `{"message":"not a call of a hotswap"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"CodeSha256": l.code, "State": "Active", "LastUpdateStatus": "Successful"})
}

// TestDeployThenHotswap: a plain deploy leaves the record of the code it
// deployed, so that the next `deploy --hotswap` of a code change updates
// the function through the Lambda API, with no change set.
func TestDeployThenHotswap(t *testing.T) {
	l := newLifecycle(t)
	sum := sha256.Sum256(deploytest.Package())
	fn := &lambdaFunction{code: base64.StdEncoding.EncodeToString(sum[:])}
	srv := httptest.NewServer(fn)
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_LAMBDA", srv.URL)

	l.expect([]string{"deploy"}, 0, "Initiating first time deployment...")
	changeSets := l.aws.CFN.Calls("CreateChangeSet")
	l.rebuild = "#!/bin/sh\necho edited\n"
	out := l.expect([]string{"deploy", "--hotswap"}, 0, "Hotswapped 1 function of stack hello-dev")
	if strings.Contains(out, "Deploying fully") {
		t.Errorf("the hotswap after a plain deploy deployed fully:\n%s", out)
	}
	if n := l.aws.CFN.Calls("CreateChangeSet") - changeSets; n != 0 {
		t.Errorf("the hotswap created %d change sets", n)
	}
	if len(fn.updates) != 1 {
		t.Errorf("UpdateFunctionCode calls %q, want one", fn.updates)
	}
	// With --json the result says so and names the function (--force: the
	// stand-in reports code of its own making, which deploy takes for
	// someone else's).
	l.rebuild = "#!/bin/sh\necho edited again\n"
	_, stdout, _ := l.run("deploy", "--hotswap", "--force", "--json")
	var d deployResult
	jsonLine(t, "deploy --hotswap --json", stdout, &d)
	if d.Action != "hotswapped" || len(d.Hotswapped) != 1 || d.URL == "" {
		t.Errorf("deploy --hotswap --json = %+v, want one function hotswapped", d)
	}
}

// TestDeployAsksForEveryPermissionChange: deploy asks before any change
// of what the role may do, not only before new or removed action names: a
// grant moved to another queue (the same actions on another resource) or
// a managed policy attached.
func TestDeployAsksForEveryPermissionChange(t *testing.T) {
	l := newLifecycle(t)
	grant := func(queue string) func(tpl map[string]any) {
		return func(tpl map[string]any) {
			pol := rolePolicy(tpl)
			pol["Statement"] = append(pol["Statement"].([]any), map[string]any{
				"Effect": "Allow", "Action": []any{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"},
				"Resource": "arn:aws:sqs:us-east-1:123456789012:" + queue,
			})
		}
	}
	l.mutate = grant("orders")
	l.expect([]string{"deploy"}, 0, "Initiating first time deployment...")

	l.mutate = grant("orders-v2")
	before := l.aws.CFN.Template("hello-dev")
	l.expect([]string{"deploy"}, 1, "Updating IAM policy.",
		"function api: - sqs:DeleteMessage, sqs:GetQueueAttributes, sqs:ReceiveMessage on arn:aws:sqs:us-east-1:123456789012:orders\n",
		"function api: + sqs:DeleteMessage, sqs:GetQueueAttributes, sqs:ReceiveMessage on arn:aws:sqs:us-east-1:123456789012:orders-v2\n",
		"stdin is not a terminal", "pass --yes")
	if l.aws.CFN.Template("hello-dev") != before {
		t.Fatal("a permission change was deployed without confirmation")
	}
	l.expect([]string{"deploy", "--yes"}, 0, "Updating IAM policy.")

	l.mutate = func(tpl map[string]any) {
		grant("orders-v2")(tpl)
		role := tpl["Resources"].(map[string]any)["FunctionRole"].(map[string]any)["Properties"].(map[string]any)
		role["ManagedPolicyArns"] = []any{"arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess"}
	}
	l.expect([]string{"deploy"}, 1, "+ managed policy arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess (FunctionRole)", "stdin is not a terminal")
}

// jsonLine decodes stdout, which must be exactly one line of JSON, into v.
func jsonLine(t *testing.T, what, stdout string, v any) {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("%s: stdout is not one line of JSON:\n%s", what, stdout)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, stdout)
	}
}

// TestDeployDestroyURLJSON: a script runs deploy, url and destroy with
// --json and reads one JSON object from stdout each time, with progress and
// questions on stderr.
func TestDeployDestroyURLJSON(t *testing.T) {
	l := newLifecycle(t)
	var d deployResult
	code, stdout, stderr := l.run("deploy", "--json")
	if code != 0 || !strings.Contains(stderr, "Initiating first time deployment") {
		t.Fatalf("deploy --json: exit %d, progress not on stderr:\n%s", code, stderr)
	}
	jsonLine(t, "deploy --json", stdout, &d)
	if d.Action != "created" || d.Stage != "dev" || d.Stack != "hello-dev" || d.Region != "us-east-1" || !strings.HasPrefix(d.URL, "https://") || d.Outputs[names.OutputEndpointURL] != d.URL {
		t.Errorf("first deploy --json = %+v", d)
	}
	_, stdout, _ = l.run("deploy", "--json")
	jsonLine(t, "second deploy --json", stdout, &d)
	if d.Action != "unchanged" {
		t.Errorf("deploy --json with nothing changed: action %q, want unchanged", d.Action)
	}
	var u struct{ Stage, Stack, Region, URL string }
	_, stdout, _ = l.run("url", "--json")
	jsonLine(t, "url --json", stdout, &u)
	if u.URL != d.URL || u.Stack != "hello-dev" || u.Stage != "dev" || u.Region != "us-east-1" {
		t.Errorf("url --json = %+v, want the deployed URL %s", u, d.URL)
	}

	// A refused deploy prints nothing on stdout: the script sees no result.
	l.mutate = change
	code, stdout, stderr = l.run("deploy", "--json")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "Updating IAM policy.") || !strings.Contains(stderr, "pass --yes") {
		t.Errorf("deploy --json of a policy change without --yes: exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	_, stdout, _ = l.run("deploy", "--json", "--yes")
	jsonLine(t, "deploy --json --yes", stdout, &d)
	if d.Action != "updated" {
		t.Errorf("deploy --json of a change: action %q, want updated", d.Action)
	}

	// destroy: the question on stderr, the answer in the result.
	var r destroyResult
	l.terminal, l.input = true, "n\n"
	code, stdout, stderr = l.run("destroy", "--json")
	jsonLine(t, "destroy --json answered no", stdout, &r)
	if code != 0 || r.Result != "declined" || !strings.Contains(stderr, "Delete stack hello-dev") {
		t.Errorf("destroy --json answered no: exit %d, %+v, stderr:\n%s", code, r, stderr)
	}
	l.terminal = false
	_, stdout, _ = l.run("destroy", "--json", "--yes")
	jsonLine(t, "destroy --json --yes", stdout, &r)
	if r.Result != "deleted" || r.Stack != "hello-dev" {
		t.Errorf("destroy --json --yes = %+v, want deleted", r)
	}
	_, stdout, _ = l.run("destroy", "--json", "--yes")
	jsonLine(t, "destroy --json of nothing", stdout, &r)
	if r.Result != "not_deployed" {
		t.Errorf("destroy --json with no stack = %+v, want not_deployed", r)
	}
	// url of a stage not deployed: no JSON, exit 2 and the reason on stderr.
	code, stdout, stderr = l.run("url", "--json")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "not deployed") {
		t.Errorf("url --json of no stage: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A first deploy of a stage .framework/config.json does not declare: one
// slip from a declared stage is refused as a typo, changing nothing (diff
// says the deploy would stop); any other name is deployed with the
// top-level settings, saying so once, on the deploy that creates it.
func TestFirstDeployOfUndeclaredStage(t *testing.T) {
	l := newLifecycle(t)
	cfg := filepath.Join(l.project, ".framework", "config.json")
	writeConfig := func(stages string) {
		if err := os.WriteFile(cfg, []byte(`{"version": "1.0", "app_name": "hello", "stages": `+stages+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(`{"dev1": {}, "prod": {}}`)
	typo := `stage "dev" is not declared in ` + cfg + ` (it declares dev1, prod): did you mean "dev1"? To create a new stage "dev", declare it there ("stages": {"dev": {}}) and deploy again`
	// Refused before the build and synthesis, which the typo wasted.
	l.expect([]string{"diff"}, 1, typo)
	l.expect([]string{"deploy", "--yes"}, 1, typo)
	l.expect([]string{"deploy", "--hotswap"}, 1, typo)
	l.expect([]string{"synth"}, 1, typo)
	if l.synths != 0 {
		t.Errorf("the typo was found after %d builds and syntheses, want before any", l.synths)
	}
	if n := l.aws.CFN.Calls("CreateChangeSet"); n != 0 || l.aws.CFN.Status("hello-dev") != "" {
		t.Fatalf("the refused deploy created %d change sets; stack %q", n, l.aws.CFN.Status("hello-dev"))
	}

	writeConfig(`{"prod": {}}`)
	note := "Stage dev is not declared in " + cfg + " (it declares prod): it is created with the top-level settings; declare it under \"stages\" to give it settings of its own."
	out := l.expect([]string{"deploy", "--yes"}, 0, note, "Initiating first time deployment...")
	if strings.Index(out, note) > strings.Index(out, "Initiating") {
		t.Errorf("the note comes after the deploy began:\n%s", out)
	}
	if l.aws.CFN.Status("hello-dev") != "CREATE_COMPLETE" {
		t.Errorf("stack %s", l.aws.CFN.Status("hello-dev"))
	}
	l.mutate = change
	if out := l.expect([]string{"deploy", "--yes"}, 0); strings.Contains(out, "not declared") {
		t.Errorf("the update of a deployed undeclared stage repeats the note:\n%s", out)
	}
	// A deployed stage one slip from a declared one is no typo: it updates.
	writeConfig(`{"dev1": {}, "prod": {}}`)
	l.mutate = nil
	l.expect([]string{"deploy", "--yes"}, 0)
}

// Ctrl-C at a question ends it at once, unanswered, where it waited for a
// line until a second Ctrl-C killed the command without a word: deploy's
// question about permissions exits 130 saying nothing was changed, and
// changes nothing; so does destroy's.
func TestCtrlCAtAQuestion(t *testing.T) {
	l := newLifecycle(t)
	l.expect([]string{"deploy"}, 0, "Initiating first time deployment...")
	run := func(args ...string) (int, string, string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stdin, w := io.Pipe() // a terminal nobody types on
		defer w.Close()
		var stdout, stderr bytes.Buffer
		env := &Env{
			Stdin: stdin, Stdout: &notifyWriter{w: &stdout, seen: "]: ", do: cancel}, Stderr: &stderr,
			StdinIsTerminal: func() bool { return true },
			Getenv:          environ(map[string]string{names.EnvPollInterval: "1ms", names.EnvCacheDir: l.cache}),
			Synth:           l.synth,
			Signals:         func() (context.Context, context.CancelFunc) { return ctx, cancel },
		}
		done := make(chan int)
		go func() { done <- MainEnv(append([]string{"-C", l.project}, args...), env) }()
		select {
		case code := <-done:
			t.Logf("$ framework %s  (exit %d)\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
			return code, stdout.String(), stderr.String()
		case <-time.After(time.Minute):
			t.Fatalf("framework %s still waits for an answer a minute after Ctrl-C:\n%s", strings.Join(args, " "), stdout.String())
			return 0, "", ""
		}
	}
	before := l.aws.CFN.Template("hello-dev")
	l.mutate = change // grants s3 actions: deploy asks
	for _, cmd := range []string{"deploy", "destroy"} {
		code, stdout, stderr := run(cmd)
		if code != 130 || !strings.Contains(stdout, "]: \n") || stderr != "Error: interrupted: the question was not answered: nothing was changed\n" {
			t.Errorf("%s interrupted at its question: exit %d\nstdout %q\nstderr %q", cmd, code, stdout, stderr)
		}
		if l.aws.CFN.Status("hello-dev") != "CREATE_COMPLETE" || l.aws.CFN.Template("hello-dev") != before {
			t.Errorf("the interrupted %s changed the stack: %s", cmd, l.aws.CFN.Status("hello-dev"))
		}
	}
}

// notifyWriter writes to w and calls do once what was written holds seen.
type notifyWriter struct {
	w    io.Writer
	seen string
	do   func()
	once sync.Once
}

func (n *notifyWriter) Write(b []byte) (int, error) {
	k, err := n.w.Write(b)
	if strings.Contains(string(b), n.seen) {
		n.once.Do(n.do)
	}
	return k, err
}

// url, invoke and logs on a stage that is not deployed say to deploy it,
// except when .framework/config.json does not declare it and it is one
// slip from a declared stage: then they name the stage likely meant rather
// than suggest deploying the typo.
func TestNotDeployedStageLikelyTypo(t *testing.T) {
	l := newLifecycle(t) // declares dev
	cfg := filepath.Join(l.project, ".framework", "config.json")
	for _, args := range [][]string{{"url"}, {"invoke", "api"}, {"logs"}} {
		l.expect(append(slices.Clone(args), "--stage", "dve"), 2, "stage dve is not deployed: no stack hello-dve in us-east-1; "+cfg+" does not declare stage dve either: did you mean --stage dev?")
		if _, _, stderr := l.run(append(slices.Clone(args), "--stage", "qa")...); !strings.Contains(stderr, "stage qa is not deployed: no stack hello-qa in us-east-1; run `framework deploy --stage qa`\n") {
			t.Errorf("%s --stage qa: %q", args[0], stderr)
		}
	}
}

// Ctrl-C while deploy builds and synthesizes: exit 130 saying nothing was
// deployed, not the build's "context canceled".
func TestDeployInterruptedWhileSynthesizing(t *testing.T) {
	l := newLifecycle(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv:  environ(map[string]string{names.EnvPollInterval: "1ms", names.EnvCacheDir: l.cache}),
		Signals: func() (context.Context, context.CancelFunc) { return ctx, cancel },
		Synth: func(ctx context.Context, o synth.Options) (*synth.Result, error) {
			cancel() // Ctrl-C during the host build
			return nil, fmt.Errorf("build of %s for host: %w", o.ProjectDir, ctx.Err())
		},
	}
	for cmd, want := range map[string]string{
		"deploy": "Error: interrupted while building and synthesizing the app: nothing was deployed\n",
		"diff":   "Error: interrupted while building and synthesizing the app: nothing was compared\n",
		"synth":  "Error: interrupted while building and synthesizing the app: no stack was synthesized\n",
	} {
		stderr.Reset()
		ctx, cancel = context.WithCancel(context.Background())
		code := MainEnv([]string{"-C", l.project, cmd}, env)
		cancel()
		if code != 130 || stderr.String() != want {
			t.Errorf("%s: exit %d, stderr %q; want 130, %q", cmd, code, stderr.String(), want)
		}
	}
}

// diff and deploy say what they wait for while CloudFormation works out a
// change set (seconds to tens of seconds on AWS), where they were silent;
// diff --json keeps stdout for the report alone.
func TestChangeSetWaitIsShown(t *testing.T) {
	l := newLifecycle(t)
	wait := "Waiting for CloudFormation to work out the changes to stack hello-dev (a change set)...\n"
	l.expect([]string{"deploy"}, 0, wait, "Initiating first time deployment...")
	l.mutate = change
	out := l.expect([]string{"diff"}, 0, wait)
	if strings.Index(out, wait) > strings.Index(out, "Resources\n") {
		t.Errorf("the wait is printed after the report:\n%s", out)
	}
	_, stdout, _ := l.run("diff", "--json")
	var report map[string]any
	if err := json.Unmarshal([]byte(stdout), &report); err != nil {
		t.Errorf("diff --json stdout is not the JSON report alone: %v\n%s", err, stdout)
	}
}

// deploy --wait waits for an operation running on the stack, then
// deploys; without it, deploy refuses and names --wait.
func TestDeployWaitsForARunningOperation(t *testing.T) {
	l := newLifecycle(t)
	l.expect([]string{"deploy"}, 0)
	l.mutate = change
	l.aws.CFN.SetStatus("hello-dev", "UPDATE_IN_PROGRESS")
	l.expect([]string{"deploy", "--yes"}, 1, "another operation is running on it", "deploy with --wait")
	go func() {
		for l.aws.CFN.Calls("DescribeStacks") < 20 {
			time.Sleep(time.Millisecond)
		}
		l.aws.CFN.SetStatus("hello-dev", "UPDATE_COMPLETE")
	}()
	l.expect([]string{"deploy", "--yes", "--wait"}, 0,
		"Stack hello-dev is UPDATE_IN_PROGRESS: another operation is running on it; waiting for it to finish...", "Updating stack hello-dev")
}

// TestInterruptedWhileBuilding: Ctrl-C in a command that builds the app
// says what it interrupted and exits 130, where it printed the build's
// bare "context canceled"; Ctrl-C while synth starts Node.js is not a
// Node.js that "does not run" with advice to install one.
func TestInterruptedWhileBuilding(t *testing.T) {
	l := newLifecycle(t)
	canceled := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // Ctrl-C as the command starts
		return ctx, cancel
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"openapi"}, "Error: interrupted while building the app: no document was written\n"},
		{[]string{"invoke", "api", "--local"}, "Error: interrupted while building the app and running the handler locally: it was stopped\n"},
		{[]string{"secret", "set", "key"}, "Error: interrupted while building the app: no value was stored\n"},
		{[]string{"gen-policy"}, "Error: interrupted while scanning the app: no policy was printed\n"},
		{[]string{"synth"}, "Error: interrupted while building and synthesizing the app: no stack was synthesized\n"},
		// It exited 0 without a word, as a server stopped after serving.
		{[]string{"local", "--port", "0", "--no-autoreload"}, "Error: interrupted while building the app: nothing was served\n"},
	} {
		var stdout, stderr bytes.Buffer
		env := &Env{
			Stdin: strings.NewReader("value\n"), Stdout: &stdout, Stderr: &stderr,
			Getenv:  environ(map[string]string{names.EnvCacheDir: l.cache}),
			Signals: canceled,
			Synth: func(ctx context.Context, o synth.Options) (*synth.Result, error) {
				// What an interrupted Node.js start made of it.
				return nil, &synth.NodeError{Path: "/usr/bin/node", Err: errors.New("signal: interrupt")}
			},
		}
		code := MainEnv(append([]string{"-C", l.project}, tc.args...), env)
		// The building line (on stderr for commands whose stdout is their
		// result) may come first; the error is the last line, alone.
		got := stderr.String()
		if i := strings.Index(got, "Error: "); i > 0 && strings.HasPrefix(got, "Building the app") {
			got = got[i:]
		}
		if code != 130 || got != tc.want {
			t.Errorf("%s: exit %d, stderr %q; want 130, %q", strings.Join(tc.args, " "), code, stderr.String(), tc.want)
		}
	}
}
