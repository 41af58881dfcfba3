package framework_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/testutil"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
)

const genericInternalError = `{"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`

// errorLines decodes the error lines in out: each must be one JSON object
// ending its line, with level ERROR. Lines that are not JSON objects
// (aws-lambda-go's own reports, say) are skipped.
func errorLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		if !strings.HasSuffix(line, "}\n") {
			t.Errorf("error line not ended by a newline: %q", line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("error line %q is not JSON: %v", line, err)
			continue
		}
		if rec["level"] != "ERROR" {
			t.Errorf("error line %s: level %v, want ERROR", line, rec["level"])
		}
		if ts, _ := rec["time"].(string); !strings.HasSuffix(ts, "Z") {
			t.Errorf("error line %s: time %v, want UTC like the access lines", line, rec["time"])
		}
		lines = append(lines, rec)
	}
	return lines
}

// crashApp has routes that fail in each way an app can by mistake, and
// one that answers a ViewError on purpose.
func crashApp(debug bool, log io.Writer) *framework.App {
	app := framework.New("crash")
	app.Debug = debug
	app.ErrorLog = log
	app.Use(framework.RequestID(""))
	app.Route("/panic/{id}", func(r *framework.Request, id string) (any, error) {
		panic("boom " + id)
	}, framework.Name("explode"))
	app.Route("/fail", func(r *framework.Request) (any, error) {
		return nil, fmt.Errorf("loading the cart: %w", errors.New("connection refused"))
	}, framework.Name("fail"))
	app.Route("/unencodable", func(r *framework.Request) (any, error) {
		return map[string]any{"c": make(chan int)}, nil
	}, framework.Name("unencodable"))
	app.Route("/latin1", func(r *framework.Request) (any, error) {
		return framework.Response{Body: []byte("caf\xe9"), Headers: map[string]string{"Content-Type": "text/plain"}}, nil
	}, framework.Name("latin1"))
	app.Route("/guarded", func(r *framework.Request) (any, error) { return "never", nil },
		framework.Name("guarded"), framework.WithMiddleware(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
			panic(errors.New("no token store"))
		}))
	app.Route("/missing", func(r *framework.Request) (any, error) {
		return nil, framework.NotFoundError{Message: "no such thing"}
	}, framework.Name("missing"))
	app.OnSchedule("nightly", framework.Rate(24*time.Hour), func(ctx context.Context, ev events.EventBridgeEvent) error {
		panic("nightly boom")
	})
	app.OnSQSMessage("orders", "orders", func(ctx context.Context, ev events.SQSEvent) error {
		return fmt.Errorf("saving %d orders: %w", len(ev.Records), errors.New("table not found"))
	})
	app.OnSQSPartialBatch("payments", "payments", func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "m1"}}}, nil
	})
	return app
}

// TestErrorLineEventError: an event handler's error fails the whole
// invocation, and nothing else says why in the function's log: it writes
// one line naming the handler, its kind and the error, without a stack.
// Items a batch handler reports as failed are its answer: no line.
func TestErrorLineEventError(t *testing.T) {
	var log bytes.Buffer
	app := crashApp(false, &log)
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "lambda-req-2"})
	if _, err := apphook.Of(app).Invoke(ctx, "orders", []byte(`{"Records":[{"messageId":"m1","body":"{}"}]}`)); err == nil {
		t.Fatal("the failing SQS handler did not fail")
	}
	lines := errorLines(t, log.String())
	if len(lines) != 1 {
		t.Fatalf("%d error lines, want 1:\n%s", len(lines), log.String())
	}
	want := map[string]any{"msg": "uncaught error", "request_id": "lambda-req-2", "kind": "sqs", "handler": "orders", "error": "saving 1 orders: table not found"}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("%s = %#v, want %#v", k, lines[0][k], v)
		}
	}
	if _, ok := lines[0]["stack"]; ok {
		t.Errorf("an error (not a panic) wrote a stack: %s", log.String())
	}

	log.Reset()
	out, err := apphook.Of(app).Invoke(ctx, "payments", []byte(`{"Records":[{"messageId":"m1","body":"{}"}]}`))
	if err != nil || !bytes.Contains(out, []byte(`"m1"`)) {
		t.Fatalf("Invoke(payments) = %s, %v", out, err)
	}
	if log.Len() != 0 {
		t.Errorf("a partial batch answer wrote %q", log.String())
	}
}

