package framework

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Streamed responses: a route declared with Streaming may answer with a
// Response whose Body is a StreamBody. The status and headers are sent
// first, then each Write as it is made. The answer goes through the one
// request pipeline (middleware see the Response, CORS and
// SetResponseHeader headers are added); the front door's writer
// (local.go's server, the Lambda streaming answer) runs the body.

// Streaming declares that the route may stream its response body (a
// Response whose Body is a StreamBody, as Stream and EventStream make).
// Deployed, the route needs a front door that streams: a function URL
// (its invoke mode becomes RESPONSE_STREAM) or a REST API (the route's
// integration streams); an HTTP API cannot stream, and synth refuses it.
//
// contentTypes are the content types the route streams
// (Streaming("text/event-stream") for EventStream, Streaming("text/csv")
// for a Stream of CSV): `framework openapi` lists them as the route's
// answers, so that clients know what to accept. Without them the
// document says only that the answer is streamed.
func Streaming(contentTypes ...string) RouteOption {
	return RouteOption{func(r *route) {
		r.streaming = true
		r.streamTypes = append(r.streamTypes, contentTypes...)
		streamLambda = startStreaming // links the Lambda streaming answer in
	}}
}

// StreamBody is a Response body written while it is sent: the function is
// called once the status and headers are decided, and each Write on w is
// sent to the client at once. An error it returns before its first Write
// becomes the route's error answer, as a handler's error does (a
// ViewError its status, any other a 500); after the first Write the
// response has started, so the error (or a panic) ends the stream early,
// is logged as an uncaught error and makes the stream look failed:
// deployed, the function reports it in the Runtime API's error trailers
// (Lambda counts the invocation as an error); locally, the connection is
// closed without the chunked body's end, so the client reads an
// incomplete body. Metrics it records (Metrics of w.Request().Context())
// are written when the stream ends. Stop when w.Request().Context() is
// done (the client went away).
type StreamBody func(w *StreamWriter) error

// Stream returns a Response that streams body with the given Content-Type
// (application/octet-stream when empty).
func Stream(contentType string, body func(w *StreamWriter) error) *Response {
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	return &Response{Headers: map[string]string{"Content-Type": contentType}, Body: StreamBody(body)}
}

// Event is one Server-Sent Event. Data may hold several lines; ID and
// Name are left out when empty, Retry when zero.
type Event struct {
	ID    string
	Name  string
	Data  string
	Retry time.Duration
}

// EventStream returns a Response streaming Server-Sent Events
// (text/event-stream, not cached), which a browser's EventSource reads:
// send writes events with EventWriter.Send.
func EventStream(send func(w *EventWriter) error) *Response {
	return &Response{
		Headers: map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
		Body:    StreamBody(func(w *StreamWriter) error { return send(&EventWriter{w: w}) }),
	}
}

// EventWriter sends Server-Sent Events on a stream.
type EventWriter struct{ w *StreamWriter }

