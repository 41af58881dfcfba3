package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
)

// TestStackFIFOQueue: a FIFO queue declared with content-based
// deduplication, a retention period, a delivery delay and a dead-letter
// queue is that queue in the template (its dead-letter queue FIFO too),
// cfn-lint finds no error; its dead-letter queue's name, URL and ARN are
// stack outputs and reach the functions that use the queue; the handler
// the queue feeds gets nothing on the dead-letter queue, and a function
// with Redrive gets reading and moving its messages there and sending to
// the queue, nothing more.
func TestStackFIFOQueue(t *testing.T) {
	m := &manifest.Manifest{
		Version: manifest.Version, App: "shop",
		Routes: []manifest.Route{route("/orders", "GET")},
		Resources: []manifest.Resource{{Name: "orders", Kind: manifest.ResourceQueue, FIFO: true, ContentBasedDeduplication: true,
			MessageRetentionSeconds: 2 * 24 * 3600, DeliveryDelaySeconds: 30, MaxReceiveCount: 5}},
		Functions: []manifest.Function{
			{Name: "fulfil", Kind: manifest.KindSQS, SourceResource: "orders", ReportBatchItemFailures: true, BatchSize: 10},
			{Name: "redrive", Kind: manifest.KindFunction, Grants: []manifest.Grant{{Resource: "orders", Access: manifest.AccessRedrive}}},
		},
	}
	if err := manifest.Validate(m); err != nil {
		t.Fatal(err)
	}
	res, err := assemble(context.Background(), prebuilt(t, m, "dev", nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfnLint(t, res.TemplatePath)
	tpl := readTemplate(t, res.TemplatePath)

	q := tpl.Resources[mainQueue(t, tpl)].Properties
	if q["FifoQueue"] != true || q["ContentBasedDeduplication"] != true || q["MessageRetentionPeriod"] != 172800.0 || q["DelaySeconds"] != 30.0 {
		t.Errorf("queue FIFO %v dedup %v retention %v delay %v, want true, true, 172800, 30",
			q["FifoQueue"], q["ContentBasedDeduplication"], q["MessageRetentionPeriod"], q["DelaySeconds"])
	}
	dlqID := ""
	for id, r := range tpl.ofType("AWS::SQS::Queue") {
		if strings.Contains(id, "DLQ") {
			dlqID = id
			if r.Properties["FifoQueue"] != true {
				t.Errorf("dead-letter queue %s of a FIFO queue: FifoQueue %v, want true (SQS refuses a standard one)", id, r.Properties["FifoQueue"])
			}
		}
	}
	if dlqID == "" {
		t.Fatal("no dead-letter queue")
	}
	for _, attr := range []string{manifest.AttrDLQName, manifest.AttrDLQURL, manifest.AttrDLQARN} {
		out, ok := tpl.Outputs[manifest.ResourceOutput("orders", attr)]
		if !ok || !strings.Contains(fmt.Sprint(out["Value"]), dlqID) {
			t.Errorf("output %s = %v, want the dead-letter queue's", manifest.ResourceOutput("orders", attr), out["Value"])
		}
	}

	// Each function's environment and what its role grants on the
	// dead-letter queue and on the queue.
	for id, fn := range tpl.ofType("AWS::Lambda::Function") {
		if fn.Properties["Runtime"] != "provided.al2023" {
			continue
		}
		envp, _ := fn.Properties["Environment"].(map[string]any)
		vars, _ := envp["Variables"].(map[string]any)
		name, _ := vars["FRAMEWORK_HANDLER"].(string)
		if name == "" {
			continue // the API's, which uses no resource
		}
		if v := fmt.Sprint(vars[manifest.ResourceEnv("orders", manifest.AttrDLQURL)]); !strings.Contains(v, dlqID) {
			t.Errorf("function %s (%s): %s = %s, want the dead-letter queue's URL", name, id, manifest.ResourceEnv("orders", manifest.AttrDLQURL), v)
		}
		ref, _ := fn.Properties["Role"].(map[string]any)["Fn::GetAtt"].([]any)
		onDLQ, onQueue := map[string]bool{}, map[string]bool{}
		for _, p := range tpl.Resources[ref[0].(string)].Properties["Policies"].([]any) {
			for _, s := range p.(map[string]any)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
				sm := s.(map[string]any)
				b, _ := json.Marshal(sm["Resource"])
				for _, a := range strs(sm["Action"]) {
					switch {
					case strings.Contains(string(b), dlqID):
						onDLQ[a] = true
					case strings.Contains(string(b), "ResOrders"):
						onQueue[a] = true
					}
				}
			}
		}
		switch name {
		case "fulfil":
			if len(onDLQ) > 0 || !onQueue["sqs:ReceiveMessage"] {
				t.Errorf("the queue's handler: %v on the dead-letter queue (want none), %v on the queue", onDLQ, onQueue)
			}
		case "redrive":
			for _, a := range []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:StartMessageMoveTask", "sqs:GetQueueAttributes"} {
				if !onDLQ[a] {
					t.Errorf("Redrive: no %s on the dead-letter queue (%v)", a, onDLQ)
				}
			}
			if !onQueue["sqs:SendMessage"] || onQueue["sqs:ReceiveMessage"] || onQueue["sqs:DeleteMessage"] {
				t.Errorf("Redrive: %v on the queue, want sending, not receiving or deleting", onQueue)
			}
		}
	}
}

// TestFIFOQueueWithoutBatchingWindow: a handler of a FIFO queue with a
// batching window is refused before CDK (Lambda refuses the event source
// mapping at deploy time), naming the handler, the queue and the option.
func TestFIFOQueueWithoutBatchingWindow(t *testing.T) {
	m := resourcesManifest()
	m.Resources[1].FIFO = true
	m.Functions[0].MaxBatchingWindowSeconds = 5
	_, err := constructs.Prepare(context.Background(), &constructs.AppProps{Manifest: m, PackageZip: writeZip(t)}, nil)
	if err == nil || !strings.Contains(err.Error(), `sqs handler "worker": Lambda has no batching window for the FIFO queue "jobs"`) || !strings.Contains(err.Error(), "remove MaxBatchingWindow") {
		t.Errorf("error %v, want the handler, the FIFO queue and the option named", err)
	}
}
