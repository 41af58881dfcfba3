package test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

// call sends method path to the local server and decodes its JSON answer.
func (s *localServer) call(t *testing.T, method, path string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return out
}

// waitDenied returns the next iam_denied event of function fn.
func (s *localServer) waitDenied(t *testing.T, fn string, within time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ev := s.waitEvent(t, "iam_denied", time.Until(deadline))
		if ev["function"] == fn {
			return ev
		}
	}
}

// Under `framework local --aws-endpoint` against moto, each function's AWS
// calls are checked against the policy of its deployed role: a route
// handler's DeleteItem on a table it may only read, and a queue handler's
// Publish on a topic it has no Allow for, get the services' AccessDenied
// and a line naming the function, the action, the resource and the Allow
// to add; the calls their declarations allow (GetItem) reach moto. invoke
// --local checks the queue handler's calls the same way. With
// --no-iam-check, one warning line, and the same call succeeds.
func TestLocalIAMCheck(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "iamapp")
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")

	if got := s.call(t, "GET", "/notes/n1"); got["ok"] != true {
		t.Errorf("GetItem, which the route's handler may do: %v", got)
	}
	got := s.call(t, "DELETE", "/notes/n1")
	if msg, _ := got["error"].(string); got["ok"] != false || !strings.Contains(msg, "AccessDeniedException") ||
		!strings.Contains(msg, "dynamodb:DeleteItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/iamapp-dev-notes") {
		t.Errorf("DeleteItem, which the API function's role would refuse: %v, want DynamoDB's AccessDeniedException naming the action and the table", got)
	}
	ev := s.waitDenied(t, "api", 10*time.Second)
	if ev["action"] != "dynamodb:DeleteItem" || ev["resource"] != "arn:aws:dynamodb:us-east-1:123456789012:table/iamapp-dev-notes" ||
		!strings.Contains(ev["allow"].(string), `notes.Allow(resource.Write, "HANDLER")`) || !strings.Contains(ev["allow"].(string), "read, remove") {
		t.Errorf("iam_denied event %v, want the action, the table and the Allow to add", ev)
	}

	ctx := context.Background()
	q := sqs.NewFromConfig(moto.Config())
	if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(moto.URL + "/123456789012/iamapp-dev-jobs"), MessageBody: aws.String("n2")}); err != nil {
		t.Fatal(err)
	}
	ev = s.waitDenied(t, "work", 10*time.Second)
	if ev["action"] != "sns:Publish" || ev["resource"] != "arn:aws:sns:us-east-1:123456789012:iamapp-dev-events" || !strings.Contains(ev["allow"].(string), `events.Allow("work")`) {
		t.Errorf("iam_denied event %v, want sns:Publish on the topic and events.Allow(\"work\")", ev)
	}
	if d := s.waitDelivery(t, "work", 10*time.Second); d["ok"] != true {
		t.Errorf("the queue handler's delivery: %v", d)
	}
	out := s.stderr.String()
	if !strings.Contains(out, "work: get n2: map[ok:true]") || !strings.Contains(out, "work: publish n2: map[error:") || !strings.Contains(out, "AuthorizationError") {
		t.Errorf("the queue handler's GetItem should succeed and its Publish get SNS's AuthorizationError; its output:\n%s", out)
	}
	s.stop(t)

	// invoke --local checks the handler's calls the same way.
	run := cliRunner(t, dir, env)
	out = run(0, "invoke", "work", "--local", "--aws-endpoint", moto.URL)
	if !strings.Contains(out, `IAM: function work may not sns:Publish on arn:aws:sns:us-east-1:123456789012:iamapp-dev-events`) || !strings.Contains(out, `events.Allow("work")`) ||
		!strings.Contains(out, "AuthorizationError") || !strings.Contains(out, "map[ok:true]") {
		t.Errorf("invoke work --local: want its GetItem to succeed and its Publish refused, with the line naming the Allow:\n%s", out)
	}

	s = startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules", "--no-iam-check")
	if ev := s.seenEvent("iam_check_off"); ev == nil || !strings.HasPrefix(ev["warning"].(string), "Warning: --no-iam-check") {
		t.Errorf("with --no-iam-check: no warning event (%v)", ev)
	}
	if got := s.call(t, "DELETE", "/notes/n1"); got["ok"] != true {
		t.Errorf("DeleteItem with --no-iam-check: %v, want it to reach moto", got)
	}
	s.stop(t)
}