// TestErrorLine: every uncaught error and panic of a route writes one
// JSON line naming the route, the request and the error (the stack too for
// a panic), through both front doors, with Debug on or off; the answer
// stays what it was; an error the app answers on purpose writes nothing.
func TestErrorLine(t *testing.T) {
	cases := []struct {
		path, msg, resource, handler, err string
		panic                             bool
	}{
		{"/panic/7", "panic", "/panic/{id}", "explode", "panic: boom 7", true},
		{"/fail", "uncaught error", "/fail", "fail", "loading the cart: connection refused", false},
		{"/unencodable", "uncaught error", "/unencodable", "unencodable", "the handler's return value (map[string]interface {}) cannot be encoded as JSON", false},
		{"/latin1", "uncaught error", "/latin1", "latin1", "the response body is not valid UTF-8 text", false},
		{"/guarded", "panic", "/guarded", "guarded", "panic: no token store", true},
	}
	for _, debug := range []bool{false, true} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s debug=%v", c.handler, debug), func(t *testing.T) {
				t.Parallel()
				var log bytes.Buffer
				app := crashApp(debug, &log)
				doors(t, app, "GET", c.path, nil, nil, func(t *testing.T, resp *frameworktest.Response) {
					defer log.Reset()
					body := string(resp.Body)
					if resp.StatusCode != 500 {
						t.Errorf("status %d, want 500", resp.StatusCode)
					}
					if !debug && body != genericInternalError {
						t.Errorf("body %s, want the generic one", body)
					}
					if debug && !strings.HasPrefix(body, fmt.Sprintf("Uncaught error in handler %q for GET %s\n", c.handler, c.resource)) {
						t.Errorf("Debug body %q, want the error and its traceback", body)
					}
					lines := errorLines(t, log.String())
					if len(lines) != 1 {
						t.Fatalf("%d error lines, want 1:\n%s", len(lines), log.String())
					}
					line := lines[0]
					want := map[string]any{"msg": c.msg, "method": "GET", "resource": c.resource, "path": c.path, "handler": c.handler}
					for k, v := range want {
						if line[k] != v {
							t.Errorf("%s = %#v, want %#v", k, line[k], v)
						}
					}
					if id := resp.Header("X-Request-Id"); len(id) != 1 || id[0] == "" || line["api_request_id"] != id[0] {
						t.Errorf("api_request_id = %v, want the request's id %q (X-Request-Id)", line["api_request_id"], id)
					}
					if e, _ := line["error"].(string); !strings.HasPrefix(e, c.err) {
						t.Errorf("error = %q, want it to start with %q", e, c.err)
					}
					stack, hasStack := line["stack"].(string)
					if hasStack != c.panic {
						t.Errorf("stack present = %v, want %v (only panics have one)", hasStack, c.panic)
					}
					if c.panic && (!strings.HasPrefix(stack, "goroutine ") || !strings.Contains(stack, "errorlog_test.go")) {
						t.Errorf("stack %q does not show where the panic happened", stack)
					}
				})
			})
		}
	}
	t.Run("view error writes nothing", func(t *testing.T) {
		var log bytes.Buffer
		app := crashApp(false, &log)
		doors(t, app, "GET", "/missing", nil, nil, func(t *testing.T, resp *frameworktest.Response) {
			if resp.StatusCode != 404 || string(resp.Body) != `{"Code":"NotFoundError","Message":"no such thing"}` {
				t.Errorf("= %d %s, want the 404", resp.StatusCode, resp.Body)
			}
			if log.Len() != 0 {
				t.Errorf("a ViewError wrote %q", log.String())
			}
		})
	})
}

