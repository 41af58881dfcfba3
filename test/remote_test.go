package test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

// remoteProject writes a project directory whose config names the app, so
// that logs and invoke find the stack without building the app.
func remoteProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	testutil.WriteFiles(t, dir, map[string]string{".framework/config.json": `{"version": "1.0", "app_name": "shop"}` + "\n"})
	return dir
}

// awsEnv is the CLI's environment with the SDK pointed at moto, overridden
// by extra.
func awsEnv(t *testing.T, m *mototest.Server, extra ...string) []string {
	t.Helper()
	var kv []string
	for k, v := range m.Environ(t.TempDir()) {
		kv = append(kv, k+"="+v)
	}
	return testEnv(t, append(kv, extra...)...)
}

var logLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z [0-9a-f]{8} `)

func TestLogsCLI(t *testing.T) {
	m := mototest.Start(t)
	dir := remoteProject(t)
	env := awsEnv(t, m)

	_, stderr := cliRun(t, dir, env, 2, "logs")
	if want := "Error: stage dev is not deployed: no stack shop-dev in us-east-1; run `framework deploy --stage dev`\n"; stderr != want {
		t.Errorf("not deployed: stderr %q, want %q", stderr, want)
	}

	fn := m.CreateStack(t, "shop-dev", mototest.StageTemplate)["FunctionName"]
	group := "/aws/lambda/" + fn
	stdout, stderr := cliRun(t, dir, env, 0, "logs")
	if stdout != "" || stderr != "No logs yet: function api ("+fn+") has not been invoked (log group "+group+" does not exist).\n" {
		t.Errorf("no log group: stdout %q, stderr %q", stdout, stderr)
	}

	now := time.Now()
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]b0b0b0b0aaaa", now.Add(-2*time.Minute), "START RequestId: 1", "charging order 42\n", "END RequestId: 1")
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]a1a1a1a1bbbb", now.Add(-3*time.Minute), "first, from another environment")
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]c2c2c2c2cccc", now.Add(-2*time.Hour), "two hours ago")

	stdout, _ = cliRun(t, dir, env, 0, "logs", "--stage", "dev", "--function", "api")
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	var msgs []string
	for _, l := range lines {
		if !logLine.MatchString(l) {
			t.Errorf("line %q is not `TIME STREAM MESSAGE`", l)
		}
		msgs = append(msgs, l[25:])
	}
	if got, want := strings.Join(msgs, "|"), "a1a1a1a1 first, from another environment|b0b0b0b0 START RequestId: 1|b0b0b0b0 charging order 42|b0b0b0b0 END RequestId: 1"; got != want {
		t.Errorf("logs printed, oldest first:\n%s\nwant messages %s", stdout, want)
	}
	first := now.Add(-3 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
	if !strings.HasPrefix(stdout, first+" a1a1a1a1 ") {
		t.Errorf("first line %q does not start with the event's time %s", lines[0], first)
	}

	stdout, _ = cliRun(t, dir, env, 0, "logs", "--since", "3h", "--json", "--function", "shop")
	var evs []map[string]string
	for _, l := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		var e map[string]string
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("--json line %q: %v", l, err)
		}
		evs = append(evs, e)
	}
	if len(evs) != 5 || evs[0]["message"] != "two hours ago" || evs[0]["stream"] != "2026/11/23/[$LATEST]c2c2c2c2cccc" || evs[0]["id"] == "" {
		t.Errorf("--since 3h --json: %v", evs)
	}
	if _, err := time.Parse(time.RFC3339Nano, evs[0]["time"]); err != nil {
		t.Errorf("--json time %q: %v", evs[0]["time"], err)
	}

	since := now.Add(-150 * time.Second).UTC().Format(time.RFC3339)
	stdout, _ = cliRun(t, dir, env, 0, "logs", "--since", since)
	if strings.Count(stdout, "\n") != 3 || strings.Contains(stdout, "first, from another") {
		t.Errorf("--since %s printed:\n%s", since, stdout)
	}

	_, stderr = cliRun(t, dir, env, 1, "logs", "--function", "orders")
	if !strings.Contains(stderr, `stage dev has no function "orders"; its functions are: api`) {
		t.Errorf("unknown function: %q", stderr)
	}
	_, stderr = cliRun(t, dir, env, 1, "logs", "--since", "yesterday")
	if !strings.Contains(stderr, "want a duration before now such as 10m") {
		t.Errorf("bad --since: %q", stderr)
	}
}

// TestLogsFollowCLI starts `framework logs --follow` on a function never
// invoked, writes events after it started, and stops it with Ctrl-C.
func TestLogsFollowCLI(t *testing.T) {
	m := mototest.Start(t)
	dir := remoteProject(t)
	fn := m.CreateStack(t, "shop-dev", mototest.StageTemplate)["FunctionName"]
	group := "/aws/lambda/" + fn

	cmd := exec.Command(frameworkCLI(t), "logs", "--follow")
	cmd.Dir = dir
	cmd.Env = awsEnv(t, m, "FRAMEWORK_POLL_INTERVAL=50ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines, errLines := make(chan string, 10), make(chan string, 10)
	for r, ch := range map[*bufio.Scanner]chan string{bufio.NewScanner(stdout): lines, bufio.NewScanner(stderr): errLines} {
		go func() {
			for r.Scan() {
				ch <- r.Text()
			}
			close(ch)
		}()
	}
	next := func(ch chan string, what string) string {
		t.Helper()
		select {
		case l := <-ch:
			t.Logf("logs --follow %s: %s", what, l)
			return l
		case <-time.After(30 * time.Second):
			t.Fatalf("logs --follow printed no %s within 30s", what)
		}
		return ""
	}
	if l := next(errLines, "waiting line"); l != "No logs yet: function api ("+fn+") has not been invoked (log group "+group+" does not exist); waiting for its first invocation (Ctrl-C to stop)." {
		t.Errorf("waiting line %q", l)
	}
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]0123456789ab", time.Now(), "first invocation")
	if l := next(lines, "event"); !logLine.MatchString(l) || !strings.HasSuffix(l, " 01234567 first invocation") {
		t.Errorf("followed line %q", l)
	}
	m.PutLogEvents(t, group, "2026/11/23/[$LATEST]0123456789ab", time.Now(), "second invocation")
	if l := next(lines, "second event"); !strings.HasSuffix(l, " second invocation") {
		t.Errorf("followed line %q", l)
	}
	time.Sleep(200 * time.Millisecond) // more polls: nothing is printed twice
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for range lines {
			t.Errorf("printed again after the events: an event twice")
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("logs --follow after Ctrl-C: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("logs --follow did not stop on Ctrl-C")
	}
}

// TestInvokeCLIMoto invokes through moto's Lambda. moto runs no function
// code without Docker (its Docker-free Lambda answers with the event), so
// this checks what the CLI sends and prints; TestInvokeFunctionErrorCLI runs
// real code.
func TestInvokeCLIMoto(t *testing.T) {
	m := mototest.Start(t)
	m.UseLambdaWithoutDocker(t)
	dir := remoteProject(t)
	env := awsEnv(t, m)

	_, stderr := cliRun(t, dir, env, 2, "invoke", "api", "--stage", "prod")
	if want := "Error: stage prod is not deployed: no stack shop-prod in us-east-1; run `framework deploy --stage prod`\n"; stderr != want {
		t.Errorf("not deployed: stderr %q, want %q", stderr, want)
	}
	m.CreateStack(t, "shop-prod", mototest.StageTemplate)

	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"httpMethod": "GET", "path": "/orders/42"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := cliRun(t, dir, env, 0, "invoke", "api", "--stage", "prod", "--payload", event)
	if stdout != `{"httpMethod": "GET", "path": "/orders/42"}`+"\n" {
		t.Errorf("stdout %q, want the function's result (moto echoes the event)", stdout)
	}

	cmd := exec.Command(frameworkCLI(t), "invoke", "shop", "--stage", "prod", "--payload", "-", "--json")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(`{"from": "stdin"}`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("invoke --payload - --json: %v", err)
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("--json output %s: %v", out, err)
	}
	if p, _ := res["payload"].(map[string]any); p["from"] != "stdin" || res["status_code"] != 200.0 || res["function_error"] != nil {
		t.Errorf("--json: %s", out)
	}

	_, stderr = cliRun(t, dir, env, 1, "invoke", "api", "--stage", "prod", "--payload", dir)
	if !strings.Contains(stderr, "Error: "+dir+": is a directory, not a regular file: a Lambda event must be a regular file") {
		t.Errorf("payload that is a directory: %q", stderr)
	}
	if err := os.WriteFile(event, []byte(`not json`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr = cliRun(t, dir, env, 1, "invoke", "api", "--stage", "prod", "--payload", event)
	if !strings.Contains(stderr, "is not JSON") {
		t.Errorf("payload not JSON: %q", stderr)
	}
	_, stderr = cliRun(t, dir, env, 1, "invoke", "orders", "--stage", "prod")
	if !strings.Contains(stderr, `stage prod has no function "orders"; its functions are: api`) {
		t.Errorf("unknown function: %q", stderr)
	}
}

// TestInvokeFunctionErrorCLI invokes a real framework function: moto holds
// the stack and the logs, the function runs under the Runtime API
// stand-in behind a Lambda Invoke front (moto would need Docker to run
// it). A good event prints the function's result and its log tail; an
// event the function cannot take is a function error, shown with its type
// and message, exit 1; `framework logs` then shows both invocations.
func TestInvokeFunctionErrorCLI(t *testing.T) {
	m := mototest.Start(t)
	dir := remoteProject(t)
	fn := m.CreateStack(t, "shop-dev", mototest.StageTemplate)["FunctionName"]
	front := startLambdaFront(t, filepath.Join(testutil.RepoRoot(t), "test", "testdata", "ordersfn"), fn, m)
	env := awsEnv(t, m, "AWS_ENDPOINT_URL_LAMBDA="+front.URL)

	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"httpMethod": "GET", "path": "/orders/42", "resource": "/orders/{id}", "pathParameters": {"id": "42"}, "headers": {"Accept": "application/json"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := cliRun(t, dir, env, 0, "invoke", "api", "--payload", event)
	var resp struct {
		StatusCode int    `json:"statusCode"`
		Body       string `json:"body"`
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil || resp.StatusCode != 200 || !strings.Contains(resp.Body, `"order":"42"`) {
		t.Errorf("stdout %q (%v), want the API Gateway proxy response with order 42", stdout, err)
	}
	if !regexp.MustCompile(`(?s)^START RequestId: \w+ Version: \$LATEST\nlooking up order 42\n\{"time":"[^"]+","type":"access","request_id":"[^"]+","method":"GET","resource":"/orders/\{id\}","path":"/orders/42","status":200,"duration_ms":[0-9.]+\}\nEND RequestId: \w+\nREPORT RequestId: .*\n$`).MatchString(stderr) {
		t.Errorf("stderr is not the log tail:\n%s", stderr)
	}

	cmd := exec.Command(frameworkCLI(t), "invoke", "api", "--payload", "-")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(`[1, 2]`)
	var outb, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &outb, &errb
	err := cmd.Run()
	t.Logf("$ echo '[1, 2]' | framework invoke api --payload -  (%v)\n%s%s", err, outb.String(), errb.String())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("function error: %v, want exit 1", err)
	}
	wantErr := "Error: function api (" + fn + ") failed: UnmarshalTypeError: json: cannot unmarshal array into Go value of type events.APIGatewayProxyRequest (Unhandled)\n"
	if !strings.HasSuffix(errb.String(), wantErr) || !strings.HasPrefix(errb.String(), "START RequestId: ") {
		t.Errorf("stderr:\n%s\nwant the log tail, then %q", errb.String(), wantErr)
	}
	if !strings.Contains(outb.String(), `"errorType":"UnmarshalTypeError"`) {
		t.Errorf("stdout %q, want the error document", outb.String())
	}

	cmd = exec.Command(frameworkCLI(t), "invoke", "api", "--payload", "-", "--json")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(`"a string"`)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("function error --json: %v, want exit 1", err)
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("--json output %s: %v", out, err)
	}
	if res["function_error"] != "Unhandled" || res["error_type"] != "UnmarshalTypeError" || res["executed_version"] != "$LATEST" || !strings.Contains(res["log_tail"].(string), "END RequestId:") {
		t.Errorf("--json: %s", out)
	}

	stdout, _ = cliRun(t, dir, env, 0, "logs")
	if strings.Count(stdout, "START RequestId:") != 3 || !strings.Contains(stdout, " looking up order 42\n") || !strings.Contains(stdout, `"handler":"api","error":"json: cannot unmarshal array into Go value of type events.APIGatewayProxyRequest"`) {
		t.Errorf("logs after three invocations:\n%s", stdout)
	}
}