// envOf parses a process's environment, KEY=VALUE entries, into a map.
func envOf(entries []string) map[string]string {
	env := map[string]string{}
	for _, kv := range entries {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// getEnv is the environment of the API's function, from iamapp's /env.
func (s *localServer) getEnv(t *testing.T) map[string]string {
	t.Helper()
	resp, err := http.Get(s.URL + "/env")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	if b := readAll(t, resp.Body); resp.StatusCode != 200 || json.Unmarshal(b, &entries) != nil {
		t.Fatalf("GET /env: %d %s", resp.StatusCode, b)
	}
	return envOf(entries)
}

// workEnv is the environment the queue handler work logged ("work: env
// [...]") in out.
func workEnv(t *testing.T, out string) map[string]string {
	t.Helper()
	_, line, ok := strings.Cut(out, "work: env ")
	if !ok {
		t.Fatalf("the queue handler did not log its environment:\n%s", out)
	}
	var entries []string // the log line's attributes follow
	if err := json.NewDecoder(strings.NewReader(line)).Decode(&entries); err != nil {
		t.Fatalf("the queue handler's environment %q: %v", line, err)
	}
	return envOf(entries)
}

// resVars are the FRAMEWORK_RES_<NAME>_ prefixes of env's variables,
// sorted: the declared resources the function was given.
func resVars(env map[string]string) []string {
	var out []string
	for k := range env {
		if rest, ok := strings.CutPrefix(k, "FRAMEWORK_RES_"); ok {
			name, _, _ := strings.Cut(rest, "_")
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkFunctionEnv checks the environment env of function fn: the
// FRAMEWORK_RES_* variables of the resources in want and no others, no
// FRAMEWORK_AWS_ENDPOINT, and every AWS endpoint and queue URL at
// endpoint; with the check on (endpoint is not moto's), no variable names
// moto.
func checkFunctionEnv(t *testing.T, fn string, env map[string]string, want []string, endpoint, moto string) {
	t.Helper()
	if got := resVars(env); !slices.Equal(got, want) {
		t.Errorf("%s: the FRAMEWORK_RES_* variables of %v, want those of %v only (its deployed function's)", fn, got, want)
	}
	if v, ok := env["FRAMEWORK_AWS_ENDPOINT"]; ok {
		t.Errorf("%s: FRAMEWORK_AWS_ENDPOINT=%q, want no such variable", fn, v)
	}
	host := func(u string) string {
		p, err := url.Parse(u)
		if err != nil || p.Host == "" {
			t.Errorf("%s: %q is not a URL", fn, u)
			return ""
		}
		return p.Host
	}
	if got := env["AWS_ENDPOINT_URL"]; host(got) != host(endpoint) {
		t.Errorf("%s: AWS_ENDPOINT_URL=%q, want %s", fn, got, endpoint)
	}
	for k, v := range env {
		if strings.HasPrefix(k, "AWS_ENDPOINT_URL_") && v != "" && host(v) != host(endpoint) {
			t.Errorf("%s: %s=%q, want %s", fn, k, v, endpoint)
		}
		if strings.HasPrefix(k, "FRAMEWORK_RES_") && strings.HasSuffix(k, "URL") {
			if host(v) != host(endpoint) || !strings.HasPrefix(strings.TrimPrefix(v, "http://"+host(v)), "/123456789012/iamapp-dev-") {
				t.Errorf("%s: %s=%q, want the queue's /ACCOUNT/NAME at %s", fn, k, v, endpoint)
			}
		}
		if endpoint != moto && strings.Contains(v, host(moto)) {
			t.Errorf("%s: %s=%q names the emulator behind the IAM check", fn, k, v)
		}
	}
}

// Each function process gets what its deployed function gets, and nothing
// that walks around the IAM check: the FRAMEWORK_RES_* variables of the
// resources it may use only (the API's function, which may read the notes
// table, gets no audit table nor jobs queue; the queue handler gets its
// queue and both tables it has Allows on, not the topic), no emulator URL
// in any variable (AWS_ENDPOINT_URL, the AWS_ENDPOINT_URL_<SERVICE> the
// user's environment sets and the queue's URL name the proxy), under
// framework local and invoke --local. With --no-iam-check,
// the emulator's URL is what they get, and still only their own
// resources.
func TestLocalFunctionEnvironment(t *testing.T) {
	moto := mototest.Start(t)
	// A service's own endpoint variable, which SDKs prefer to
	// AWS_ENDPOINT_URL, names the emulator in the user's environment.
	env := append(motoEnv(t, moto), "AWS_ENDPOINT_URL_STS="+moto.URL, "AWS_ENDPOINT_URL_SQS="+moto.URL)
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "iamapp")
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")

	api := s.getEnv(t)
	proxy := api["AWS_ENDPOINT_URL"]
	if proxy == "" || proxy == moto.URL {
		t.Fatalf("the API's function's AWS_ENDPOINT_URL is %q, want the IAM check's proxy", proxy)
	}
	checkFunctionEnv(t, "api", api, []string{"NOTES"}, proxy, moto.URL)

	q := sqs.NewFromConfig(moto.Config())
	if _, err := q.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(moto.URL + "/123456789012/iamapp-dev-jobs"), MessageBody: aws.String("env")}); err != nil {
		t.Fatal(err)
	}
	if d := s.waitDelivery(t, "work", time.Minute); d["ok"] != true {
		t.Fatalf("the queue handler's delivery: %v", d)
	}
	work := workEnv(t, s.stderr.String())
	checkFunctionEnv(t, "work", work, []string{"AUDIT", "JOBS", "NOTES"}, work["AWS_ENDPOINT_URL"], moto.URL)
	if work["AWS_ENDPOINT_URL"] != proxy {
		t.Errorf("work: AWS_ENDPOINT_URL=%q, want the proxy %s", work["AWS_ENDPOINT_URL"], proxy)
	}
	s.stop(t)

	run := cliRunner(t, dir, env)
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"Records":[{"body":"env"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(0, "invoke", "work", "--local", "--aws-endpoint", moto.URL, "--event", event)
	inv := workEnv(t, out)
	if inv["AWS_ENDPOINT_URL"] == moto.URL {
		t.Errorf("invoke --local: AWS_ENDPOINT_URL is the emulator's, want the IAM check's proxy")
	}
	checkFunctionEnv(t, "invoke work --local", inv, []string{"AUDIT", "JOBS", "NOTES"}, inv["AWS_ENDPOINT_URL"], moto.URL)

	// Without the check, there is no proxy: the emulator is the endpoint.
	s = startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules", "--no-iam-check")
	checkFunctionEnv(t, "api with --no-iam-check", s.getEnv(t), []string{"NOTES"}, moto.URL, moto.URL)
	s.stop(t)
}
