package runtimeapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdacontext"
)

// helperEnv makes the test binary run as a Lambda function (see TestMain):
// the real aws-lambda-go runtime loop polling the local Runtime API.
const helperEnv = "LAMBDASTANDIN_TEST_FUNCTION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		lambda.Start(helperFunction)
		os.Exit(3) // lambda.Start does not return
	}
	os.Exit(m.Run())
}

type helperEvent struct {
	Op      string `json:"op"`
	Value   string `json:"value"`
	SleepMs int    `json:"sleepMs"`
}

// helperFunction is the function run by the helper process.
func helperFunction(ctx context.Context, ev helperEvent) (map[string]any, error) {
	lc, _ := lambdacontext.FromContext(ctx)
	deadline, _ := ctx.Deadline()
	switch ev.Op {
	case "echo":
		return map[string]any{"echo": ev.Value, "requestId": lc.AwsRequestID, "arn": lc.InvokedFunctionArn, "deadlineMs": deadline.UnixMilli()}, nil
	case "fail":
		return nil, errors.New("told to fail: " + ev.Value)
	case "panic":
		panic("told to panic")
	case "sleep":
		// A slow handler, on purpose: TestTimeout needs one that outlives
		// its deadline.
		time.Sleep(time.Duration(ev.SleepMs) * time.Millisecond)
		return map[string]any{"slept": ev.SleepMs}, nil
	}
	return nil, fmt.Errorf("unknown op %q", ev.Op)
}

// startFunction runs the test binary as a function against s and returns a
// channel that receives the process's exit error when it ends, and a
// function that kills the process and waits for it.
func startFunction(t *testing.T, s *Server) (<-chan error, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "AWS_LAMBDA_RUNTIME_API="+s.Addr())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the function process: %v", err)
	}
	exited := make(chan error, 1)
	waited := make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(waited)
	}()
	kill := func() {
		_ = cmd.Process.Kill()
		<-waited
	}
	t.Cleanup(func() {
		kill()
		if t.Failed() {
			t.Logf("function stderr:\n%s", stderr.String())
		}
	})
	return exited, kill
}

func newServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func invoke(t *testing.T, s *Server, event string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	return s.Invoke(ctx, []byte(event))
}

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestRealRuntime drives the aws-lambda-go runtime loop through responses,
// returned errors, a malformed event and a panic.
func TestRealRuntime(t *testing.T) {
	const arn = "arn:aws:lambda:eu-west-1:111122223333:function:demo"
	s := newServer(t, WithFunctionARN(arn), WithTimeout(7*time.Second))
	exited, _ := startFunction(t, s)

	before := time.Now()
	payload, err := invoke(t, s, `{"op":"echo","value":"héllo"}`)
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	var got struct {
		Echo       string `json:"echo"`
		RequestID  string `json:"requestId"`
		ARN        string `json:"arn"`
		DeadlineMs int64  `json:"deadlineMs"`
	}
	if err := json.Unmarshal(payload, &got); err != nil {
		t.Fatalf("payload %q: %v", payload, err)
	}
	if got.Echo != "héllo" || got.ARN != arn || !uuidRe.MatchString(got.RequestID) {
		t.Errorf("payload = %+v", got)
	}
	if lo, hi := before.Add(7*time.Second).UnixMilli(), time.Now().Add(7*time.Second).UnixMilli(); got.DeadlineMs < lo || got.DeadlineMs > hi {
		t.Errorf("deadline %d not within [%d, %d] (delivery time + timeout)", got.DeadlineMs, lo, hi)
	}

	_, err = invoke(t, s, `{"op":"fail","value":"x"}`)
	var fe *FunctionError
	if !errors.As(err, &fe) || fe.Type != "errorString" || fe.Message != "told to fail: x" || fe.Init || !uuidRe.MatchString(fe.RequestID) {
		t.Errorf("returned error: err = %#v", err)
	}

	_, err = invoke(t, s, `not json`)
	if !errors.As(err, &fe) || fe.Type != "SyntaxError" {
		t.Errorf("malformed event: err = %v", err)
	}

	// The process keeps serving after errors.
	if payload, err := invoke(t, s, `{"op":"echo","value":"again"}`); err != nil || !strings.Contains(string(payload), `"echo":"again"`) {
		t.Errorf("echo after errors = %s, %v", payload, err)
	}

	_, err = invoke(t, s, `{"op":"panic"}`)
	if !errors.As(err, &fe) || fe.Type != "string" || fe.Message != "told to panic" || len(fe.StackTrace) < 3 {
		t.Errorf("panic: err = %v (stack %s)", err, fe.StackTrace)
	}
	select {
	case err := <-exited:
		if err == nil {
			t.Error("the function exited 0 after a panic; aws-lambda-go exits non-zero")
		}
	case <-time.After(10 * time.Second):
		t.Error("the function process did not exit after a panic")
	}
}

