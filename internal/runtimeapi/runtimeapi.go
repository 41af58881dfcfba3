// Package runtimeapi is a local AWS Lambda Runtime API (version
// 2018-06-01), the HTTP API a Lambda function's runtime polls for events.
// It runs a real function binary, built as it would be deployed, on the
// local machine: `framework invoke --local` and the tests that run a
// function do so through it. Start the server, start the binary with
// AWS_LAMBDA_RUNTIME_API set to Server.Addr, and call Server.Invoke.
//
// Only the process given Server.Addr may use the API: the address carries
// a secret of the server's own as its first path segment
// (127.0.0.1:PORT/SECRET), which every runtime client, aws-lambda-go's
// included, puts in front of the paths below since it builds its URLs as
// "http://" + AWS_LAMBDA_RUNTIME_API + "/2018-06-01/...". A request
// without the secret (another local process that found the port) is
// answered 403 {"errorType": "AccessDenied"} and touches no event: a
// queued event stays queued for the function.
//
//	s, err := runtimeapi.New()
//	if err != nil { ... }
//	defer s.Close()
//	cmd := exec.Command("./bootstrap")
//	cmd.Env = append(os.Environ(), "AWS_LAMBDA_RUNTIME_API="+s.Addr())
//	...
//	payload, err := s.Invoke(ctx, eventJSON)
//
// The server serves the four endpoints a runtime uses, as Lambda documents
// them:
//
//   - GET /2018-06-01/runtime/invocation/next: long-polls for the next event;
//     answers 200 with the event as the body and the headers
//     Lambda-Runtime-Aws-Request-Id, Lambda-Runtime-Deadline-Ms,
//     Lambda-Runtime-Invoked-Function-Arn and Lambda-Runtime-Trace-Id;
//   - POST /2018-06-01/runtime/invocation/{id}/response: the function's
//     result, answered 202; 413 when it exceeds MaxResponseBytes;
//   - POST /2018-06-01/runtime/invocation/{id}/error: the function's error
//     ({"errorMessage", "errorType", "stackTrace"}), answered 202;
//   - POST /2018-06-01/runtime/init/error: the runtime failed to start,
//     answered 202; every waiting and later Invoke then fails.
//
// A request for an unknown or already answered request ID gets 400 with the
// body {"errorMessage": ..., "errorType": "InvalidRequestID"}. A response
// whose body fails mid-stream (the runtime sets the trailers
// Lambda-Runtime-Function-Error-Type and Lambda-Runtime-Function-Error-Body)
// counts as an error.
//
// A response posted in the streamed response mode (the header
// Lambda-Runtime-Function-Response-Mode: streaming, a chunked body, as a
// function behind a function URL in RESPONSE_STREAM mode or a REST API's
// streaming integration sends it) reaches InvokeStream's caller piece by
// piece, as the function writes it; Invoke reads it whole.
//
// What it does not do: it runs one function process's worth of invocations
// and never starts, freezes or kills the process; a deadline that passes
// fails the Invoke with ErrTimedOut but the process keeps running. There
// are no extensions or telemetry endpoints.
package runtimeapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// APIVersion is the Runtime API version the server serves, the first
// segment of every path.
const APIVersion = "2018-06-01"

// Limits of a synchronous (RequestResponse) invocation, as Lambda applies them.
const (
	// MaxEventBytes is the largest event Invoke accepts (6 MB).
	MaxEventBytes = 6 * 1024 * 1024
	// MaxResponseBytes is the largest response a function may post (6 MB);
	// a larger one is refused with 413 and fails the invocation.
	MaxResponseBytes = 6 * 1024 * 1024
)

// Header names of the Runtime API.
const (
	// HeaderRequestID carries the invocation's request ID on /next.
	HeaderRequestID = "Lambda-Runtime-Aws-Request-Id"
	// HeaderDeadlineMs carries the invocation's deadline on /next, in Unix milliseconds.
	HeaderDeadlineMs = "Lambda-Runtime-Deadline-Ms"
	// HeaderInvokedFunctionARN carries the invoked function's ARN on /next.
	HeaderInvokedFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	// HeaderTraceID carries the X-Ray trace header on /next.
	HeaderTraceID = "Lambda-Runtime-Trace-Id"
	// HeaderFunctionErrorType is the error type a runtime may send as a
	// header on /error and /init/error, or as a trailer of a failed /response.
	HeaderFunctionErrorType = "Lambda-Runtime-Function-Error-Type"
	// HeaderFunctionErrorBody is the trailer of a failed /response holding
	// the base64-encoded error document.
	HeaderFunctionErrorBody = "Lambda-Runtime-Function-Error-Body"
	// HeaderResponseMode is "streaming" on a /response posted in the
	// streamed response mode.
	HeaderResponseMode = "Lambda-Runtime-Function-Response-Mode"
)

