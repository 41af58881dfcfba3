package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

// motoEnv is the CLI's test environment pointed at moto.
func motoEnv(t *testing.T, m *mototest.Server) []string {
	var extra []string
	for k, v := range m.Environ(t.TempDir()) {
		extra = append(extra, k+"="+v)
	}
	return testEnv(t, extra...)
}

// waitDelivery returns the next delivery event to handler fn.
func (s *localServer) waitDelivery(t *testing.T, fn string, within time.Duration) map[string]any {
	t.Helper()
	if s.taken == nil {
		s.taken = map[int]bool{}
	}
	// Deliveries to several handlers end in any order: one another
	// wait skipped over is still there to be taken, once.
	for i, ev := range s.seen {
		if ev["event"] == "delivery" && ev["function"] == fn && !s.taken[i] {
			s.taken[i] = true
			return ev
		}
	}
	deadline := time.Now().Add(within)
	for {
		ev := s.waitEvent(t, "delivery", time.Until(deadline))
		if ev["function"] == fn {
			s.taken[len(s.seen)-1] = true
			return ev
		}
	}
}

// examples/todo against moto with `framework local --aws-endpoint`: its
// resources are created, `secret set` gives the API key the app reads, a
// POST writes to the table and a GET reads it back (and, by owner, from
// the table's global index), a message sent to the
// queue with the AWS SDK reaches the queue handler, whose failed item alone
// stays on the queue, what it publishes on the topic reaches the topic
// handler and what it sends to the FIFO queue the history handler, the
// item's changes reach the stream handler and an object put
// in the bucket the bucket's handler.
func TestLocalWithEmulatedResources(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "todo")
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")
	// Before serving, it says which resource of the emulator each
	// declaration is.
	if ev := s.seenEvent("resources"); ev == nil || ev["where"] != moto.URL || fmt.Sprint(ev["resources"]) != "map[apiKey:todo-dev-apikey events:todo-dev-events files:todo-dev-files history:todo-dev-history.fifo jobs:todo-dev-jobs todos:todo-dev-todos]" {
		t.Errorf("resources event %v, want the six resources created at %s", ev, moto.URL)
	}

	post := func(key string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", s.URL+"/todos", strings.NewReader(`{"title":"milk"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &body)
		t.Logf("POST /todos (key %q): %d %s", key, resp.StatusCode, b)
		return resp.StatusCode, body
	}
	if code, _ := post("k3y"); code != 500 {
		t.Errorf("POST before the secret is set: %d, want 500 (no value yet)", code)
	}

	cmd := exec.Command(frameworkCLI(t), "secret", "set", "apiKey", "--aws-endpoint", moto.URL, "--json")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader("k3y\n")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("secret set: %v\n%s%s", err, out.String(), errOut.String())
	}
	var set map[string]any
	if err := json.Unmarshal(out.Bytes(), &set); err != nil || set["physical_name"] != "todo-dev-apikey" || set["kind"] != "secret" {
		t.Errorf("secret set --json: %s (%v)", out.String(), err)
	}
	if strings.Contains(out.String()+errOut.String(), "k3y") {
		t.Errorf("secret set echoed the value:\n%s%s", out.String(), errOut.String())
	}

	if code, _ := post("wrong"); code != 401 {
		t.Errorf("POST with a wrong key: %d, want 401", code)
	}
	code, item := post("k3y")
	if code != 201 {
		t.Fatalf("POST with the key: %d, want 201", code)
	}
	id, _ := item["id"].(string)
	resp, err := http.Get(s.URL + "/todos/" + id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"title":"milk"`) {
		t.Fatalf("GET the item back: %d %s", resp.StatusCode, b)
	}
	// An item with an owner is found through the table's global index:
	// the route's Query on the index reaches moto (the local IAM check
	// allows it: the route may read the table, so its indexes).
	req, _ := http.NewRequest("POST", s.URL+"/todos", strings.NewReader(`{"title":"tea","owner":"ann"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "k3y")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("POST an item with an owner: %v %v", resp, err)
	}
	if resp, err = http.Get(s.URL + "/owners/ann/todos"); err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"title":"tea","done":false,"owner":"ann"`) || strings.Contains(string(b), "milk") {
		t.Errorf("GET /owners/ann/todos (a Query on the index byOwner): %d %s, want ann's item only", resp.StatusCode, b)
	}

	ctx := context.Background()
	q := sqs.NewFromConfig(moto.Config())
	url := moto.URL + "/123456789012/todo-dev-jobs"
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(id)}); err != nil {
		t.Fatal(err)
	}
	ev := s.waitDelivery(t, "done", 60*time.Second)
	if ev["ok"] != true || ev["failed"] != 0.0 || ev["messages"] != 1.0 {
		t.Errorf("delivery of an existing item's id: %v", ev)
	}
	if ev := s.waitDelivery(t, "notify", 60*time.Second); ev["kind"] != "sns" || ev["source"] != "events" || ev["ok"] != true {
		t.Errorf("the topic's notification: %v", ev)
	}
	// The item's history, through its FIFO queue (before or after the
	// topic's notification).
	hist := s.seenDelivery("history")
	if hist == nil {
		hist = s.waitDelivery(t, "history", 10*time.Second)
	}
	if hist["kind"] != "sqs" || hist["source"] != "history" || hist["ok"] != true || hist["messages"] != 1.0 {
		t.Errorf("the history queue's delivery: %v", hist)
	}
	resp, err = http.Get(s.URL + "/todos/" + id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"done":true`) {
		t.Errorf("the item after the queue handler: %s, want done", b)
	}

	sent, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("no-such-item")})
	if err != nil {
		t.Fatal(err)
	}
	ev = s.waitDelivery(t, "done", 60*time.Second)
	if ids, _ := ev["failed_ids"].([]any); len(ids) != 1 || ids[0] != aws.ToString(sent.MessageId) {
		t.Errorf("delivery of an unknown id: %v, want message %s reported failed", ev, aws.ToString(sent.MessageId))
	}
	attrs, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []sqstypes.QueueAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if v, nv := attrs.Attributes["ApproximateNumberOfMessages"], attrs.Attributes["ApproximateNumberOfMessagesNotVisible"]; v != "0" || nv != "1" {
		t.Errorf("the queue holds %s visible and %s in flight, want only the failed message (0 and 1)", v, nv)
	}

	// The item's changes reached the table's stream handler, and an object
	// put under attachments/ reaches the bucket's handler.
	audit := s.seenDelivery("audit")
	if audit == nil {
		audit = s.waitDelivery(t, "audit", 10*time.Second)
	}
	if audit["kind"] != "dynamodb" || audit["source"] != "todos" || audit["ok"] != true {
		t.Errorf("the stream's delivery: %v", audit)
	}
	files := s3.NewFromConfig(moto.Config(), func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := files.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("todo-dev-files"), Key: aws.String("attachments/note.txt"), Body: strings.NewReader("hello")}); err != nil {
		t.Fatal(err)
	}
	if ev := s.waitDelivery(t, "attachments", 10*time.Second); ev["kind"] != "s3" || ev["source"] != "files" || ev["ok"] != true || ev["messages"] != 1.0 {
		t.Errorf("the bucket's delivery: %v", ev)
	}
	// The handler's log line reaches stderr through its own pipe, after
	// or before the delivery event: wait for it.
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if out, ok := s.stderr.Wait(wctx, func(w string) bool { return strings.Contains(w, "(5 bytes) in todo-dev-files") }); !ok {
		t.Errorf("the bucket's handler did not log the object:\n%s", out)
	}
	s.stop(t)
}