// TestRestart: a function process killed while it polls, and a new one
// started, as Lambda does after a crash: the next event reaches the new one.
func TestRestart(t *testing.T) {
	s := newServer(t, WithTimeout(5*time.Second))
	for i := range 3 {
		_, stop := startFunction(t, s)
		payload, err := invoke(t, s, fmt.Sprintf(`{"op":"echo","value":"run %d"}`, i))
		if err != nil || !strings.Contains(string(payload), fmt.Sprintf(`"echo":"run %d"`, i)) {
			t.Fatalf("process %d: %s, %v", i, payload, err)
		}
		stop()
	}
}

func TestTimeout(t *testing.T) {
	s := newServer(t, WithTimeout(300*time.Millisecond))
	startFunction(t, s)
	start := time.Now()
	_, err := invoke(t, s, `{"op":"sleep","sleepMs":3000}`)
	if !errors.Is(err, ErrTimedOut) {
		t.Fatalf("err = %v, want ErrTimedOut", err)
	}
	if d := time.Since(start); d > 2900*time.Millisecond {
		t.Errorf("Invoke returned after %v, not at the deadline", d)
	}
}

// rawRuntime is a hand-written runtime client for protocol edge cases.
type rawRuntime struct {
	t    *testing.T
	base string
}

func newRaw(t *testing.T, s *Server) *rawRuntime {
	return &rawRuntime{t: t, base: "http://" + s.Addr() + "/" + APIVersion + "/runtime/"}
}

