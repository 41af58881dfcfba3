package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/framework-dev/framework/internal/names"
)

// The Lambda side of streamed responses. A function whose app declares a
// streaming route answers through the Runtime API's streamed response
// mode (the header Lambda-Runtime-Function-Response-Mode: streaming, a
// chunked body) whenever its caller streams:
//
//   - behind a function URL (payload 2.0 events from a .lambda-url.
//     domain), whose invoke mode is then RESPONSE_STREAM: every answer is
//     streamed, a route that does not stream sending its whole body at once;
//   - behind a REST API, the streaming routes' integrations (and only
//     theirs) use the streaming invocation: those answers are streamed,
//     the others are the usual proxy response.
//
// A streamed answer is the HTTP integration response format both front
// doors read: a JSON prelude (the status, headers and cookies), eight NUL
// bytes, then the body as it is written.

// Names of the Runtime API's streamed response mode.
const (
	streamContentType  = "application/vnd.awslambda.http-integration-response"
	headerResponseMode = "Lambda-Runtime-Function-Response-Mode"
)

// startStreaming serves the API function's events as the package comment
// says, and reports false (serving nothing) for another handler's function.
func startStreaming(a *App, h lambdaHandler, stdout io.Writer, accessLog string) bool {
	if h.name != "" && h.name != names.APIHandlerName {
		return false
	}
	var access io.Writer
	if !accessLogOff(accessLog) {
		access = stdout
	}
	// aws-lambda-go posts the answer with its own HTTP client, built on
	// http.DefaultTransport, and sets no response mode: the header is
	// added to the streamed answers' posts to the Runtime API alone.
	http.DefaultTransport = &responseModeTransport{next: http.DefaultTransport, host: os.Getenv(names.EnvLambdaRuntimeAPI)}
	lambda.Start(func(ctx context.Context, payload json.RawMessage) (*lambdaAnswer, error) {
		return a.answerStreaming(ctx, h, payload, access)
	})
	return true
}

// responseModeTransport sets the streamed response mode on the posts of
// streamed answers to the Runtime API.
type responseModeTransport struct {
	next http.RoundTripper
	host string // AWS_LAMBDA_RUNTIME_API: host:port, maybe a path after it
}

func (t *responseModeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Header.Get("Content-Type") == streamContentType && strings.HasPrefix(t.host, r.URL.Host) {
		// A shallow copy with its own header, not r.Clone: the copy must
		// keep r's Trailer map, which aws-lambda-go fills with the error
		// trailers when the body fails, after the post has started (a
		// clone's copy of the map would go out empty).
		r2 := new(http.Request)
		*r2 = *r
		r2.Header = r.Header.Clone()
		r2.Header.Set(headerResponseMode, "streaming")
		r = r2
	}
	return t.next.RoundTrip(r)
}

// lambdaAnswer is what the function answers an invocation: aws-lambda-go
// posts a handler's io.Reader result as it reads it, with its
// ContentType, when the value cannot be encoded as JSON.
type lambdaAnswer struct {
	r           io.Reader
	contentType string
}

func (l *lambdaAnswer) Read(p []byte) (int, error) { return l.r.Read(p) }
func (l *lambdaAnswer) ContentType() string        { return l.contentType }

// MarshalJSON fails, so that aws-lambda-go sends the answer as it reads it.
func (l *lambdaAnswer) MarshalJSON() ([]byte, error) {
	return nil, errors.New("a streamed answer is read, not encoded")
}

// answerStreaming answers one event of the API's function: streamed when
// its caller streams, else as invoke.go answers it.
func (a *App) answerStreaming(ctx context.Context, h lambdaHandler, payload []byte, access io.Writer) (*lambdaAnswer, error) {
	if isV2Event(payload) {
		var ev events.APIGatewayV2HTTPRequest
		if json.Unmarshal(payload, &ev) == nil && eventDoor(&ev) == doorFunctionURL {
			return a.streamEvent(ctx, access, func() (*result, *events.APIGatewayProxyRequest) {
				_, resource, _ := strings.Cut(ev.RouteKey, " ")
				if t, err := a.compiled(); err == nil && resource == "" {
					if e, _ := t.match(ev.RawPath); e != nil {
						resource = e.pattern
					}
				}
				return a.resultV2(ctx, ev), &events.APIGatewayProxyRequest{HTTPMethod: ev.RequestContext.HTTP.Method, Resource: resource, Path: ev.RawPath,
					RequestContext: events.APIGatewayProxyRequestContext{RequestID: ev.RequestContext.RequestID}}
			}, v2Prelude), nil
		}
	} else {
		var ev events.APIGatewayProxyRequest
		if json.Unmarshal(payload, &ev) == nil && a.streamsREST(&ev) {
			return a.streamEvent(ctx, access, func() (*result, *events.APIGatewayProxyRequest) {
				return a.resultREST(ctx, ev), &ev
			}, restPrelude), nil
		}
	}
	out, err := h.Invoke(ctx, payload)
	if err != nil {
		return nil, err
	}
	return &lambdaAnswer{r: bytes.NewReader(out), contentType: "application/json"}, nil
}