// framework local serves once the event handlers' triggers are set up: an
// object put as soon as it serves reaches the bucket's handler, though the
// emulator is slow to take the bucket's notification configuration (S3
// notifies only the objects written after it). It served before, and the
// object's event was lost.
func TestLocalServesOnceTriggersAreSetUp(t *testing.T) {
	moto := mototest.Start(t)
	target, _ := neturl.Parse(moto.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Query().Has("notification") {
			time.Sleep(3 * time.Second) // a slow emulator, not a synchronisation
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(slow.Close) // after framework local stops: Close waits for its requests
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "todo")
	s := startLocal(t, dir, env, "--aws-endpoint", slow.URL, "--no-schedules")
	files := s3.NewFromConfig(moto.Config(), func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := files.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("todo-dev-files"), Key: aws.String("attachments/first.txt"), Body: strings.NewReader("first")}); err != nil {
		t.Fatal(err)
	}
	if ev := s.waitDelivery(t, "attachments", 30*time.Second); ev["kind"] != "s3" || ev["ok"] != true || ev["messages"] != 1.0 {
		t.Errorf("the bucket's delivery: %v", ev)
	}
	// The example declares what it uses: the local IAM check, on by
	// default, refused none of its calls.
	for _, ev := range s.seen {
		if ev["event"] == "iam_denied" || ev["event"] == "iam_problem" {
			t.Errorf("the IAM check: %v", ev)
		}
	}
	if strings.Contains(s.stderr.String(), "AccessDenied") {
		t.Errorf("a call of the example was refused:\n%s", s.stderr.String())
	}
	s.stop(t)
}