// next polls for an event and returns its request ID, headers and body.
func (r *rawRuntime) next() (string, http.Header, []byte) {
	r.t.Helper()
	resp, err := http.Get(r.base + "invocation/next")
	if err != nil {
		r.t.Fatalf("GET next: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		r.t.Fatalf("GET next = %d %s", resp.StatusCode, body)
	}
	return resp.Header.Get(HeaderRequestID), resp.Header, body
}

// post sends body to path and returns the status and the decoded errorType.
func (r *rawRuntime) post(path string, body io.Reader, hdr http.Header) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest("POST", r.base+path, body)
	if err != nil {
		r.t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if tr, ok := body.(*trailerReader); ok {
		req.Trailer = tr.trailer
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var e struct {
		Type string `json:"errorType"`
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &e)
	return resp.StatusCode, e.Type
}

// trailerReader fails mid-stream the way aws-lambda-go reports a response
// reader error: through the error trailers.
type trailerReader struct {
	r       io.Reader
	trailer http.Header
}

func (tr *trailerReader) Read(p []byte) (int, error) {
	n, err := tr.r.Read(p)
	if err == io.EOF {
		tr.trailer.Set(HeaderFunctionErrorType, "ReaderBroke")
		tr.trailer.Set(HeaderFunctionErrorBody, base64.StdEncoding.EncodeToString([]byte(`{"errorMessage":"disk on fire","errorType":"ReaderBroke"}`)))
	}
	return n, err
}

type invokeResult struct {
	payload []byte
	err     error
}

func invokeAsync(t *testing.T, s *Server, ctx context.Context, event string) <-chan invokeResult {
	ch := make(chan invokeResult, 1)
	go func() {
		p, err := s.Invoke(ctx, []byte(event))
		ch <- invokeResult{p, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan invokeResult) invokeResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("Invoke did not return")
		return invokeResult{}
	}
}

func TestProtocol(t *testing.T) {
	cases := []struct {
		name string
		// runtime acts as the function for one invocation of event "{}".
		runtime func(t *testing.T, rt *rawRuntime)
		check   func(t *testing.T, res invokeResult)
	}{
		{
			name: "next headers and response",
			runtime: func(t *testing.T, rt *rawRuntime) {
				id, h, body := rt.next()
				if !uuidRe.MatchString(id) || string(body) != "{}" || h.Get("Content-Type") != "application/json" {
					t.Errorf("next: id %q body %q headers %v", id, body, h)
				}
				ms, err := strconv.ParseInt(h.Get(HeaderDeadlineMs), 10, 64)
				if err != nil || ms < time.Now().Add(29*time.Second).UnixMilli() || ms > time.Now().Add(31*time.Second).UnixMilli() {
					t.Errorf("deadline header %q is not now + 30 s", h.Get(HeaderDeadlineMs))
				}
				if !strings.HasPrefix(h.Get(HeaderInvokedFunctionARN), "arn:aws:lambda:") || !strings.HasPrefix(h.Get(HeaderTraceID), "Root=1-") {
					t.Errorf("ARN %q trace %q", h.Get(HeaderInvokedFunctionARN), h.Get(HeaderTraceID))
				}
				if st, _ := rt.post("invocation/"+id+"/response", strings.NewReader(`"ok"`), nil); st != 202 {
					t.Errorf("response: %d, want 202", st)
				}
				if st, typ := rt.post("invocation/"+id+"/response", strings.NewReader(`"twice"`), nil); st != 400 || typ != "InvalidRequestID" {
					t.Errorf("second response: %d %s, want 400 InvalidRequestID", st, typ)
				}
			},
			check: func(t *testing.T, res invokeResult) {
				if res.err != nil || string(res.payload) != `"ok"` {
					t.Errorf("Invoke = %s, %v", res.payload, res.err)
				}
			},
		},
		{
			name: "unknown request id",
			runtime: func(t *testing.T, rt *rawRuntime) {
				id, _, _ := rt.next()
				if st, typ := rt.post("invocation/not-an-id/response", strings.NewReader(`1`), nil); st != 400 || typ != "InvalidRequestID" {
					t.Errorf("unknown id response: %d %s", st, typ)
				}
				if st, typ := rt.post("invocation/not-an-id/error", strings.NewReader(`{}`), nil); st != 400 || typ != "InvalidRequestID" {
					t.Errorf("unknown id error: %d %s", st, typ)
				}
				rt.post("invocation/"+id+"/response", strings.NewReader(`2`), nil)
			},
			check: func(t *testing.T, res invokeResult) {
				if res.err != nil || string(res.payload) != `2` {
					t.Errorf("Invoke = %s, %v", res.payload, res.err)
				}
			},
		},
		{
			name: "error with header type and non-JSON body",
			runtime: func(t *testing.T, rt *rawRuntime) {
				id, _, _ := rt.next()
				st, _ := rt.post("invocation/"+id+"/error", strings.NewReader("plain words"), http.Header{HeaderFunctionErrorType: {"Runtime.Custom"}})
				if st != 202 {
					t.Errorf("error: %d", st)
				}
			},
			check: func(t *testing.T, res invokeResult) {
				var fe *FunctionError
				if !errors.As(res.err, &fe) || fe.Type != "Runtime.Custom" || fe.Message != "plain words" || string(fe.Body) != "plain words" {
					t.Errorf("Invoke err = %v", res.err)
				}
			},
		},
		{
			name: "response failing mid-stream",
			runtime: func(t *testing.T, rt *rawRuntime) {
				id, _, _ := rt.next()
				tr := &trailerReader{r: strings.NewReader(`{"partial":`), trailer: http.Header{HeaderFunctionErrorType: nil, HeaderFunctionErrorBody: nil}}
				if st, _ := rt.post("invocation/"+id+"/response", tr, nil); st != 202 {
					t.Errorf("response: %d", st)
				}
			},
			check: func(t *testing.T, res invokeResult) {
				var fe *FunctionError
				if !errors.As(res.err, &fe) || fe.Type != "ReaderBroke" || fe.Message != "disk on fire" {
					t.Errorf("Invoke = %s, %v", res.payload, res.err)
				}
			},
		},
		{
			name: "response too large",
			runtime: func(t *testing.T, rt *rawRuntime) {
				id, _, _ := rt.next()
				big := bytes.Repeat([]byte("a"), MaxResponseBytes+1)
				if st, typ := rt.post("invocation/"+id+"/response", bytes.NewReader(big), nil); st != 413 || typ != "RequestEntityTooLarge" {
					t.Errorf("big response: %d %s", st, typ)
				}
			},
			check: func(t *testing.T, res invokeResult) {
				var fe *FunctionError
				if !errors.As(res.err, &fe) || fe.Type != "Function.ResponseSizeTooLarge" {
					t.Errorf("Invoke err = %v", res.err)
				}
			},
		},
		{
			name: "init error",
			runtime: func(t *testing.T, rt *rawRuntime) {
				if st, _ := rt.post("init/error", strings.NewReader(`{"errorMessage":"no config","errorType":"Runtime.ConfigMissing"}`), nil); st != 202 {
					t.Errorf("init error: %d", st)
				}
				if st, typ := rt.post("init/error", strings.NewReader(`{}`), nil); st != 403 || typ != "InvalidStateTransition" {
					t.Errorf("second init error: %d %s", st, typ)
				}
			},
			check: func(t *testing.T, res invokeResult) {
				var fe *FunctionError
				if !errors.As(res.err, &fe) || !fe.Init || fe.Type != "Runtime.ConfigMissing" || fe.Message != "no config" {
					t.Errorf("Invoke err = %v", res.err)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t)
			ch := invokeAsync(t, s, t.Context(), `{}`)
			c.runtime(t, newRaw(t, s))
			c.check(t, wait(t, ch))
		})
	}
}

func TestInitErrorFailsLaterInvokes(t *testing.T) {
	s := newServer(t)
	newRaw(t, s).post("init/error", strings.NewReader(`{"errorMessage":"boom","errorType":"Runtime.ExitError"}`), nil)
	_, err := invoke(t, s, `{}`)
	var fe *FunctionError
	if !errors.As(err, &fe) || !fe.Init || s.InitError() != fe {
		t.Fatalf("Invoke after init error = %v", err)
	}
	if !strings.Contains(err.Error(), "during init: Runtime.ExitError: boom") {
		t.Errorf("message %q", err)
	}
}

func TestInvokeEnds(t *testing.T) {
	t.Run("close", func(t *testing.T) {
		s := newServer(t)
		ch := invokeAsync(t, s, t.Context(), `{}`)
		newRaw(t, s).next() // delivered, never answered
		s.Close()
		if res := wait(t, ch); !errors.Is(res.err, ErrClosed) {
			t.Errorf("err = %v, want ErrClosed", res.err)
		}
		if _, err := s.Invoke(t.Context(), []byte(`{}`)); !errors.Is(err, ErrClosed) {
			t.Errorf("Invoke after Close = %v", err)
		}
	})
	t.Run("context", func(t *testing.T) {
		s := newServer(t)
		ctx, cancel := context.WithCancel(t.Context())
		ch := invokeAsync(t, s, ctx, `{}`)
		cancel()
		if res := wait(t, ch); !errors.Is(res.err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", res.err)
		}
		// The abandoned event is skipped: the runtime gets the next one.
		ch = invokeAsync(t, s, t.Context(), `"second"`)
		rt := newRaw(t, s)
		id, _, body := rt.next()
		if string(body) != `"second"` {
			t.Errorf("next after an abandoned invocation delivered %s", body)
		}
		rt.post("invocation/"+id+"/response", strings.NewReader(`3`), nil)
		if res := wait(t, ch); res.err != nil || string(res.payload) != "3" {
			t.Errorf("Invoke = %s, %v", res.payload, res.err)
		}
	})
	t.Run("event too large", func(t *testing.T) {
		s := newServer(t)
		if _, err := s.Invoke(t.Context(), make([]byte, MaxEventBytes+1)); !errors.Is(err, ErrEventTooLarge) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("bad timeout", func(t *testing.T) {
		if _, err := New(WithTimeout(0)); err == nil {
			t.Error("New(WithTimeout(0)) succeeded")
		}
	})
}

// TestDeadPollerSkipped: a runtime that polled /next and then went away
// (its process killed, its connection closed) does not swallow the next
// event: the event goes to the runtime still polling, at once, instead of
// timing out on a dead connection. Each round closes the dead poller's
// connection right before the event is queued, as a restarted function's
// first invoke does.
func TestDeadPollerSkipped(t *testing.T) {
	s := newServer(t, WithTimeout(2*time.Second))
	path := "/" + APIVersion + "/runtime/invocation/next"
	for round := range 50 {
		dead, err := net.Dial("tcp", s.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(dead, "GET /%s%s HTTP/1.1\r\nHost: %s\r\n\r\n", s.secret, path, s.ln.Addr()); err != nil {
			t.Fatal(err)
		}
		// Let the server take the poll before the connection goes.
		time.Sleep(5 * time.Millisecond)
		dead.Close()

		res := invokeAsync(t, s, t.Context(), fmt.Sprintf(`{"round":%d}`, round))
		live := make(chan error, 1)
		go func() { live <- echoOnce(s) }()
		r := wait(t, res)
		payload, err := r.payload, r.err
		if err != nil || string(payload) != fmt.Sprintf(`{"round":%d}`, round) {
			t.Fatalf("round %d: the event went to the closed connection: %s, %v", round, payload, err)
		}
		if err := <-live; err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// echoOnce polls s once and answers the event with itself, for a goroutine
// (it reports instead of failing the test).
func echoOnce(s *Server) error {
	base := "http://" + s.Addr() + "/" + APIVersion + "/runtime/invocation/"
	resp, err := http.Get(base + "next")
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET next = %d %s", resp.StatusCode, body)
	}
	resp, err = http.Post(base+resp.Header.Get(HeaderRequestID)+"/response", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST response = %d", resp.StatusCode)
	}
	return nil
}

// TestForeignClientRefused: another local process that found the Runtime
// API's port (it has no AWS_LAMBDA_RUNTIME_API of this server) can neither
// take the queued event nor answer one: it gets 403 AccessDenied, and the
// event stays queued for the function process, which gets and answers it.
func TestForeignClientRefused(t *testing.T) {
	s := newServer(t, WithTimeout(10*time.Second))
	res := invokeAsync(t, s, t.Context(), `{"op":"echo","value":"for the function"}`)

	client := &http.Client{Timeout: 10 * time.Second} // a runtime API that hands out the event answers at once
	host := s.ln.Addr().String()
	for _, c := range []struct{ method, path string }{
		{"GET", "/" + APIVersion + "/runtime/invocation/next"},
		{"GET", "/" + strings.Repeat("0", len(s.secret)) + "/" + APIVersion + "/runtime/invocation/next"},
		{"GET", "/" + s.secret[:len(s.secret)-1] + "/" + APIVersion + "/runtime/invocation/next"},
		{"POST", "/" + APIVersion + "/runtime/invocation/any-id/response"},
		{"POST", "/" + APIVersion + "/runtime/init/error"},
	} {
		req, _ := http.NewRequest(c.method, "http://"+host+c.path, strings.NewReader("{}"))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"errorType":"AccessDenied"`) {
			t.Errorf("a foreign %s %s = %d %s, want 403 AccessDenied", c.method, c.path, resp.StatusCode, body)
		}
	}
	if ie := s.InitError(); ie != nil {
		t.Errorf("a foreign init error was recorded: %v", ie)
	}

	startFunction(t, s) // the real aws-lambda-go runtime, given s.Addr()
	r := wait(t, res)
	var got map[string]any
	if r.err != nil || json.Unmarshal(r.payload, &got) != nil || got["echo"] != "for the function" {
		t.Fatalf("the function's answer = %s, %v; want its echo of the event", r.payload, r.err)
	}
}
