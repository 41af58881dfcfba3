package frameworktest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// observeChild is set in the environment of the process
// TestEventHandlerLinesCarryStageAndRequestID starts to run the handler:
// the Logger and Metrics lines go to the process's stderr and stdout,
// which only a process of its own lets a test read whole.
const observeChild = "FRAMEWORKTEST_OBSERVE_CHILD"

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// TestEventHandlerLinesCarryStageAndRequestID: an event handler invoked
// through the test kit logs (Logger) and records metrics (Metrics) with
// the Client's stage and a request id of its own, as the deployed
// function's lines carry FRAMEWORK_STAGE and Lambda's request id: the
// stage is a dimension of the EMF line, as it is for routes.
func TestEventHandlerLinesCarryStageAndRequestID(t *testing.T) {
	if stage, ok := os.LookupEnv(observeChild); ok {
		app := framework.New("observed")
		app.OnSQSMessage("orders", "orders", func(ctx context.Context, _ events.SQSEvent) error {
			framework.Logger(ctx).Info("took the batch")
			framework.Metrics(ctx).Count("Batches")
			return nil
		})
		c := frameworktest.New(app)
		c.Stage = stage
		if _, err := c.SQS("orders", `{"id":1}`); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, tc := range []struct{ stage, want string }{{"", "dev"}, {"qa", "qa"}} {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(os.Args[0], "-test.run=^TestEventHandlerLinesCarryStageAndRequestID$", "-test.count=1")
		cmd.Env = append(os.Environ(), observeChild+"="+tc.stage, "FRAMEWORK_LOG_FORMAT=json", "FRAMEWORK_STAGE=", "AWS_LAMBDA_FUNCTION_NAME=")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the handler's process: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		logLine := jsonLine(t, &stderr, "msg", "took the batch")
		emf := jsonLine(t, &stdout, "Batches", nil)
		for what, line := range map[string]map[string]any{"log line": logLine, "EMF line": emf} {
			if line == nil {
				t.Fatalf("Client.Stage %q: no %s\nstdout:\n%s\nstderr:\n%s", tc.stage, what, stdout.String(), stderr.String())
			}
			if line["stage"] != tc.want {
				t.Errorf("Client.Stage %q: %s has stage %v, want %q: %v", tc.stage, what, line["stage"], tc.want, line)
			}
			if id, _ := line["request_id"].(string); !uuidRe.MatchString(id) {
				t.Errorf("Client.Stage %q: %s has request_id %q, want a UUID as Lambda's", tc.stage, what, id)
			}
		}
		if logLine != nil && emf != nil && logLine["request_id"] != emf["request_id"] {
			t.Errorf("the log line's request_id %v is not the EMF line's %v", logLine["request_id"], emf["request_id"])
		}
		if emf != nil {
			dims, _ := json.Marshal(emf["_aws"])
			if !bytes.Contains(dims, []byte(`["service","stage","function"]`)) {
				t.Errorf("Client.Stage %q: the EMF line's dimensions lack the stage: %s", tc.stage, dims)
			}
		}
	}
}

// jsonLine returns the first JSON object line of b that has key (with
// value want, unless want is nil), or nil.
func jsonLine(t *testing.T, b *bytes.Buffer, key string, want any) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if v, ok := m[key]; ok && (want == nil || v == want) {
			return m
		}
	}
	return nil
}