// TestErrorLineLambdaIDs: in Lambda the line carries the Lambda request id
// as request_id, as the access lines do, beside API Gateway's; an event
// handler's panic writes a line of the same shape.
func TestErrorLineLambdaIDs(t *testing.T) {
	var log bytes.Buffer
	app := crashApp(false, &log)
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "lambda-req-1"})
	ev, _ := json.Marshal(frameworktest.New(app).Event("GET", "/panic/1", nil, nil))
	out, err := apphook.Of(app).Invoke(ctx, "", ev)
	if err != nil || !bytes.Contains(out, []byte(`"statusCode":500`)) {
		t.Fatalf("Invoke = %s, %v", out, err)
	}
	lines := errorLines(t, log.String())
	if len(lines) != 1 || lines[0]["request_id"] != "lambda-req-1" || lines[0]["api_request_id"] != "test-request" || lines[0]["msg"] != "panic" {
		t.Fatalf("error lines %v, want one panic line with request_id lambda-req-1 and api_request_id test-request", log.String())
	}

	log.Reset()
	if _, err := apphook.Of(app).Invoke(ctx, "nightly", []byte(`{}`)); err == nil {
		t.Fatal("the panicking event handler did not fail")
	}
	lines = errorLines(t, log.String())
	if len(lines) != 1 {
		t.Fatalf("%d error lines, want 1:\n%s", len(lines), log.String())
	}
	want := map[string]any{"msg": "panic", "request_id": "lambda-req-1", "kind": "schedule", "handler": "nightly", "error": `handler "nightly" panicked: nightly boom`}
	for k, v := range want {
		if lines[0][k] != v {
			t.Errorf("%s = %#v, want %#v", k, lines[0][k], v)
		}
	}
	if s, _ := lines[0]["stack"].(string); !strings.Contains(s, "errorlog_test.go") {
		t.Errorf("stack %q does not show where the panic happened", s)
	}
}

// TestErrorLineHTTPServer: served over HTTP, as `framework local` serves,
// concurrent panics write one whole line each, each naming its own
// request, even to a writer that is not safe for concurrent use.
func TestErrorLineHTTPServer(t *testing.T) {
	var log bytes.Buffer
	srv := httptest.NewServer(apphook.Of(crashApp(false, &log)).Handler(""))
	defer srv.Close()
	const n = 16
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, err := http.Get(fmt.Sprintf("%s/panic/%d", srv.URL, i))
			if err != nil {
				t.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 500 || string(body) != genericInternalError {
				t.Errorf("GET /panic/%d = %d %s", i, resp.StatusCode, body)
			}
			ids[i] = resp.Header.Get("X-Request-Id")
		})
	}
	wg.Wait()
	lines := errorLines(t, log.String())
	if len(lines) != n {
		t.Fatalf("%d error lines for %d panics:\n%s", len(lines), n, log.String())
	}
	byID := map[any]map[string]any{}
	for _, l := range lines {
		byID[l["api_request_id"]] = l
	}
	for i, id := range ids {
		l := byID[id]
		if l == nil || l["error"] != fmt.Sprintf("panic: boom %d", i) || l["path"] != fmt.Sprintf("/panic/%d", i) {
			t.Errorf("request %d (X-Request-Id %q): line %v", i, id, l)
		}
	}
}