// Errors Invoke returns; test them with errors.Is.
var (
	// ErrClosed is returned by Invoke once Close was called.
	ErrClosed = errors.New("runtimeapi: the local Runtime API is closed")
	// ErrTimedOut is returned by Invoke when the function did not answer
	// before the invocation's deadline.
	ErrTimedOut = errors.New("runtimeapi: the function did not answer before its deadline")
	// ErrEventTooLarge is returned by Invoke for an event over MaxEventBytes.
	ErrEventTooLarge = errors.New("runtimeapi: the event exceeds the 6 MB invocation payload limit")
)

// FunctionError is the error a function's runtime reported for an
// invocation (Init false) or while it initialised (Init true). Invoke
// returns it as its error.
type FunctionError struct {
	// RequestID is the invocation's request ID; empty for an init error.
	RequestID string
	// Init is set when the runtime reported the error on /runtime/init/error.
	Init bool
	// Type is the errorType field, else the Lambda-Runtime-Function-Error-Type header.
	Type string
	// Message is the errorMessage field.
	Message string
	// StackTrace is the stackTrace field as sent, or nil.
	StackTrace json.RawMessage
	// Body is the error document as the runtime posted it.
	Body []byte
}

// Error returns the error's type and message, saying whether it happened at
// init or during which invocation.
func (e *FunctionError) Error() string {
	where := "invocation " + e.RequestID
	if e.Init {
		where = "init"
	}
	return fmt.Sprintf("runtimeapi: the function reported an error during %s: %s: %s", where, e.Type, e.Message)
}

// Option configures a Server.
type Option func(*Server)

// WithTimeout sets the function's timeout: each invocation's deadline is
// its delivery time plus d (default 30 s). Lambda's default is 3 s.
func WithTimeout(d time.Duration) Option { return func(s *Server) { s.timeout = d } }

// WithFunctionARN sets the ARN sent as Lambda-Runtime-Invoked-Function-Arn
// (default arn:aws:lambda:us-east-1:123456789012:function:standin).
func WithFunctionARN(arn string) Option { return func(s *Server) { s.arn = arn } }

// Server is a running local Runtime API on 127.0.0.1. Its methods are
// safe for concurrent use; invocations queue and are delivered in order,
// one per /next poll.
type Server struct {
	timeout time.Duration
	arn     string

	ln     net.Listener
	http   *http.Server
	secret string // the first path segment of every request

	queue  chan *invocation
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	inflight map[string]*invocation // delivered or queued, not yet answered
	initErr  *FunctionError
	initDone chan struct{} // closed when an init error arrives
}

type invocation struct {
	id    string
	event []byte
	done  chan outcome // buffered 1: the first answer wins
	// deadline is set when the event is delivered.
	deadline chan time.Time
}

type outcome struct {
	payload []byte
	err     error
	stream  *StreamResponse // a response in the streamed mode
}

