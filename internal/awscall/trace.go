package awscall

import (
	"context"
	"net/http"
	"os"
)

// TraceHeader is the header that carries the X-Ray trace of a call, so
// that X-Ray links the AWS service's segment to the invocation's trace.
const TraceHeader = "X-Amzn-Trace-Id"

// lambdaTraceKey is the context key under which aws-lambda-go puts the
// invocation's trace header (and sets _X_AMZN_TRACE_ID to it).
const lambdaTraceKey = "x-amzn-trace-id"

// setTraceHeader sets TraceHeader on req to the trace of the invocation
// ctx belongs to: the one aws-lambda-go put in the context, else
// _X_AMZN_TRACE_ID, which Lambda sets for the invocation being served.
// It is set after signing, as the AWS SDKs leave it unsigned: a proxy on
// the way may rewrite it.
func setTraceHeader(ctx context.Context, req *http.Request) {
	h, _ := ctx.Value(lambdaTraceKey).(string)
	if h == "" {
		h = os.Getenv("_X_AMZN_TRACE_ID")
	}
	if h != "" {
		req.Header.Set(TraceHeader, h)
	}
}
