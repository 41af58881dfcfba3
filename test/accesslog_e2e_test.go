package test

import (
	"bufio"
	"fmt"
	"net/http"
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

// TestLogsFollowAccessLines follows a function's logs while requests
// arrive: the function is a real framework app running under the Runtime
// API stand-in behind the Lambda Invoke front, which writes each
// invocation's output into moto's CloudWatch Logs; `framework logs
// --follow` shows each request's access line compactly and the app's own
// output as it is.
func TestLogsFollowAccessLines(t *testing.T) {
	m := mototest.Start(t)
	dir := remoteProject(t)
	fn := m.CreateStack(t, "shop-dev", mototest.StageTemplate)["FunctionName"]
	front := startLambdaFront(t, filepath.Join(testutil.RepoRoot(t), "test", "testdata", "usersfn"), fn, m)

	cmd := exec.Command(frameworkCLI(t), "logs", "--follow")
	cmd.Dir = dir
	cmd.Env = awsEnv(t, m, "FRAMEWORK_POLL_INTERVAL=100ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	invoke := func(method, name string) {
		t.Helper()
		event := fmt.Sprintf(`{"httpMethod": %q, "path": "/users/%s", "resource": "/users/{name}", "pathParameters": {"name": %q}, "headers": {"Accept": "application/json"}, "requestContext": {"requestId": "api-%d"}}`,
			method, name, name, time.Now().UnixNano())
		resp, err := http.Post(front.URL+"/2015-03-31/functions/"+fn+"/invocations", "application/json", strings.NewReader(event))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("invoke %s %s: HTTP %d", method, name, resp.StatusCode)
		}
	}
	var got []string
	waitFor := func(re *regexp.Regexp) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("logs --follow ended; printed:\n%s", strings.Join(got, "\n"))
				}
				got = append(got, l)
				if re.MatchString(l) {
					return
				}
			case <-deadline:
				t.Fatalf("logs --follow printed no line matching %s within 30s; printed:\n%s", re, strings.Join(got, "\n"))
			}
		}
	}
	access := func(method, resource, status string) *regexp.Regexp {
		return regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z [0-9a-f]{8} ` + method + ` ` + regexp.QuoteMeta(resource) + ` ` + status + ` \d+(\.\d+)?ms req=[0-9a-f]{8}$`)
	}

	invoke("GET", "ada")
	waitFor(access("GET", "/users/{name}", "200"))
	invoke("GET", "nobody")
	waitFor(access("GET", "/users/{name}", "404"))
	invoke("DELETE", "ada")
	waitFor(access("DELETE", "/users/{name}", "403"))

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		got = append(got, l)
	}
	_ = cmd.Wait()
	out := strings.Join(got, "\n")
	t.Logf("$ framework logs --follow   (three requests arrive)\n%s", out)
	for _, want := range []string{`"msg":"looking up user","name":"ada","request_id":"`, `"msg":"looking up user","name":"nobody","request_id":"`, " START RequestId: ", " END RequestId: "} {
		if !strings.Contains(out, want) {
			t.Errorf("logs --follow lacks %q", want)
		}
	}
	// The app's record and the access line of a request name the same request id.
	rec := regexp.MustCompile(`"name":"ada","request_id":"([0-9a-f]{8})`).FindStringSubmatch(out)
	if rec == nil || !strings.Contains(out, "GET /users/{name} 200 ") || !regexp.MustCompile(`GET /users/\{name\} 200 \S+ req=`+rec[1]).MatchString(out) {
		t.Errorf("the slog record's request id %v is not the access line's", rec)
	}
	if strings.Contains(out, `"type":"access"`) {
		t.Error("an access line was printed as raw JSON")
	}
}