// TestErrorLineProcess runs testdata/crashapp built as deployed under the
// local Runtime API, and built as framework local builds it as the local
// server, and reads the lines on its stderr: with no ErrorLog set, an app's
// failures reach the function's log and the terminal of `framework local`.
func TestErrorLineProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an app")
	}
	bin := testutil.BuildBootstrap(t, "testdata/crashapp")
	start := func(t *testing.T, bin string, env ...string) (stdout io.Reader, stderr *lockedbuf.Buffer) {
		t.Helper()
		cmd := exec.Command(bin)
		cmd.Env = build.AppEnviron(os.Environ(), env...)
		stderr = &lockedbuf.Buffer{}
		cmd.Stderr = stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			if t.Failed() {
				t.Logf("stderr:\n%s", stderr.String())
			}
		})
		return stdout, stderr
	}
	// linesBefore waits until out holds a whole line containing marker and
	// returns what was written before that line. The test makes the process
	// write that line after every line it then reads: a process answers a
	// request or an invocation once its handler returned, so what one
	// request writes comes before what the next one writes.
	linesBefore := func(t *testing.T, out *lockedbuf.Buffer, marker string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		written, ok := out.Wait(ctx, func(written string) bool {
			i := strings.Index(written, marker)
			return i >= 0 && strings.Contains(written[i:], "\n")
		})
		if !ok {
			t.Fatalf("no whole line with %q in:\n%s", marker, written)
		}
		i := strings.Index(written, marker)
		return written[:strings.LastIndex(written[:i], "\n")+1]
	}

	t.Run("lambda", func(t *testing.T) {
		s, err := runtimeapi.New(runtimeapi.WithTimeout(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stdoutPipe, stderr := start(t, bin, names.EnvLambdaRuntimeAPI+"="+s.Addr())
		var stdout lockedbuf.Buffer
		go func() { _, _ = io.Copy(&stdout, stdoutPipe) }()
		invoke := func(path, resource string) events.APIGatewayProxyResponse {
			t.Helper()
			ev, _ := json.Marshal(events.APIGatewayProxyRequest{
				HTTPMethod: "GET", Path: path, Resource: resource, PathParameters: map[string]string{"id": "7"},
				RequestContext: events.APIGatewayProxyRequestContext{RequestID: "api-" + path, ResourcePath: resource, HTTPMethod: "GET", Stage: "dev"},
			})
			payload, err := s.Invoke(t.Context(), ev)
			if err != nil {
				t.Fatalf("invoke %s: %v", path, err)
			}
			var resp events.APIGatewayProxyResponse
			if err := json.Unmarshal(payload, &resp); err != nil {
				t.Fatalf("payload %s: %v", payload, err)
			}
			return resp
		}
		if resp := invoke("/panic/7", "/panic/{id}"); resp.StatusCode != 500 || resp.Body != genericInternalError {
			t.Errorf("GET /panic/7 = %d %s", resp.StatusCode, resp.Body)
		}
		linesBefore(t, stderr, "panic: boom 7")
		linesBefore(t, &stdout, `"type":"access"`)
		lines := errorLines(t, stderr.String())
		if len(lines) != 1 {
			t.Fatalf("stderr has %d error lines, want 1:\n%s", len(lines), stderr.String())
		}
		t.Logf("the error line on the function's stderr:\n%s", strings.TrimSpace(stderr.String()))
		access := jsonLinesWith(stdout.String(), `"type":"access"`)
		if len(access) != 1 || access[0]["request_id"] == "" || lines[0]["request_id"] != access[0]["request_id"] {
			t.Errorf("request_id %v, want the Lambda request id of the access line %v", lines[0]["request_id"], access)
		}
		want := map[string]any{"msg": "panic", "api_request_id": "api-/panic/7", "resource": "/panic/{id}", "path": "/panic/7", "handler": "explode", "error": "panic: boom 7"}
		for k, v := range want {
			if lines[0][k] != v {
				t.Errorf("%s = %#v, want %#v", k, lines[0][k], v)
			}
		}
		if s, _ := lines[0]["stack"].(string); !strings.Contains(s, "main.main.func") {
			t.Errorf("stack %q does not show the handler", s)
		}

		before := stderr.String()
		invoke("/fail", "/fail")
		invoke("/missing", "/missing")
		invoke("/panic/8", "/panic/{id}") // its error line follows any of /fail's and /missing's
		lines = errorLines(t, strings.TrimPrefix(linesBefore(t, stderr, `"api_request_id":"api-/panic/8"`), before))
		if len(lines) != 1 || lines[0]["msg"] != "uncaught error" || lines[0]["error"] != "loading the cart: connection refused" || lines[0]["stack"] != nil {
			t.Errorf("after /fail and /missing, the new error lines are %v; want one for /fail, without a stack", lines)
		}
	})

	t.Run("lambda event handler", func(t *testing.T) {
		s, err := runtimeapi.New(runtimeapi.WithTimeout(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stdout, stderr := start(t, bin, names.EnvLambdaRuntimeAPI+"="+s.Addr(), names.EnvHandler+"=nightly")
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		var fe *runtimeapi.FunctionError
		for range 2 { // the second invocation's error line follows anything the first one writes
			if _, err := s.Invoke(t.Context(), []byte(`{"source":"aws.events"}`)); !errors.As(err, &fe) {
				t.Fatalf("invoke = %v, want the function's error", err)
			}
		}
		first := linesBefore(t, stderr, fe.RequestID)
		lines := errorLines(t, first)
		if len(lines) != 1 || lines[0]["kind"] != "schedule" || lines[0]["handler"] != "nightly" || lines[0]["request_id"] == nil || lines[0]["stack"] == nil {
			t.Errorf("error lines %v, want one panic line of the nightly handler with its request id and stack:\n%s", lines, stderr.String())
		}
		// One failure, one line, and that line JSON: not also the Lambda
		// runtime client's own log.Printf of the error payload.
		if n := strings.Count(strings.TrimSpace(first), "\n") + 1; n != 1 {
			t.Errorf("stderr has %d lines for one failed invocation, want the one JSON error line:\n%s", n, first)
		}
	})

	// The deployed build leaves the local server out (run_lambda.go):
	// outside Lambda it says so and exits 2, where it served HTTP.
	t.Run("deployed build outside Lambda", func(t *testing.T) {
		// Before, it served until killed: the deadline only bounds that.
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = build.AppEnviron(os.Environ(), names.EnvAddr+"=127.0.0.1:0")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "built for AWS Lambda (-tags lambda.norpc)") || !strings.Contains(string(out), "run framework local") {
			t.Errorf("the deployed build run outside Lambda: %v, output %q; want exit 2 saying it is built for Lambda and to run framework local", err, out)
		}
		// Its one flag, --framework-manifest, works as package flag read it.
		for _, arg := range []string{"--framework-manifest", "-framework-manifest=true"} {
			out, err := exec.CommandContext(ctx, bin, arg).Output()
			if err != nil || !strings.Contains(string(out), `"routes"`) {
				t.Errorf("%s: %v, output %q; want the manifest", arg, err, out)
			}
		}
		out, err = exec.CommandContext(ctx, bin, "--port", "8001").CombinedOutput()
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "takes one flag, --framework-manifest") {
			t.Errorf("--port 8001: %v, output %q; want exit 2 naming the one flag", err, out)
		}
	})

	// The local server and the readable log format are left out of the
	// deployed build: build crashapp as framework local and invoke --local
	// build it.
	t.Setenv(build.CacheDirEnv, t.TempDir())
	local, err := build.Host(t.Context(), "testdata/crashapp", "app")
	if err != nil {
		t.Fatal(err)
	}

	// Under `framework local` and `invoke --local`, an event handler's
	// process (a host build) runs in Lambda mode with the local format.
	t.Run("lambda event handler, local format", func(t *testing.T) {
		s, err := runtimeapi.New(runtimeapi.WithTimeout(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stdout, stderr := start(t, local, names.EnvLambdaRuntimeAPI+"="+s.Addr(), names.EnvHandler+"=nightly", names.EnvLogFormat+"="+names.LogText)
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		var fe *runtimeapi.FunctionError
		for range 2 {
			if _, err := s.Invoke(t.Context(), []byte(`{"source":"aws.events"}`)); !errors.As(err, &fe) {
				t.Fatalf("invoke = %v, want the function's error", err)
			}
		}
		first := linesBefore(t, stderr, fe.RequestID)
		lines := textLines(t, first)
		if len(lines) != 1 || lines[0].msg != "panic" || lines[0].attrs["kind"] != "schedule" || lines[0].attrs["request_id"] == "" || !strings.Contains(lines[0].stack, "goroutine") {
			t.Errorf("lines %+v, want the nightly handler's panic line with its request id and stack, and nothing else:\n%s", lines, first)
		}
	})

	// serveLocal starts the app as the local server and returns its base URL.
	serveLocal := func(t *testing.T, env ...string) (string, *lockedbuf.Buffer) {
		t.Helper()
		stdout, stderr := start(t, local, append([]string{names.EnvAddr + "=127.0.0.1:0"}, env...)...)
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() {
			t.Fatalf("no output from the local server; stderr %s", stderr.String())
		}
		port, ok := strings.CutPrefix(sc.Text(), "Serving on localhost:")
		if !ok {
			t.Fatalf("first line %q, want Serving on localhost:PORT", sc.Text())
		}
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		return "http://127.0.0.1:" + port, stderr
	}
	get := func(t *testing.T, url string) *http.Response {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}

	t.Run("local", func(t *testing.T) {
		url, stderr := serveLocal(t)
		resp := get(t, url+"/panic/3")
		if resp.StatusCode != 500 {
			t.Errorf("GET /panic/3 = %d", resp.StatusCode)
		}
		// The error line of a second request follows anything the first one writes.
		get(t, url+"/panic/4")
		// RequestLogger's line of /panic/4 comes before its error line.
		first := linesBefore(t, stderr, "path=/panic/4 route=")
		t.Logf("the local server's stderr:\n%s", strings.TrimSpace(first))
		lines := textLines(t, first)
		if len(lines) != 2 {
			t.Fatalf("stderr has %d lines for one request, want the request line and the error line:\n%s", len(lines), first)
		}
		l := lines[1]
		if l.level != "ERROR" || l.msg != "panic" || l.attrs["api_request_id"] != resp.Header.Get("X-Request-Id") || l.attrs["error"] != "panic: boom 3" ||
			!strings.Contains(l.stack, "goroutine") || l.attrs["request_id"] != "" {
			t.Errorf("line %+v, want the panic of request %s with its stack and no Lambda request id", l, resp.Header.Get("X-Request-Id"))
		}
		if r := lines[0]; r.level != "ERROR" || r.msg != "request" || r.attrs["path"] != "/panic/3" || r.attrs["status"] != "500" {
			t.Errorf("RequestLogger's line %+v, want the 500 of /panic/3", r)
		}
	})

	// One format on the local server for RequestLogger's lines, the app's
	// slog and log lines and the error lines (where they were text, text
	// and JSON); colored only when asked (a terminal, no NO_COLOR).
	t.Run("local one format", func(t *testing.T) {
		url, stderr := serveLocal(t)
		get(t, url+"/log")
		get(t, url+"/panic/5")
		get(t, url+"/panic/6")
		out := linesBefore(t, stderr, "path=/panic/6 route=")
		want := []struct{ level, msg, attr, value string }{
			{"INFO", "looking up", "user", "ada lovelace"},
			{"INFO", "plain log line", "", ""},
			{"INFO", "request", "path", "/log"},
			{"ERROR", "request", "path", "/panic/5"},
			{"ERROR", "panic", "error", "panic: boom 5"},
		}
		lines := textLines(t, out)
		if len(lines) != len(want) {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
		}
		for i, w := range want {
			if l := lines[i]; l.level != w.level || l.msg != w.msg || l.attrs[w.attr] != w.value {
				t.Errorf("line %d: %+v, want %s %q with %s=%q", i, l, w.level, w.msg, w.attr, w.value)
			}
		}
		if strings.Contains(out, "\x1b[") {
			t.Errorf("colors on a pipe:\n%q", out)
		}

		url, stderr = serveLocal(t, names.EnvLogFormat+"="+names.LogColor)
		get(t, url+"/panic/7")
		get(t, url+"/panic/8")
		if out := linesBefore(t, stderr, "panic: boom 8"); !strings.Contains(out, "\x1b[31mERROR\x1b[0m panic") {
			t.Errorf("color asked for: %q, want ERROR in red", out)
		}
	})
}

// textLine is one line of the local log format.
type textLine struct {
	level, msg string
	attrs      map[string]string
	stack      string // the indented lines that follow it
}

var (
	textLineRE = regexp.MustCompile(`^\d\d:\d\d:\d\d (INFO |WARN |ERROR|DEBUG) (.*)$`)
	textAttrRE = regexp.MustCompile(` ([A-Za-z_.]+)=("(?:[^"\\]|\\.)*"|\S*)`)
)

// textLines parses out as lines of the local log format, failing the test
// on any other line.
func textLines(t *testing.T, out string) []textLine {
	t.Helper()
	var lines []textLine
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if rest, ok := strings.CutPrefix(line, "    "); ok && len(lines) > 0 {
			lines[len(lines)-1].stack += rest + "\n"
			continue
		}
		m := textLineRE.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %q is not of the local format 15:04:05 LEVEL msg key=value", line)
			continue
		}
		l := textLine{level: strings.TrimSpace(m[1]), attrs: map[string]string{}}
		msg := m[2]
		if loc := textAttrRE.FindStringIndex(msg); loc != nil {
			for _, a := range textAttrRE.FindAllStringSubmatch(msg[loc[0]:], -1) {
				v := a[2]
				if u, err := strconv.Unquote(v); err == nil {
					v = u
				}
				l.attrs[a[1]] = v
			}
			msg = msg[:loc[0]]
		}
		l.msg = msg
		lines = append(lines, l)
	}
	return lines
}

// jsonLinesWith decodes the JSON lines of out that contain marker.
func jsonLinesWith(out, marker string) []map[string]any {
	var recs []map[string]any
	for line := range strings.Lines(out) {
		var rec map[string]any
		if strings.Contains(line, marker) && json.Unmarshal([]byte(line), &rec) == nil {
			recs = append(recs, rec)
		}
	}
	return recs
}