// seenDelivery returns the first delivery event to handler fn that
// waitEvent has received so far, or nil.
func (s *localServer) seenDelivery(fn string) map[string]any {
	for _, ev := range s.seen {
		if ev["event"] == "delivery" && ev["function"] == fn {
			return ev
		}
	}
	return nil
}

// Without an emulator and without a deployed stage, `invoke --local` says
// so in one line naming both ways, and runs the handler anyway; with the
// emulator, the handler reaches the resources.
func TestInvokeLocalResources(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "todo")
	run := cliRunner(t, dir, env)

	out := run(0, "invoke", "done", "--local")
	if !strings.Contains(out, "resources of stage dev could not be read (no stack todo-dev in us-east-1)") || !strings.Contains(out, "framework deploy --stage dev") || !strings.Contains(out, "--aws-endpoint") {
		t.Errorf("invoke --local without resources: want one line naming deploy and --aws-endpoint:\n%s", out)
	}
	if strings.Count(out, "could not be read") != 1 {
		t.Errorf("the line is repeated:\n%s", out)
	}

	out = run(0, "invoke", "done", "--local", "--aws-endpoint", moto.URL)
	if strings.Contains(out, "could not be read") || !strings.Contains(out, "ConditionalCheckFailed") || !strings.Contains(out, "batchItemFailures") {
		t.Errorf("invoke --local --aws-endpoint: want the handler to reach the table (unknown ids fail the condition):\n%s", out)
	}
	out = run(0, "invoke", "done", "--local", "--aws-endpoint", moto.URL, "--json")
	if !strings.Contains(out, `"eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:todo-dev-jobs"`) {
		t.Errorf("invoke --local --aws-endpoint: want the sample event from the emulator's queue:\n%s", out)
	}
}

// `secret set` against a deployed stage finds the secret through the
// stack's outputs; unknown names and undeployed stages are clear errors.
func TestSecretSetDeployedStage(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "todo")

	out, errOut, code := runCLI(t, dir, env, "secret", "set", "apikey2", "--value", "v")
	if code != 1 || !strings.Contains(errOut, `declares no secret or parameter "apikey2"; its secrets and parameters are: apiKey`) {
		t.Errorf("unknown name: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, dir, env, "secret", "set", "apiKey", "--value", "v")
	if code != 2 || !strings.Contains(errOut, "stage dev is not deployed (no stack todo-dev in us-east-1): run `framework deploy --stage dev`") {
		t.Errorf("undeployed stage: exit %d\n%s%s", code, out, errOut)
	}

	cfg := awscall.Config{Region: mototest.Region, Endpoint: moto.URL, Credentials: awscall.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}}
	ctx := context.Background()
	if err := cfg.Call(ctx, "secretsmanager", "CreateSecret", map[string]any{"Name": "ApiKeyA1B2-xyz", "SecretString": "framework:unset"}, nil); err != nil {
		t.Fatal(err)
	}
	moto.CreateStack(t, "todo-dev", `{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}, "Outputs": {"ResApiKeyName": {"Value": "ApiKeyA1B2-xyz"}}}`)
	cmd := exec.Command(frameworkCLI(t), "secret", "set", "apiKey")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader("from-stdin\n")
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), `Set secret "apiKey" of stage dev (ApiKeyA1B2-xyz)`) || strings.Contains(string(b), "from-stdin") {
		t.Fatalf("secret set on the deployed stage: %v\n%s", err, b)
	}
	var got struct{ SecretString string }
	if err := cfg.Call(ctx, "secretsmanager", "GetSecretValue", map[string]any{"SecretId": "ApiKeyA1B2-xyz"}, &got); err != nil || got.SecretString != "from-stdin" {
		t.Errorf("the deployed secret holds %q (%v), want the value from stdin without its newline", got.SecretString, err)
	}
}