// Send sends ev as one write: the client receives it at once.
func (e *EventWriter) Send(ev Event) error {
	var b strings.Builder
	if ev.ID != "" {
		b.WriteString("id: " + oneLine(ev.ID) + "\n")
	}
	if ev.Name != "" {
		b.WriteString("event: " + oneLine(ev.Name) + "\n")
	}
	if ev.Retry > 0 {
		b.WriteString("retry: " + strconv.FormatInt(ev.Retry.Milliseconds(), 10) + "\n")
	}
	for _, line := range strings.Split(strings.ReplaceAll(ev.Data, "\r\n", "\n"), "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	_, err := e.w.WriteString(b.String())
	return err
}

// Writer returns the stream the events are written on.
func (e *EventWriter) Writer() *StreamWriter { return e.w }

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// streamSink is where a front door sends a stream: start sends the status
// and headers, write one piece of the body at once.
type streamSink interface {
	start(res *result) error
	write(p []byte) error
}

// StreamWriter is the body of a streamed response as a StreamBody writes
// it. Each Write is sent to the client at once (it is flushed).
type StreamWriter struct {
	run     *streamRun
	res     *result
	sink    streamSink
	started bool
	err     error // the sink's first error: the client went away
	n       int64
}

// ErrStreamClosed is the error of a Write on a stream whose client went
// away (or whose front door ended it).
var ErrStreamClosed = errors.New("framework: the stream's client is gone")

// Write sends p to the client at once; the first Write (or Flush) sends
// the status and headers first.
func (w *StreamWriter) Write(p []byte) (int, error) {
	if err := w.Flush(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := w.sink.write(p); err != nil {
		w.err = fmt.Errorf("%w: %v", ErrStreamClosed, err)
		return 0, w.err
	}
	w.n += int64(len(p))
	return len(p), nil
}

// WriteString is Write of a string.
func (w *StreamWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// Flush sends the status and headers now, if they are not sent yet.
func (w *StreamWriter) Flush() error {
	if w.err != nil {
		return w.err
	}
	if !w.started {
		w.started = true
		if err := w.sink.start(w.res); err != nil {
			w.err = fmt.Errorf("%w: %v", ErrStreamClosed, err)
			return w.err
		}
	}
	return nil
}

// Request returns the request the stream answers; its Context is done
// when the client goes away.
func (w *StreamWriter) Request() *Request { return w.run.req }

// streamRun is a streamed answer the pipeline decided: what runs its body.
type streamRun struct {
	app   *App
	route *route
	req   *Request
	entry *pathEntry // the path's CORS headers
	body  StreamBody
	// inv is the invocation the stream belongs to, ended (its metrics line
	// written) when the stream ends: its body may record metrics too.
	inv *invocation
}

// streamFailure is the error of a stream whose body failed after its
// first byte: the client got part of the body, and the front door must
// show it failed (the Lambda side's error trailers, the local server's
// cut connection).
type streamFailure struct {
	sent  int64  // the body's bytes sent before the failure
	err   error  // what the body returned, or its panic
	stack []byte // the panic's stack; nil for a returned error
}

func (e *streamFailure) Error() string {
	return fmt.Sprintf("the stream ended after %d bytes: %v", e.sent, e.err)
}

func (e *streamFailure) Unwrap() error { return e.err }

// run runs the body into sink, res giving the status and headers as the
// front door sends them. It returns the answer to send instead when
// the body failed before its first byte, else nil (the stream was sent,
// complete or ended by an error that is logged, which err returns as a
// *streamFailure). Either way the stream's invocation ends before run
// returns: its metrics line is written while the answer is still open.
func (s *streamRun) run(sink streamSink, res *result) (instead *result, err error) {
	defer s.end()
	w := &StreamWriter{run: s, res: res, sink: sink}
	var stack []byte
	func() {
		defer func() {
			if p := recover(); p != nil {
				err, stack = fmt.Errorf("panic: %v", p), debug.Stack()
			}
		}()
		err = s.body(w)
	}()
	if err == nil {
		return nil, w.Flush() // an empty body still gets its status and headers
	}
	if !w.started {
		return s.errorAnswer(err, stack), err
	}
	f := &streamFailure{sent: w.n, err: err, stack: stack}
	if w.err == nil || !errors.Is(err, ErrStreamClosed) {
		s.app.logUncaught(s.route, s.req, f, stack)
	}
	return nil, f
}

// end ends the stream's invocation (writes its metrics line), once.
func (s *streamRun) end() {
	inv := s.inv
	s.inv = nil
	inv.finish()
}

// errorAnswer is the answer to a stream whose body failed before its first
// byte: the error's, with the headers the pipeline gives every answer.
func (s *streamRun) errorAnswer(err error, stack []byte) *result {
	if _, _, ok := asViewError(err); !ok || stack != nil {
		s.app.logUncaught(s.route, s.req, err, stack)
	}
	return s.answerFor(err, stack)
}

// failureAnswer is the answer to a stream collected whole (a front door
// that does not stream) whose body failed after its first byte: nothing
// was sent, so the client gets the error's answer, as before the first
// byte. run logged the error.
func (s *streamRun) failureAnswer(f *streamFailure) *result {
	return s.answerFor(f.err, f.stack)
}

// answerFor is the answer to err (a panic's when stack is not nil): a
// ViewError's status, else a 500, with the headers the pipeline gives
// every answer.
func (s *streamRun) answerFor(err error, stack []byte) *result {
	var res *result
	if ve, code, ok := asViewError(err); ok && stack == nil {
		res = jsonResult(ve.StatusCode(), errorBody{Code: code, Message: ve.Error()})
	} else {
		res = s.app.internalAnswer(s.route, s.req, err, stack)
	}
	if len(s.req.respHeaders) > 0 {
		res = withResponseHeaders(s.req, res)
	}
	if s.entry != nil {
		res = withCORS(s.entry, res)
	}
	if s.req.door != doorREST {
		res = asV2Result(res)
	}
	return res
}

// streamResult completes res, a streamed answer toResult made, once the
// pipeline has it.
func (a *App) streamResult(route *route, req *Request, res *result) *result {
	if !route.streaming {
		return a.internalError(route, req, fmt.Errorf("the handler answered with a streamed body (a StreamBody), but the route is not declared with framework.Streaming(): add that option, so that the deployed front door streams it"), nil)
	}
	res.stream.app, res.stream.route, res.stream.req = a, route, req
	return res
}

// streamLambda serves the API's Lambda events with streamed answers; nil
// unless a route is declared with Streaming, so that an app that does not
// stream links none of it.
var streamLambda func(a *App, h lambdaHandler, stdout io.Writer, accessLog string) bool

// bufferSink collects a stream whole, for a front door that does not
// stream (an HTTP API, framework invoke --local).
type bufferSink struct {
	res *result
	buf bytes.Buffer
}

func (s *bufferSink) start(res *result) error { s.res = res; return nil }
func (s *bufferSink) write(p []byte) error    { s.buf.Write(p); return nil }

// buffered returns res, a streamed answer, with its body collected whole.
func (res *result) buffered() *result {
	sink := &bufferSink{}
	s := res.stream
	instead, err := s.run(sink, res)
	if instead != nil {
		return instead
	}
	var f *streamFailure
	if errors.As(err, &f) {
		// Nothing was sent yet: the client gets the failure's answer, not
		// the part of the body written before it (run logged the error).
		return s.failureAnswer(f)
	}
	out := *sink.res
	out.stream, out.body = nil, sink.buf.Bytes()
	out.binary = !utf8.Valid(out.body)
	return &out
}
