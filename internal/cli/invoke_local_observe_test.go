package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

var requestIDRe = regexp.MustCompile(`request_id=([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b`)

// TestInvokeLocalEventHandlerStage: an event handler run by invoke --local
// logs (framework.Logger) and records metrics (framework.Metrics) with
// the stage, --stage's or the default dev, and Lambda's request id, as
// the deployed function (FRAMEWORK_STAGE) and framework local do: the
// stage is a dimension of its EMF line.
func TestInvokeLocalEventHandlerStage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the app")
	}
	t.Setenv("FRAMEWORK_CACHE_DIR", t.TempDir())
	t.Setenv("FRAMEWORK_STAGE", "") // the CLI's own environment says nothing of it
	dir, err := filepath.Abs(filepath.Join("testdata", "observed"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{{nil, "dev"}, {[]string{"--stage", "qa"}, "qa"}} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-C", dir, "invoke", "orders", "--local", "--json"}, tc.args...)
		code := MainEnv(args, &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		var doc struct {
			Result struct {
				LogTail string `json:"log_tail"`
			}
		}
		if code != 0 || json.Unmarshal(stdout.Bytes(), &doc) != nil {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout.String(), stderr.String())
		}
		var logLine string
		var emf map[string]any
		sc := bufio.NewScanner(strings.NewReader(doc.Result.LogTail))
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, "took the batch") {
				logLine = line
			}
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["Batches"] != nil {
				emf = m
			}
		}
		if !strings.Contains(logLine, " stage="+tc.want+" ") && !strings.HasSuffix(logLine, " stage="+tc.want) {
			t.Errorf("%v: the handler's log line lacks stage=%s: %q", tc.args, tc.want, logLine)
		}
		id := requestIDRe.FindStringSubmatch(logLine)
		if id == nil {
			t.Errorf("%v: the handler's log line has no request id: %q", tc.args, logLine)
		}
		if emf == nil {
			t.Fatalf("%v: no EMF line in the function's output:\n%s", tc.args, doc.Result.LogTail)
		}
		if emf["stage"] != tc.want {
			t.Errorf("%v: the EMF line's stage is %v, want %s", tc.args, emf["stage"], tc.want)
		}
		if id != nil && emf["request_id"] != id[1] {
			t.Errorf("%v: the EMF line's request_id %v is not the log line's %s", tc.args, emf["request_id"], id[1])
		}
		dims, _ := json.Marshal(emf["_aws"])
		if !bytes.Contains(dims, []byte(`["service","stage","function"]`)) {
			t.Errorf("%v: the EMF line's dimensions lack the stage: %s", tc.args, dims)
		}
	}
}

// ceilingLines are what framework local says at start-up of
// test/testdata/ceiling (test/ceiling_e2e_test.go): each call beyond a
// declaration, with its file:line, and the Allow to add.
var ceilingLines = []string{
	"the app's code goes beyond what it declares:",
	`main.go:25: handler "admin" calls resource.Secret.Value (secretsmanager:GetSecretValue) on secret "adminToken", but the handler has no access to it`,
	`add adminToken.Allow("admin")`,
	`main.go:33: handler "importCsv" calls s3.PutObject (s3:PutObject) on bucket "imports", beyond the declared read`,
	`add imports.Allow(resource.ReadWrite, "importCsv")`,
	"(framework synth and deploy refuse the app for the same reason)",
}

// TestInvokeLocalCeiling: invoke --local refuses to run a handler of an
// app whose code goes beyond what it declares, with the message framework
// local refuses to start it with, before creating or reading any
// resource; --no-iam-check does not turn the check off, as it does not
// for framework local.
func TestInvokeLocalCeiling(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the app")
	}
	t.Setenv("FRAMEWORK_CACHE_DIR", t.TempDir())
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "ceiling")
	for _, extra := range [][]string{nil, {"--no-iam-check"}} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-C", dir, "invoke", "importCsv", "--local", "--aws-endpoint", "http://127.0.0.1:9"}, extra...)
		code := MainEnv(args, &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr})
		if code != 1 {
			t.Errorf("%v: exit %d, want 1\n%s\n%s", extra, code, stdout.String(), stderr.String())
		}
		for _, want := range ceilingLines {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%v: stderr lacks %q:\n%s", extra, want, stderr.String())
			}
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: the handler ran: stdout %q", extra, stdout.String())
		}
	}
}