// New starts a local Runtime API on a free port of 127.0.0.1.
func New(opts ...Option) (*Server, error) {
	s := &Server{
		timeout:  30 * time.Second,
		arn:      "arn:aws:lambda:us-east-1:123456789012:function:standin",
		queue:    make(chan *invocation, 1024),
		closed:   make(chan struct{}),
		inflight: map[string]*invocation{},
		initDone: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	if s.timeout <= 0 {
		return nil, fmt.Errorf("runtimeapi: timeout %v is not positive", s.timeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("runtimeapi: listen on 127.0.0.1: %w", err)
	}
	s.ln = ln
	var b [32]byte
	_, _ = rand.Read(b[:])
	s.secret = hex.EncodeToString(b[:])
	mux := http.NewServeMux()
	prefix := "/" + APIVersion + "/runtime/"
	mux.HandleFunc("GET "+prefix+"invocation/next", s.next)
	mux.HandleFunc("POST "+prefix+"invocation/{id}/response", s.response)
	mux.HandleFunc("POST "+prefix+"invocation/{id}/error", s.invocationError)
	mux.HandleFunc("POST "+prefix+"init/error", s.initError)
	s.http = &http.Server{Handler: s.authorize(mux), ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// Addr returns what to pass to the function as AWS_LAMBDA_RUNTIME_API:
// host:port/secret, the secret admitting its requests (see the package
// documentation).
func (s *Server) Addr() string { return s.ln.Addr().String() + "/" + s.secret }

// authorize serves next the requests whose path starts with the server's
// secret, without it; it answers any other 403 before it can take or
// answer an event.
func (s *Server) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seg, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if subtle.ConstantTimeCompare([]byte(seg), []byte(s.secret)) != 1 {
			w.Header().Set("Connection", "close")
			apiError(w, http.StatusForbidden, "AccessDenied",
				"this Runtime API serves only the function process it was started for: the request's path must start with the secret in that process's AWS_LAMBDA_RUNTIME_API (host:port/secret)")
			return
		}
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path, u.RawPath = "/"+rest, ""
		r2.URL = &u
		next.ServeHTTP(w, r2)
	})
}

// Close stops the server. Invocations still waiting fail with ErrClosed and
// a runtime blocked in /next sees its connection closed.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.http.Close()
	})
	return err
}

// InitError returns the error the runtime reported on /runtime/init/error,
// or nil.
func (s *Server) InitError() *FunctionError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initErr
}

// Invoke queues event for the function and waits for its answer: the
// payload it posted to /response, or a *FunctionError when it posted to
// /error (or to /runtime/init/error). It also returns ErrTimedOut when the
// deadline passes, ErrClosed when the server closes, ErrEventTooLarge, or
// ctx's error.
func (s *Server) Invoke(ctx context.Context, event []byte) ([]byte, error) {
	out := s.invoke(ctx, event)
	if out.stream != nil {
		defer out.stream.Close()
		b, err := io.ReadAll(out.stream)
		if err != nil {
			return nil, err
		}
		if err := out.stream.Err(); err != nil {
			return nil, err
		}
		return b, nil
	}
	return out.payload, out.err
}

// InvokeStream is Invoke returning the response as the function posts
// it: a response in the streamed mode is read as it arrives (Mode
// "streaming"), another one whole (Mode "buffered"). Read it to its end,
// or Close it, before the function can take its next event.
func (s *Server) InvokeStream(ctx context.Context, event []byte) (*StreamResponse, error) {
	out := s.invoke(ctx, event)
	if out.stream != nil {
		return out.stream, nil
	}
	if out.err != nil {
		return nil, out.err
	}
	return &StreamResponse{Mode: "buffered", body: bytes.NewReader(out.payload), done: make(chan struct{})}, nil
}

// invoke queues event and waits for the function's outcome.
func (s *Server) invoke(ctx context.Context, event []byte) outcome {
	o, err := s.invokeOutcome(ctx, event)
	if err != nil {
		return outcome{err: err}
	}
	return o
}

func (s *Server) invokeOutcome(ctx context.Context, event []byte) (outcome, error) {
	if len(event) > MaxEventBytes {
		return outcome{}, fmt.Errorf("%w: %d bytes", ErrEventTooLarge, len(event))
	}
	inv := &invocation{
		id:       newRequestID(),
		event:    append([]byte(nil), event...),
		done:     make(chan outcome, 1),
		deadline: make(chan time.Time, 1),
	}
	s.mu.Lock()
	if ie := s.initErr; ie != nil {
		s.mu.Unlock()
		return outcome{}, ie
	}
	s.inflight[inv.id] = inv
	s.mu.Unlock()
	defer s.forget(inv.id)

	select {
	case s.queue <- inv:
	case <-s.closed:
		return outcome{}, ErrClosed
	case <-ctx.Done():
		return outcome{}, fmt.Errorf("runtimeapi: queueing invocation %s: %w", inv.id, ctx.Err())
	}

	var timer <-chan time.Time
	for {
		select {
		case out := <-inv.done:
			return out, nil
		case d := <-inv.deadline:
			timer = time.After(time.Until(d))
		case <-timer:
			// The function may have answered at the same moment.
			select {
			case out := <-inv.done:
				return out, nil
			default:
			}
			return outcome{}, fmt.Errorf("%w: invocation %s, timeout %v", ErrTimedOut, inv.id, s.timeout)
		case <-s.initDone:
			return outcome{}, s.InitError()
		case <-s.closed:
			return outcome{}, ErrClosed
		case <-ctx.Done():
			return outcome{}, fmt.Errorf("runtimeapi: waiting for invocation %s: %w", inv.id, ctx.Err())
		}
	}
}