// paramApp declares a parameter, a plain function that reads it and one
// that says which credentials the app was given (a key in its environment
// or the CLI's credentials endpoint), and routes that read the parameter
// and the endpoint's URL.
const paramApp = `package main

import (
	"context"
	"os"
	"strings"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("shop")
	flags := resource.NewParameter(app, "flags")
	flags.Allow("read")
	framework.LambdaFunction(app, "read", func(ctx context.Context, _ struct{}) (string, error) {
		return flags.Value(ctx)
	})
	framework.LambdaFunction(app, "creds", func(ctx context.Context, _ struct{}) (string, error) {
		local := strings.HasPrefix(os.Getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI"), "http://127.0.0.1:")
		return "key=[" + os.Getenv("AWS_ACCESS_KEY_ID") + "] endpoint=" + map[bool]string{true: "local", false: "none"}[local], nil
	})
	flags.Allow("flag")
	app.Route("/flag", func(r *framework.Request) (string, error) { return flags.Value(r.Context()) }, framework.Name("flag"))
	app.Route("/uri", func(r *framework.Request) (string, error) { return os.Getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI"), nil })
	app.Run()
}
`

// A declared parameter set with `secret set --aws-endpoint` is what the
// app's Parameter.Value reads under `invoke --local --aws-endpoint`.
func TestSecretSetParameterAtEmulator(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := newProject(t, env, "shop")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(paramApp), 0o644); err != nil {
		t.Fatal(err)
	}
	run := cliRunner(t, dir, env)
	out := run(1, "invoke", "read", "--local", "--aws-endpoint", moto.URL)
	if !strings.Contains(out, "has no value yet") {
		t.Errorf("before secret set: want the handle's error saying the value is not set:\n%s", out)
	}
	out = run(0, "secret", "set", "flags", "--value", "beta=on", "--aws-endpoint", moto.URL)
	if !strings.Contains(out, `Set parameter "flags" of stage dev (shop-dev-flags), version 2.`) {
		t.Errorf("secret set of a parameter:\n%s", out)
	}
	if out = run(0, "invoke", "read", "--local", "--aws-endpoint", moto.URL); !strings.Contains(out, `"beta=on"`) {
		t.Errorf("the app's Parameter.Value after secret set:\n%s", out)
	}
}

