package test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
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