func (s *Server) forget(id string) {
	s.mu.Lock()
	delete(s.inflight, id)
	s.mu.Unlock()
}

// connKey is the request context key of the request's connection.
type connKey struct{}

// next answers GET /runtime/invocation/next with the next queued event,
// waiting for one as long as it takes.
func (s *Server) next(w http.ResponseWriter, r *http.Request) {
	for {
		var inv *invocation
		select {
		case inv = <-s.queue:
		case <-s.closed:
			apiError(w, http.StatusInternalServerError, "ServiceClosed", "the local Runtime API is closing")
			return
		case <-r.Context().Done():
			return
		}
		s.mu.Lock()
		_, live := s.inflight[inv.id]
		s.mu.Unlock()
		if !live {
			continue // its Invoke gave up while it was queued
		}
		if r.Context().Err() != nil || peerClosed(r.Context().Value(connKey{})) {
			// The runtime went away (a killed process): keep the event
			// for the next poll instead of writing it to a dead connection.
			// The context alone can say so too late: it is cancelled by a
			// goroutine that may not have run yet when a restarted
			// function's first event arrives; the socket already knows.
			go func() {
				select {
				case s.queue <- inv:
				case <-s.closed:
				}
			}()
			return
		}
		deadline := time.Now().Add(s.timeout)
		inv.deadline <- deadline
		h := w.Header()
		h.Set(HeaderRequestID, inv.id)
		h.Set(HeaderDeadlineMs, strconv.FormatInt(deadline.UnixMilli(), 10))
		h.Set(HeaderInvokedFunctionARN, s.arn)
		h.Set(HeaderTraceID, "Root=1-"+inv.id[:8]+"-"+strings.ReplaceAll(inv.id[9:], "-", "")+";Sampled=0")
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(inv.event)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(inv.event)
		return
	}
}

// response answers POST /runtime/invocation/{id}/response.
func (s *Server) response(w http.ResponseWriter, r *http.Request) {
	inv, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if r.Header.Get(HeaderResponseMode) == "streaming" {
		sr := &StreamResponse{Mode: "streaming", ContentType: r.Header.Get("Content-Type"), Chunked: slices.Contains(r.TransferEncoding, "chunked"),
			id: inv.id, req: r, body: r.Body, done: make(chan struct{})}
		s.finish(inv, outcome{stream: sr})
		select {
		case <-sr.done:
		case <-s.closed:
		}
		accepted(w)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes+1))
	if err != nil {
		apiError(w, http.StatusBadRequest, "InvalidRequest", "reading the response body: "+err.Error())
		return
	}
	if len(body) > MaxResponseBytes {
		_, _ = io.Copy(io.Discard, r.Body)
		s.finish(inv, outcome{err: &FunctionError{RequestID: inv.id, Type: "Function.ResponseSizeTooLarge",
			Message: fmt.Sprintf("Response payload size exceeded maximum allowed payload size (%d bytes).", MaxResponseBytes)}})
		apiError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge",
			fmt.Sprintf("the response exceeds %d bytes", MaxResponseBytes))
		return
	}
	// A body that failed mid-stream carries the error in trailers.
	if typ := r.Trailer.Get(HeaderFunctionErrorType); typ != "" {
		doc, _ := base64.StdEncoding.DecodeString(r.Trailer.Get(HeaderFunctionErrorBody))
		fe := parseFunctionError(doc, typ)
		fe.RequestID = inv.id
		s.finish(inv, outcome{err: fe})
	} else {
		s.finish(inv, outcome{payload: body})
	}
	accepted(w)
}