// After the emulator restarted, its state gone, a reload of framework local
// creates again the declared resources it lost, and one line says so (the
// app has no handler polling the emulator, which would find it first).
func TestLocalReloadRecreatesWhatTheEmulatorLost(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := newProject(t, env, "shop")
	main := filepath.Join(dir, "main.go")
	if err := os.WriteFile(main, []byte(paramApp), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")
	moto.Kill(t)
	moto.Restart(t)
	edited := strings.Replace(paramApp, `return os.Getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI"), nil`, `return "uri " + os.Getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI"), nil`, 1)
	if err := os.WriteFile(main, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := s.waitEvent(t, "resources_recreated", 3*time.Minute)
	if fmt.Sprint(ev["recreated"]) != "[parameter shop-dev-flags (without its value: set it again with `framework secret set`)]" || ev["endpoint"] != moto.URL {
		t.Errorf("resources_recreated %v: want the parameter named", ev)
	}
	cfg := awscall.Config{Region: mototest.Region, Endpoint: moto.URL, Credentials: awscall.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}}
	if err := cfg.Call(context.Background(), "ssm", "GetParameter", map[string]any{"Name": "shop-dev-flags"}, nil); err != nil {
		t.Errorf("the parameter after the reload: %v", err)
	}
	s.stop(t)
}

// Without --aws-endpoint, `framework local` gives the app the deployed
// stage's resources, from its stack's outputs.
func TestLocalWithDeployedStageResources(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "todo")
	cfg := awscall.Config{Region: mototest.Region, Endpoint: moto.URL, Credentials: awscall.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}}
	ctx := context.Background()
	if err := cfg.Call(ctx, "dynamodb", "CreateTable", map[string]any{"TableName": "Todos-X1", "BillingMode": "PAY_PER_REQUEST",
		"KeySchema": []map[string]string{{"AttributeName": "id", "KeyType": "HASH"}}, "AttributeDefinitions": []map[string]string{{"AttributeName": "id", "AttributeType": "S"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": "Todos-X1", "Item": map[string]any{"id": map[string]string{"S": "a1"}, "title": map[string]string{"S": "deployed"}}}, nil); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{}
	for _, r := range []struct{ name, arn string }{
		{"Todos", "arn:aws:dynamodb:us-east-1:123456789012:table/Todos-X1"}, {"Jobs", "arn:aws:sqs:us-east-1:123456789012:Jobs-X2"},
		{"Events", "arn:aws:sns:us-east-1:123456789012:Events-X3"}, {"Files", "arn:aws:s3:::files-x4"}, {"ApiKey", "arn:aws:secretsmanager:us-east-1:123456789012:secret:ApiKey-X5"},
		{"History", "arn:aws:sqs:us-east-1:123456789012:History-X6.fifo"},
	} {
		outputs["Res"+r.name+"Arn"] = r.arn
		outputs["Res"+r.name+"Name"] = r.arn[strings.LastIndexAny(r.arn, ":/")+1:]
	}
	outputs["ResTodosStreamArn"] = "arn:aws:dynamodb:us-east-1:123456789012:table/Todos-X1/stream/1"
	outputs["ResJobsUrl"] = moto.URL + "/123456789012/Jobs-X2"
	outputs["ResHistoryUrl"] = moto.URL + "/123456789012/History-X6.fifo"
	tmpl, _ := json.Marshal(map[string]any{"Resources": map[string]any{"Q": map[string]string{"Type": "AWS::SQS::Queue"}}, "Outputs": func() map[string]any {
		o := map[string]any{}
		for k, v := range outputs {
			o[k] = map[string]string{"Value": v}
		}
		return o
	}()})
	moto.CreateStack(t, "todo-dev", string(tmpl))

	s := startLocal(t, dir, env, "--no-schedules")
	if ev := s.seenEvent("resources"); ev == nil || ev["where"] != "stage dev's deployed stack" {
		t.Fatalf("resources event %v, want the deployed stack's; events: %v", ev, s.seen)
	}
	resp, err := http.Get(s.URL + "/todos/a1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"title":"deployed"`) {
		t.Errorf("GET an item of the deployed table: %d %s\n%s", resp.StatusCode, b, s.stderr.String())
	}
	s.stop(t)
}

// `invoke --local` on a deployed stage read with a profile whose
// credentials come from a credential_process (as SSO and assume-role
// profiles give temporary ones): the app's Parameter.Value reads the
// deployed parameter through the IAM check, which signs with the
// profile's credentials, the app holding only its function's local key;
// with --no-iam-check, with the credentials the CLI serves it on
// 127.0.0.1, not with static keys in its environment.
func TestInvokeLocalResourcesWithProfileCredentials(t *testing.T) {
	env, dir, _ := profileProject(t)
	run := cliRunner(t, dir, env)
	if out := run(0, "invoke", "read", "--local", "--profile", "dev"); !strings.Contains(out, `"beta=on"`) {
		t.Errorf("invoke read --local --profile dev: want the deployed parameter:\n%s", out)
	}
	if out := run(0, "invoke", "creds", "--local", "--profile", "dev"); !strings.Contains(out, `"key=[FWLOCAL`) || !strings.Contains(out, `endpoint=none"`) {
		t.Errorf("invoke creds --local --profile dev: want the function's local key for the IAM check:\n%s", out)
	}
	if out := run(0, "invoke", "read", "--local", "--profile", "dev", "--no-iam-check"); !strings.Contains(out, `"beta=on"`) {
		t.Errorf("invoke read --local --profile dev --no-iam-check: want the deployed parameter:\n%s", out)
	}
	if out := run(0, "invoke", "creds", "--local", "--profile", "dev", "--no-iam-check"); !strings.Contains(out, `"key=[] endpoint=local"`) {
		t.Errorf("invoke creds --local --profile dev --no-iam-check: want the served credentials, no static key:\n%s", out)
	}
}

// profileProject is a project of paramApp whose stage dev is deployed at
// moto with its parameter set, and the CLI's environment: AWS profile dev,
// its credentials from a credential_process that fails while fail(true)
// is in effect, and no AWS_ACCESS_KEY_ID.
func profileProject(t *testing.T) (env []string, dir string, fail func(bool)) {
	moto := mototest.Start(t)
	tmp := t.TempDir()
	creds, _ := json.Marshal(map[string]any{"Version": 1, "AccessKeyId": "AKIAPROCESS", "SecretAccessKey": "s", "SessionToken": "t",
		"Expiration": time.Now().Add(time.Minute).UTC().Format(time.RFC3339)}) // within the CLI's refresh window: each use runs the process
	if err := os.WriteFile(filepath.Join(tmp, "creds.json"), creds, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(tmp, "creds.sh")
	if err := os.WriteFile(script, []byte(`if [ -f "$0.fail" ]; then exit 1; fi; cat "$0.json"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script+".json", creds, 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(tmp, "config")
	if err := os.WriteFile(config, []byte("[profile dev]\nregion = us-east-1\ncredential_process = /bin/sh "+script+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(motoEnv(t, moto), "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_CONFIG_FILE="+config)
	dir = newProject(t, env, "shop")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(paramApp), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := awscall.Config{Region: mototest.Region, Endpoint: moto.URL, Credentials: awscall.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}}
	if err := cfg.Call(context.Background(), "ssm", "PutParameter", map[string]any{"Name": "/shop/dev/flags", "Value": "beta=on", "Type": "String"}, nil); err != nil {
		t.Fatal(err)
	}
	moto.CreateStack(t, "shop-dev", `{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}, "Outputs": {"ResFlagsName": {"Value": "/shop/dev/flags"},
		"ResFlagsArn": {"Value": "arn:aws:ssm:us-east-1:123456789012:parameter/shop/dev/flags"},
		"ResOtherName": {"Value": "/shop/dev/other"}, "ResOtherArn": {"Value": "arn:aws:ssm:us-east-1:123456789012:parameter/shop/dev/other"}}}`)
	return env, dir, func(on bool) {
		if !on {
			os.Remove(script + ".fail")
		} else if err := os.WriteFile(script+".fail", nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// `framework local --profile dev` on a deployed stage: when the profile's
// credentials cannot be refreshed, the app's handle fails and one line
// says to sign in again; once they can, the app reads its parameter
// without a restart. When the declarations change, the app restarted gets
// a new credentials endpoint and the one of the app it replaced stops.
func TestLocalResourcesCredentialsRefresh(t *testing.T) {
	env, dir, fail := profileProject(t)
	// The credentials the CLI serves are the app's with --no-iam-check
	// (with the check, its proxy signs with them).
	s := startLocal(t, dir, env, "--profile", "dev", "--no-schedules", "--no-iam-check")
	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(readAll(t, resp.Body))
	}
	endpoint := func() string {
		_, uri := get(s.URL + "/uri")
		if !strings.HasPrefix(uri, `"http://127.0.0.1:`) {
			t.Fatalf("the app's AWS_CONTAINER_CREDENTIALS_FULL_URI is %s, want the CLI's endpoint", uri)
		}
		return strings.Trim(uri, `"`)
	}
	uri := endpoint()

	fail(true)
	if status, body := get(s.URL + "/flag"); status == 200 {
		t.Errorf("GET /flag while the profile cannot be refreshed: %d %s, want an error", status, body)
	}
	ev := s.waitEvent(t, "credentials_refresh_failed", time.Minute)
	if msg, _ := ev["error"].(string); !strings.Contains(msg, "the credential_process of profile dev could not be refreshed") || !strings.Contains(msg, "fix what it runs") {
		t.Errorf("credentials_refresh_failed %v: want what to run", ev)
	}

	fail(false)
	if status, body := get(s.URL + "/flag"); status != 200 || body != `"beta=on"` {
		t.Errorf("GET /flag once the profile is refreshed: %d %s, want \"beta=on\"", status, body)
	}

	main := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(main)
	edited := strings.Replace(string(src), `flags.Allow("read")`, `flags.Allow("read")
	resource.NewParameter(app, "other")`, 1)
	if err := os.WriteFile(main, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitEvent(t, "reloaded", 3*time.Minute)
	if status, _ := get(endpoint()); status != http.StatusUnauthorized {
		t.Errorf("the new app's credentials endpoint without the token: HTTP %d, want 401", status)
	}
	if resp, err := http.Get(uri); err == nil {
		resp.Body.Close()
		t.Errorf("the replaced app's credentials endpoint %s still answers", uri)
	}

	s.stop(t)
	for ev := range s.events {
		if ev["event"] == "credentials_refresh_failed" {
			t.Errorf("the failure is reported again: %v", ev)
		}
	}
}
