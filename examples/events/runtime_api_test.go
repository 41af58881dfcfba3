package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// startFunction runs the binary as the deployed function of handler would
// run (FRAMEWORK_HANDLER set as the construct sets it) against a Runtime
// API stand-in.
func startFunction(t *testing.T, bin, handler string) *testutil.Function {
	t.Helper()
	return testutil.StartFunction(t, bin, build.AppEnviron(os.Environ(), names.EnvHandler+"="+handler), runtimeapi.WithTimeout(10*time.Second))
}

// TestRuntimeAPI runs the example's binary, built as deployed, once per
// handler, and sends each the event its source sends (testdata/, in the
// shapes AWS documents): the events cross the real aws-lambda-go runtime
// loop, and the partial batch failure answers have Lambda's exact shape.
func TestRuntimeAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the function binary")
	}
	bin := testutil.BuildBootstrap(t, ".")
	for _, tc := range []struct {
		handler, event string
		want           string // the exact response payload
		log            string // a line the handler logs
		errMsg         string // the invocation's error message, if it fails
	}{
		{handler: "nightly-cleanup", event: "schedule.json", want: "null", log: "cleanup at 2024-01-02T03:00:00Z"},
		{handler: "orders", event: "sqs.json", want: `{"batchItemFailures":[{"itemIdentifier":"2e1424d4-f796-459a-8184-9c92662be6da"}]}`,
			log: "message 2e1424d4-f796-459a-8184-9c92662be6da: not an order"},
		{handler: "alerts", event: "sns.json", want: "null", log: `alert "Disk": disk almost full`},
		{handler: "uploads", event: "s3.json", want: "null", log: "ObjectCreated:Put s3://events-example-uploads/incoming/2024-01-02.csv (1305107 bytes)"},
		{handler: "order-shipped", event: "eventbridge.json", want: "null", log: `OrderShipped from shop.shipping: {"order": "1001", "carrier": "UPS"}`},
		{handler: "order-audit", event: "dynamodb.json", want: "null", log: "INSERT map[id:1001]"},
		{handler: "clicks", event: "kinesis.json", want: `{"batchItemFailures":[{"itemIdentifier":"49590338271490256608559692540925702759324208523137515618"}]}`},
		{handler: "quote", event: "function.json", want: `{"sku":"TSHIRT-M","quantity":3,"total_cents":3750}`},
		{handler: "quote", event: "", errMsg: "quantity 0: order at least one"},
	} {
		t.Run(tc.handler+"/"+tc.event, func(t *testing.T) {
			fn := startFunction(t, bin, tc.handler)
			event := []byte(`{"sku": "X", "quantity": 0}`)
			if tc.event != "" {
				var err error
				if event, err = os.ReadFile(filepath.Join("testdata", tc.event)); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			got, err := fn.Invoke(ctx, event)
			if tc.errMsg != "" {
				var fe *runtimeapi.FunctionError
				if !errors.As(err, &fe) || fe.Message != tc.errMsg {
					t.Fatalf("Invoke = %s, %v; want the function error %q", got, err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Invoke: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("response %s, want %s", got, tc.want)
			}
			if tc.log != "" && !waitFor(fn.Output, tc.log) {
				t.Errorf("the handler did not log %q; output:\n%s", tc.log, fn.Output.String())
			}
		})
	}

	t.Run("unknown handler", func(t *testing.T) {
		fn := startFunction(t, bin, "nope")
		select {
		case <-fn.Done():
			var ee *exec.ExitError
			if err := fn.Err(); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(fn.Output.String(), `FRAMEWORK_HANDLER="nope": the app events has no handler named "nope"; its handlers are: alerts, api, clicks,`) {
				t.Errorf("exit %v, output %s", err, fn.Output.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the function kept running with an unknown handler")
		}
	})
}

// waitFor waits up to a second for a log line (written before the
// response is posted, but read through a pipe).
func waitFor(out *lockedbuf.Buffer, s string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, ok := out.Wait(ctx, func(written string) bool { return strings.Contains(written, s) })
	return ok
}
