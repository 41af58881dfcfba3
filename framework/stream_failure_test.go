package framework_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestStreamFailureLambda runs testdata/streamfail built as deployed
// under the Runtime API stand-in, which reads a streamed response's
// trailers as Lambda does (after the chunked body's end). AWS's custom
// runtime guide ("Implementing response streaming"): an error after the
// response started is reported in the trailers
// Lambda-Runtime-Function-Error-Type (a <category.reason> string) and
// Lambda-Runtime-Function-Error-Body (base64). So a stream whose body
// returns an error or panics after its first byte is a failed invocation,
// whatever front door streams it (REST API, function URL); one that ends
// well is not. The metrics each body records are written as EMF on
// stdout when its stream ends, the first invocation's with ColdStart.
func TestStreamFailureLambda(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an app")
	}
	bin := testutil.BuildBootstrap(t, "testdata/streamfail")
	fn := testutil.StartFunction(t, bin, build.AppEnviron(os.Environ(), names.EnvStage+"=dev"), runtimeapi.WithTimeout(20*time.Second))
	rest := func(path string) []byte {
		b, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: path, Resource: path})
		return b
	}
	functionURL := func(path string) []byte {
		b, _ := json.Marshal(events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: "$default", RawPath: path, Headers: map[string]string{},
			RequestContext: events.APIGatewayV2HTTPRequestContext{RouteKey: "$default", DomainName: "abc.lambda-url.us-east-1.on.aws", Stage: "$default",
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: path}}})
		return b
	}
	for i, tc := range []struct {
		name     string
		event    []byte
		wantType string // "" for a success
		wantWhat string // what the error message says ended the stream
	}{
		{name: "ok", event: rest("/ok")},
		{name: "broke", event: rest("/broke"), wantType: "Function.StreamError", wantWhat: "an uncaught error"},
		{name: "panics", event: functionURL("/panics"), wantType: "Function.StreamPanic", wantWhat: "a panic"},
	} {
		before := len(emfLines(fn.Output.String()))
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		sr, err := fn.InvokeStream(ctx, tc.event)
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, err := io.ReadAll(sr)
		sr.Close()
		cancel()
		if err != nil || sr.Mode != "streaming" || !strings.HasSuffix(string(body), "\x00part") {
			t.Errorf("%s: mode %q, body %q, %v: want the streamed prelude and part", tc.name, sr.Mode, body, err)
		}
		var fe *runtimeapi.FunctionError
		switch {
		case tc.wantType == "" && sr.Err() != nil:
			t.Errorf("%s: a stream that ended well reported %v", tc.name, sr.Err())
		case tc.wantType != "" && !errors.As(sr.Err(), &fe):
			t.Errorf("%s: no error trailers after a failed stream (err %v): Lambda would count a success", tc.name, sr.Err())
		case tc.wantType != "":
			var doc struct {
				Type    string `json:"errorType"`
				Message string `json:"errorMessage"`
			}
			if err := json.Unmarshal(fe.Body, &doc); err != nil {
				t.Errorf("%s: the error body %q (base64-decoded) is not the error document: %v", tc.name, fe.Body, err)
			}
			if fe.Type != tc.wantType || doc.Type != tc.wantType || !strings.Contains(doc.Message, "ended after 4 bytes with "+tc.wantWhat) {
				t.Errorf("%s: trailers type %q, body %s; want type %s and a message saying 4 bytes were sent", tc.name, fe.Type, fe.Body, tc.wantType)
			}
			// Without App.Debug the error's own text stays in the log.
			if strings.Contains(string(fe.Body), "database") || strings.Contains(string(fe.Body), "index out of range") {
				t.Errorf("%s: the error body %s holds the error's text, which only App.Debug shows", tc.name, fe.Body)
			}
		}

		out := waitOutput(t, fn.Output, tc.name+"'s metrics line", func(s string) bool { return len(emfLines(s)) > before })
		metrics, root := parseEMF(t, emfLines(out)[before])
		if got := metrics["Streamed_"+tc.name]; len(got.values) != 1 || got.values[0] != 1 || got.unit != "Count" {
			t.Errorf("%s: metric Streamed_%s = %+v in %v, want 1 Count", tc.name, tc.name, got, root)
		}
		if _, cold := metrics["ColdStart"]; cold != (i == 0) {
			t.Errorf("%s: ColdStart in the line: %v, want it in the first invocation's only", tc.name, cold)
		}
	}
}

// TestStreamFailureLocal: on framework local's server, a stream whose
// body fails after its first byte (an error, a panic) is cut as a
// deployed one is: the client gets the status and the part sent, then the
// connection ends without the chunked body's last chunk, which a Go
// client reads as io.ErrUnexpectedEOF, never as a complete answer. A
// stream that ends well ends cleanly.
func TestStreamFailureLocal(t *testing.T) {
	a := framework.New("t")
	a.ErrorLog = io.Discard
	for name, end := range map[string]func() error{
		"ok":     func() error { return nil },
		"broke":  func() error { return errors.New("the feed broke") },
		"panics": func() error { panic("index out of range") },
	} {
		a.Route("/"+name, func(r *framework.Request) (*framework.Response, error) {
			return framework.Stream("text/plain", func(w *framework.StreamWriter) error {
				if _, err := w.WriteString("part"); err != nil {
					return err
				}
				return end()
			}), nil
		}, framework.Streaming())
	}
	for _, door := range []string{"rest", "function_url"} {
		base := streamServer(t, a, door)
		for _, name := range []string{"ok", "broke", "panics", "ok"} {
			resp, err := http.Get(base + "/" + name)
			if err != nil {
				t.Fatalf("%s %s: %v", door, name, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			wantErr := error(nil)
			if name != "ok" {
				wantErr = io.ErrUnexpectedEOF
			}
			if resp.StatusCode != 200 || string(body) != "part" || !errors.Is(err, wantErr) {
				t.Errorf("%s %s: %d %q, read error %v; want 200, part, read error %v", door, name, resp.StatusCode, body, err, wantErr)
			}
		}
	}
}
