package test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// truthApp declares a queue feeding a handler (60 s timeout, the default)
// with the queue spec QUEUE and a table with the key KEY.
const truthApp = `package main

import (
	"context"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

var _ = time.Second

func main() {
	app := framework.New("shop")
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{QUEUE})
	resource.NewTable(app, "orders", resource.TableSpec{PartitionKey: resource.Key{Name: "KEY", Type: resource.String}})
	app.OnSQSMessage("worker", jobs.Ref(), func(ctx context.Context, ev events.SQSEvent) error { return nil })
	app.Route("/", func(r *framework.Request) (string, error) { return "hi", nil })
	app.Run()
}
`

func writeTruthApp(t *testing.T, dir, queue, key string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "main.go"), strings.NewReplacer("QUEUE", queue, "KEY", key).Replace(truthApp))
}

// TestLocalDeclarationsAsSynth: what synth refuses, framework local and
// invoke --local refuse with the same message (a queue hiding a message
// 30 s for a handler that may run 60 s); a queue without a visibility
// timeout gets at the emulator the stack's default, 6 × 60 s; changing it
// while framework local runs updates the emulator's queue, and a table key
// change, which DynamoDB cannot make in place, is said with how to
// recreate the table.
func TestLocalDeclarationsAsSynth(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := newProject(t, env, "shop")
	writeTruthApp(t, dir, "VisibilityTimeout: 30 * time.Second", "id")
	const refused = `queue "jobs": visibility timeout 30 s is shorter than the 60 s timeout of the sqs handler "worker" it feeds, so Lambda would refuse the event source mapping: raise it to at least 60 s (AWS advises 6 times the timeout, 360 s), or leave it unset to get 360 s`

	_, synthErr, code := runCLI(t, dir, env, "synth")
	if code == 0 || !strings.Contains(synthErr, refused) {
		t.Fatalf("synth exit %d, want it to refuse with %q:\n%s", code, refused, synthErr)
	}
	_, invokeErr, code := runCLI(t, dir, env, "invoke", "worker", "--local", "--aws-endpoint", moto.URL)
	if code == 0 || !strings.Contains(invokeErr, refused) {
		t.Errorf("invoke --local exit %d, want it to refuse with %q:\n%s", code, refused, invokeErr)
	}

	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")
	if ev := s.seenEvent("declaration_error"); ev == nil || !strings.Contains(ev["error"].(string), refused) {
		t.Fatalf("declaration_error before serving %v, want %q; events %v", ev, refused, s.seen)
	}

	sqs := awscall.Config{Region: mototest.Region, Endpoint: moto.URL, Credentials: awscall.Credentials{AccessKeyID: "a", SecretAccessKey: "b"}}
	visibility := func() string {
		var out struct{ Attributes map[string]string }
		if err := sqs.Call(context.Background(), "sqs", "GetQueueAttributes", map[string]any{"QueueUrl": moto.URL + "/123456789012/shop-dev-jobs", "AttributeNames": []string{"VisibilityTimeout"}}, &out); err != nil {
			t.Fatal(err)
		}
		return out.Attributes["VisibilityTimeout"]
	}
	// Unset: the stack's default.
	writeTruthApp(t, dir, "", "id")
	s.waitEvent(t, "started", 3*time.Minute)
	if got := visibility(); got != "360" {
		t.Errorf("emulator queue's visibility timeout %s, want 360 (6 × the handler's 60 s, as the stack)", got)
	}

	writeTruthApp(t, dir, "VisibilityTimeout: 2 * time.Minute", "orderId")
	ev := s.waitEvent(t, "resource_updated", 3*time.Minute)
	if line := ev["line"]; line != "Updated queue shop-dev-jobs at the emulator to its declaration: VisibilityTimeout 360 -> 120." {
		t.Errorf("resource_updated %v", ev)
	}
	if got := visibility(); got != "120" {
		t.Errorf("emulator queue's visibility timeout after the change %s, want 120", got)
	}
	ev = s.waitEvent(t, "resource_differs", time.Minute)
	if line, _ := ev["line"].(string); !strings.Contains(line, "Table shop-dev-orders at the emulator differs from its declaration and DynamoDB cannot change that in place: its keys are id (S) at the emulator and orderId (S) declared.") ||
		!strings.Contains(line, "aws dynamodb delete-table --table-name shop-dev-orders --endpoint-url "+moto.URL) {
		t.Errorf("resource_differs %v", ev)
	}
	s.stop(t)
}