// StreamResponse is a function's response as InvokeStream returns it.
type StreamResponse struct {
	// Mode is "streaming" for a response posted in the streamed response
	// mode, "buffered" for another.
	Mode string
	// ContentType is the Content-Type the function posted with.
	ContentType string
	// Chunked is set when the body came with chunked transfer encoding.
	Chunked bool

	id   string
	req  *http.Request // nil for a buffered response
	body io.Reader
	done chan struct{}
	once sync.Once
	err  error
}

// Read reads the response's body as the function writes it.
func (r *StreamResponse) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if err == io.EOF && r.req != nil {
		// The error trailers of a response that failed mid-stream are
		// known once the body is read.
		if typ := r.req.Trailer.Get(HeaderFunctionErrorType); typ != "" && r.err == nil {
			doc, _ := base64.StdEncoding.DecodeString(r.req.Trailer.Get(HeaderFunctionErrorBody))
			fe := parseFunctionError(doc, typ)
			fe.RequestID = r.id
			r.err = fe
		}
		r.Close()
	}
	return n, err
}

// Err returns the error the function reported after the body it sent
// (the trailers of a response that failed mid-stream), once Read has
// returned io.EOF; nil otherwise.
func (r *StreamResponse) Err() error { return r.err }

// Close ends the reading; the function can then take its next event.
func (r *StreamResponse) Close() error {
	r.once.Do(func() { close(r.done) })
	return nil
}

// invocationError answers POST /runtime/invocation/{id}/error.
func (s *Server) invocationError(w http.ResponseWriter, r *http.Request) {
	inv, ok := s.lookup(w, r)
	if !ok {
		return
	}
	doc, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes))
	if err != nil {
		apiError(w, http.StatusBadRequest, "InvalidRequest", "reading the error body: "+err.Error())
		return
	}
	fe := parseFunctionError(doc, r.Header.Get(HeaderFunctionErrorType))
	fe.RequestID = inv.id
	s.finish(inv, outcome{err: fe})
	accepted(w)
}

// initError answers POST /runtime/init/error.
func (s *Server) initError(w http.ResponseWriter, r *http.Request) {
	doc, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes))
	if err != nil {
		apiError(w, http.StatusBadRequest, "InvalidRequest", "reading the error body: "+err.Error())
		return
	}
	fe := parseFunctionError(doc, r.Header.Get(HeaderFunctionErrorType))
	fe.Init = true
	s.mu.Lock()
	if s.initErr != nil {
		s.mu.Unlock()
		apiError(w, http.StatusForbidden, "InvalidStateTransition", "an init error was already reported")
		return
	}
	s.initErr = fe
	close(s.initDone)
	s.mu.Unlock()
	accepted(w)
}

// lookup finds the in-flight invocation named in the path, answering 400
// when there is none.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (*invocation, bool) {
	id := r.PathValue("id")
	s.mu.Lock()
	inv, ok := s.inflight[id]
	s.mu.Unlock()
	if !ok {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxResponseBytes))
		apiError(w, http.StatusBadRequest, "InvalidRequestID", fmt.Sprintf("no invocation in progress with request ID %q", id))
		return nil, false
	}
	return inv, true
}

// finish records the answer of inv; only the first answer counts, and the
// request ID is then unknown to the API.
func (s *Server) finish(inv *invocation, out outcome) {
	s.mu.Lock()
	delete(s.inflight, inv.id)
	s.mu.Unlock()
	select {
	case inv.done <- out:
	default:
	}
}

// parseFunctionError reads an error document; a body that is not the
// documented JSON is kept whole as the message.
func parseFunctionError(doc []byte, headerType string) *FunctionError {
	fe := &FunctionError{Body: doc, Type: headerType}
	var v struct {
		Message    string          `json:"errorMessage"`
		Type       string          `json:"errorType"`
		StackTrace json.RawMessage `json:"stackTrace"`
	}
	if err := json.Unmarshal(doc, &v); err == nil {
		fe.Message, fe.StackTrace = v.Message, v.StackTrace
		if v.Type != "" {
			fe.Type = v.Type
		}
	} else {
		fe.Message = string(doc)
	}
	if fe.Type == "" {
		fe.Type = "Unhandled"
	}
	return fe
}

func accepted(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"status":"OK"}`))
}

func apiError(w http.ResponseWriter, status int, typ, msg string) {
	b, _ := json.Marshal(map[string]string{"errorMessage": msg, "errorType": typ})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// newRequestID returns a random request ID in Lambda's UUID form.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
