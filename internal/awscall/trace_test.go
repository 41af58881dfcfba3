package awscall_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/awscall"
)

// A call made inside a Lambda invocation carries its X-Ray trace header
// (from the context aws-lambda-go gives the handler, else from
// _X_AMZN_TRACE_ID), unsigned, so that X-Ray links the service's segment
// to the invocation; a call outside one carries none.
func TestTraceHeaderPropagated(t *testing.T) {
	var got, signed []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get(awscall.TraceHeader))
		signed = append(signed, r.Header.Get("Authorization"))
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()
	c := awscall.Config{Region: "us-east-1", Endpoint: srv.URL, Credentials: awscall.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}}

	t.Setenv("_X_AMZN_TRACE_ID", "")
	if err := c.Call(context.Background(), "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatal(err)
	}
	const fromCtx = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	//lint:ignore SA1029 the key aws-lambda-go uses
	ctx := context.WithValue(context.Background(), "x-amzn-trace-id", fromCtx) //nolint:staticcheck
	if err := c.Call(ctx, "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatal(err)
	}
	const fromEnv = "Root=1-67891233-abcdef012345678912345678;Sampled=0"
	t.Setenv("_X_AMZN_TRACE_ID", fromEnv)
	if err := c.Call(context.Background(), "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"", fromCtx, fromEnv}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d: X-Amzn-Trace-Id %q, want %q", i, got[i], want[i])
		}
		if strings.Contains(strings.ToLower(signed[i]), "x-amzn-trace-id") {
			t.Errorf("call %d: the trace header is signed (%s): a proxy that rewrites it would break the signature", i, signed[i])
		}
	}
}
