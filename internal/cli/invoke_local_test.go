package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvokeLocal runs handlers of examples/events with `framework invoke
// NAME --local`: a sample event for the kind when none is given, the given
// event otherwise, the result printed as the remote form prints it.
func TestInvokeLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example")
	}
	t.Setenv("FRAMEWORK_CACHE_DIR", t.TempDir())
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "events"))
	if err != nil {
		t.Fatal(err)
	}
	invoke := func(stdin string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := MainEnv(append([]string{"-C", dir, "invoke"}, args...), &Env{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr})
		return code, stdout.String(), stderr.String()
	}

	code, out, errOut := invoke("", "orders", "--local", "--json")
	var doc struct {
		Function, Kind string
		Event          json.RawMessage
		Result         struct {
			Payload json.RawMessage
			LogTail string `json:"log_tail"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("invoke orders --local --json: exit %d\n%s\n%s", code, out, errOut)
	}
	// Said before the build, on stderr (stdout is the result), with the
	// first build's duration: the build cache is new.
	if !strings.HasPrefix(errOut, "Building the app (the first build on this machine takes about a minute)...\n") {
		t.Errorf("invoke --local stderr %q, want the building line first", errOut)
	}
	if doc.Function != "orders" || doc.Kind != "sqs" || !strings.Contains(string(doc.Event), `"eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:orders"`) {
		t.Errorf("function %s kind %s event %s", doc.Function, doc.Kind, doc.Event)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, doc.Result.Payload)
	if compact.String() != `{"batchItemFailures":[{"itemIdentifier":"message-1"},{"itemIdentifier":"message-2"}]}` {
		t.Errorf("payload %s", doc.Result.Payload)
	}
	if !strings.Contains(doc.Result.LogTail, "message message-1: not an order") {
		t.Errorf("log tail %q", doc.Result.LogTail)
	}

	code, out, _ = invoke(`{"sku": "CAP", "quantity": 2}`, "quote", "--local", "--event", "-")
	if code != 0 || out != `{"sku":"CAP","quantity":2,"total_cents":2500}`+"\n" {
		t.Errorf("quote: exit %d, %q", code, out)
	}
	code, _, errOut = invoke(`{"quantity": 0}`, "quote", "--local", "--payload", "-")
	if code != 1 || !strings.Contains(errOut, "function quote (local build) failed: errorString: quantity 0: order at least one (Unhandled)") {
		t.Errorf("failing quote: exit %d, %s", code, errOut)
	}
	code, _, errOut = invoke("", "nope", "--local")
	if code != 1 || !strings.Contains(errOut, `the app events has no function "nope"; its functions are: alerts, api, clicks,`) {
		t.Errorf("unknown function: exit %d, %s", code, errOut)
	}
}