// streamsREST reports whether a REST API event is for a streaming route,
// whose integration streams.
func (a *App) streamsREST(ev *events.APIGatewayProxyRequest) bool {
	t, err := a.compiled()
	if err != nil {
		return false
	}
	e, _ := t.eventEntry(ev)
	if e == nil {
		return false
	}
	r := e.methods[strings.ToUpper(ev.HTTPMethod)]
	return r != nil && r.streaming
}

// streamEvent answers an event in the streamed response mode: serve runs
// the pipeline, prelude encodes the status and headers.
func (a *App) streamEvent(ctx context.Context, access io.Writer, serve func() (*result, *events.APIGatewayProxyRequest), prelude func(*result) []byte) *lambdaAnswer {
	start := time.Now()
	id := beginInvocation(ctx)
	res, line := serve()
	pr, pw := io.Pipe()
	sink := &preludeSink{w: pw, prelude: prelude}
	go func() {
		status := res.status
		var err error
		if res.stream != nil {
			var instead *result
			instead, err = res.stream.run(sink, res)
			if instead != nil {
				status, err = instead.status, sink.whole(instead)
			}
		} else {
			err = sink.whole(res)
		}
		if err != nil && sink.started {
			// The stream ended early: aws-lambda-go posts the error in
			// the Runtime API's error trailers, and Lambda counts the
			// invocation as failed.
			pw.CloseWithError(a.streamTrailerError(err))
		} else {
			pw.Close()
		}
		setCurrent("")
		if access != nil {
			writeAccessLine(access, start, time.Since(start), id, line, status)
		}
	}()
	return &lambdaAnswer{r: pr, contentType: streamContentType}
}

// preludeSink writes a streamed answer in the HTTP integration response
// format.
type preludeSink struct {
	w       io.Writer
	prelude func(*result) []byte
	started bool
}

func (s *preludeSink) start(res *result) error {
	s.started = true
	_, err := s.w.Write(append(s.prelude(res), 0, 0, 0, 0, 0, 0, 0, 0))
	return err
}

func (s *preludeSink) write(p []byte) error {
	_, err := s.w.Write(p)
	return err
}

// whole sends an answer that does not stream: its prelude and its body,
// as is (a streamed body is never base64-encoded).
func (s *preludeSink) whole(res *result) error {
	if err := s.start(res); err != nil {
		return err
	}
	if len(res.body) == 0 {
		return nil
	}
	return s.write(res.body)
}

// restPrelude is the prelude of a REST API's streaming integration.
func restPrelude(res *result) []byte {
	p := struct {
		StatusCode        int                 `json:"statusCode"`
		MultiValueHeaders map[string][]string `json:"multiValueHeaders,omitempty"`
	}{StatusCode: res.status, MultiValueHeaders: make(map[string][]string, len(res.headers))}
	for _, h := range res.headers {
		p.MultiValueHeaders[h.Name] = append(p.MultiValueHeaders[h.Name], h.Value)
	}
	b, _ := json.Marshal(p)
	return b
}

// v2Prelude is the prelude of a function URL in RESPONSE_STREAM mode.
func v2Prelude(res *result) []byte {
	out := encodeV2(&result{status: res.status, headers: res.headers})
	p := struct {
		StatusCode int               `json:"statusCode"`
		Headers    map[string]string `json:"headers,omitempty"`
		Cookies    []string          `json:"cookies,omitempty"`
	}{out.StatusCode, out.Headers, out.Cookies}
	b, _ := json.Marshal(p)
	return b
}

// Error types of the Runtime API's error trailers (the header
// Lambda-Runtime-Function-Error-Type and the errorType of the base64 JSON
// document in Lambda-Runtime-Function-Error-Body), in the
// <category.reason> form AWS's custom runtime guide recommends.
const (
	streamErrorType = "Function.StreamError" // the body returned an error
	streamPanicType = "Function.StreamPanic" // the body panicked
)

// streamTrailerError is the error a streamed answer's body fails with
// after its first byte, as aws-lambda-go sends it in the error trailers:
// an InvokeResponse_Error, which it sends as is. The message says how much
// was sent; the error's own text only with App.Debug (it may hold what the
// client must not read), as a 500 answer has it; the function's error
// line has it always.
func (a *App) streamTrailerError(err error) error {
	e := messages.InvokeResponse_Error{Type: streamErrorType, Message: "the stream ended early: " + internalErrorMessage}
	var f *streamFailure
	if !errors.As(err, &f) {
		if a.Debug {
			e.Message = err.Error()
		}
		return e
	}
	what := "an uncaught error"
	if f.stack != nil {
		e.Type, what = streamPanicType, "a panic"
	}
	e.Message = fmt.Sprintf("the stream ended after %d bytes with %s (the function's error log line has it)", f.sent, what)
	if a.Debug {
		e.Message = f.Error()
	}
	return e
}
