package test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// lambdaFront answers the Lambda Invoke API (POST
// /2015-03-31/functions/NAME/invocations) for one function by running its
// real bootstrap binary under the Runtime API stand-in
// (internal/runtimeapi). It exists because moto runs a function's code
// only in Docker: here the code runs, so a test sees the function's own
// result, error document and output. As Lambda does, it answers with
// X-Amz-Function-Error on a function error, X-Amz-Log-Result (the last 4 KB
// of the invocation's log, base64) when asked for the tail, and writes the
// log to the function's log group, here in moto's CloudWatch Logs.
type lambdaFront struct {
	URL      string
	function string // the Lambda function's name
	rt       *runtimeapi.Server
	out      *lockedBuffer // the function process's stdout and stderr
	moto     *mototest.Server
}

// startLambdaFront builds the Go program in dir as a Lambda bootstrap, runs
// it against a Runtime API stand-in, and serves the Invoke API for it under
// the name function.
func startLambdaFront(t *testing.T, dir, function string, moto *mototest.Server) *lambdaFront {
	t.Helper()
	fn := testutil.StartFunction(t, testutil.BuildBootstrap(t, dir), testEnv(t, "_HANDLER=bootstrap", "AWS_LAMBDA_FUNCTION_NAME="+function),
		runtimeapi.WithTimeout(30*time.Second), runtimeapi.WithFunctionARN("arn:aws:lambda:us-east-1:123456789012:function:"+function))
	f := &lambdaFront{function: function, rt: fn.Server, out: fn.Output, moto: moto}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *lambdaFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/2015-03-31/functions/")
	name, ok2 := strings.CutSuffix(name, "/invocations")
	if !ok || !ok2 || r.Method != http.MethodPost {
		awsError(w, http.StatusNotFound, "UnknownOperationException", "the stand-in Lambda serves only Invoke")
		return
	}
	if name != f.function && !strings.HasSuffix(name, ":function:"+f.function) {
		awsError(w, http.StatusNotFound, "ResourceNotFoundException", "Function not found: "+name)
		return
	}
	event, _ := io.ReadAll(r.Body)
	id := newID(16)
	before := len(f.out.String())
	began := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	payload, err := f.rt.Invoke(ctx, event)
	var fe *runtimeapi.FunctionError
	if err != nil && !errors.As(err, &fe) {
		awsError(w, http.StatusInternalServerError, "ServiceException", err.Error())
		return
	}
	time.Sleep(20 * time.Millisecond) // let the process's last output land
	output := f.out.String()[before:]
	var log strings.Builder
	fmt.Fprintf(&log, "START RequestId: %s Version: $LATEST\n", id)
	log.WriteString(output)
	fmt.Fprintf(&log, "END RequestId: %s\n", id)
	fmt.Fprintf(&log, "REPORT RequestId: %s\tDuration: %.2f ms\n", id, float64(time.Since(began).Microseconds())/1000)
	text := log.String()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if err := f.moto.WriteLogEvents("/aws/lambda/"+f.function, time.Now().UTC().Format("2006/01/02")+"/[$LATEST]"+newID(16), began, lines...); err != nil {
		awsError(w, http.StatusInternalServerError, "ServiceException", err.Error())
		return
	}

	if r.Header.Get("X-Amz-Log-Type") == "Tail" {
		tail := text
		if len(tail) > 4096 {
			tail = tail[len(tail)-4096:]
		}
		w.Header().Set("X-Amz-Log-Result", base64.StdEncoding.EncodeToString([]byte(tail)))
	}
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	w.Header().Set("Content-Type", "application/json")
	if fe != nil {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		payload = fe.Body
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(payload)
}

// awsError answers as the Lambda REST-JSON API reports errors.
func awsError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("X-Amzn-ErrorType", typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"Type":"User","message":%q}`, msg)
}

func newID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
