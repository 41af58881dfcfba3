package framework

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/framework-dev/framework/internal/names"
)

// httpHandler serves the app as the deployed API would at stage: API
// Gateway's own answers (unknown routes, preflights, missing API keys or
// tokens, bodies over maxBodyBytes) given as it gives them, a 400 for a body
// that cannot be read to its end, then the same pipeline the Lambda adapter
// runs.
func (a *App) httpHandler(stage string) http.Handler {
	return a.frontDoorHandler(stage, os.Getenv(names.EnvAPIType))
}

// frontDoorHandler is httpHandler for the front door apiType (config.json's
// api_type; empty or "rest" for the REST API), whose own answers it gives.
func (a *App) frontDoorHandler(stage, apiType string) http.Handler {
	if stage == "" {
		stage = names.DefaultStage
	}
	if apiType == "rest" {
		apiType = doorREST
	}
	return &localHandler{app: a, stage: stage, door: apiType, stall: bodyStallTimeout, slow: bodyReadTimeout,
		timeout: integrationTimeout(apiType), fnTimeout: functionTimeout(), maxHeader: maxHeaderFor(apiType)}
}

// defaultFunctionTimeout is a Lambda function's timeout when the stage
// sets no lambda_timeout (config.DefaultLambdaTimeout).
const defaultFunctionTimeout = 60 * time.Second

// functionTimeout is the timeout of the function serving the routes:
// names.EnvLambdaTimeout, the stage's lambda_timeout, which framework
// local sets; else the default one.
func functionTimeout() time.Duration {
	if n, err := strconv.Atoi(os.Getenv(names.EnvLambdaTimeout)); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return defaultFunctionTimeout
}

type localHandler struct {
	app   *App
	stage string
	door  string // doorREST, doorHTTP or doorFunctionURL
	// stall is how long a body may pause before it is cut, slow how long
	// it may take in all (bodyStallTimeout, bodyReadTimeout).
	stall, slow time.Duration
	// timeout is the front door's integration timeout, 0 for none: past
	// it the client gets the door's answer (timedOut) while the handler
	// runs on, as Lambda's does.
	timeout time.Duration
	// fnTimeout is the function's own timeout (lambda_timeout): the
	// handler's context ends then, and when it comes before the
	// integration timeout the client gets the door's answer to a failed
	// function (functionTimedOut), as Lambda ends the invocation.
	fnTimeout time.Duration
	// maxHeader bounds the request line and header values, in bytes; 0
	// for no bound but the server's.
	maxHeader int
}

func (h *localHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t, err := h.app.compiled()
	if err != nil {
		writeResult(w, &result{status: 500, headers: []manifest.HeaderField{{Name: "Content-Type", Value: "text/plain; charset=utf-8"}}, body: []byte(err.Error() + "\n")})
		return
	}
	limit := maxBodyFor(h.door)
	// API Gateway's own error answers carry the REST API's gateway
	// responses' CORS headers.
	gateway := func(res *result) *result {
		if h.door == doorREST {
			return t.withGatewayCORS(res)
		}
		return res
	}
	if h.maxHeader > 0 && headerBytes(r) > h.maxHeader {
		writeResult(w, gateway(headersTooLarge()))
		return
	}
	if r.ContentLength > limit {
		writeResult(w, gateway(tooLarge()))
		return
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		release, refused := takeBody(r) // bounds the bodies held at once
		if refused != nil {
			writeResult(w, refused)
			return
		}
		defer release()
		body, err = readBody(w, r, limit, h.stall, h.slow)
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeResult(w, gateway(tooLarge()))
			return
		}
		if err != nil {
			// Malformed, cut short or stalled: answering nothing would make
			// net/http send an empty 200. What follows on the connection
			// cannot be trusted to start a request, so close it after the
			// answer.
			w.Header().Set("Connection", "close")
			var bt *bodyTimeout
			if errors.As(err, &bt) {
				writeResult(w, gateway(bt.answer()))
			} else {
				writeResult(w, unreadableBody(err))
			}
			return
		}
		if len(body) == 0 {
			body = nil
		}
	}
	box := new(localRequest)
	req := &box.req
	*req = Request{Method: r.Method, RawBody: body, ctx: r.Context(), Path: r.URL.Path, door: h.door}
	req.Headers = make(Headers, len(r.Header)+1)
	for k, v := range r.Header {
		req.Headers[lowerHeaderName(k)] = v
	}
	if h.door != doorREST {
		joinRepeatedHeaders(req.Headers)
	}
	if r.Host != "" {
		box.host[0] = r.Host
		req.Headers["host"] = box.host[:1:1]
	}
	req.QueryParams = parseQuery(r.URL.RawQuery)
	e, args := t.match(r.URL.EscapedPath())
	res, route := gatewayAnswerFor(h.door, e, req)
	if res == nil {
		req.GatewayContext = localContext(r, req, e.pattern, h.stage, route, box)
		// The handler's context is the invocation's, as Lambda gives it:
		// it ends at the function's timeout, not when the client goes
		// away (deployed, the function runs on after the client or the
		// front door gave up). A stream's body, which writes to the
		// client, stops when the client goes away (below).
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), h.fnTimeout)
		defer cancel()
		req.ctx = ctx
		late := startLate(w, h, t)
		// Should a panic get past the pipeline's recovery, the timer
		// must not write to w once ServeHTTP has returned.
		defer func() {
			if late != nil {
				late.settle()
			}
		}()
		if res = h.app.authorizeLocal(r.Context(), e, route, req, args, h.stage); res == nil {
			res = h.app.serveRoute(t, e, route, req, args)
		} else {
			res = gateway(res)
		}
		if late.failed && ctx.Err() != nil {
			// The handler answered once its deadline had passed: Lambda
			// had ended the invocation by then, so its answer is lost.
			late.fire()
		}
		answered := !late.settle()
		late = nil
		if answered {
			if res.stream != nil {
				res.stream.end() // the handler's metrics, its body unrun
			}
			return // the client got the front door's timeout answer
		}
		if res.stream != nil {
			defer context.AfterFunc(r.Context(), cancel)()
		}
	} else {
		res = gateway(res)
	}
	if h.door != doorREST {
		res = asV2Result(res)
	}
	writeResult(w, res)
}

// lateAnswer gives the front door's answer to a request whose function
// outlives its integration timeout, or its own timeout when that comes
// first: the client gets it when the timer fires, and the function's own
// answer, when it comes, is dropped, as API Gateway drops it. One whose
// timer was stopped in time is kept in lateAnswers for the next request,
// its timer reset.
type lateAnswer struct {
	timer *time.Timer // runs fire

	mu     sync.Mutex
	w      http.ResponseWriter
	h      *localHandler
	t      *routeTable
	failed bool // the function's timeout comes first: it failed
	done   bool // one of fire and settle ran
}

var lateAnswers sync.Pool

// startLate arms a lateAnswer for the request w answers.
func startLate(w http.ResponseWriter, h *localHandler, t *routeTable) *lateAnswer {
	l, _ := lateAnswers.Get().(*lateAnswer)
	if l == nil {
		l = new(lateAnswer)
		l.timer = time.AfterFunc(time.Hour, l.fire)
		l.timer.Stop()
	}
	// The front door's integration timeout, unless the function's own
	// ends the invocation first (a function URL has only that one).
	wait, failed := h.timeout, false
	if wait == 0 || h.fnTimeout < wait {
		wait, failed = h.fnTimeout, true
	}
	l.mu.Lock()
	l.w, l.h, l.t, l.failed, l.done = w, h, t, failed, false
	l.mu.Unlock()
	l.timer.Reset(wait)
	return l
}

// fire answers the client with the timeout answer, unless the function
// answered first.
func (l *lateAnswer) fire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	l.done = true
	res := timedOut(l.h.door)
	if l.failed {
		res = functionTimedOut(l.h.door)
	}
	if l.h.door == doorREST {
		res = l.t.withGatewayCORS(res)
	}
	// The connection stays busy until the handler returns: the client
	// must not wait on it for its next request.
	l.w.Header().Set("Connection", "close")
	writeResult(l.w, res)
	_ = http.NewResponseController(l.w).Flush()
}

// settle stops the timer once the function answered and reports whether
// its answer is still to be written (false: fire answered the client).
func (l *lateAnswer) settle() bool {
	stopped := l.timer.Stop()
	l.mu.Lock()
	fired := l.done
	l.w, l.h, l.t, l.done = nil, nil, nil, true
	l.mu.Unlock()
	if stopped {
		lateAnswers.Put(l) // fire will not run for this request
	}
	return !fired
}

// headerBytes is what API Gateway's limit on "the request line and header
// values" counts: the method, target and protocol, and each header's value
// (the Host header's included).
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + len(r.Host)
	for _, vs := range r.Header {
		for _, v := range vs {
			n += len(v)
		}
	}
	return n
}

// localContext fills the request context the way API Gateway would.
func localContext(r *http.Request, req *Request, pattern, stage string, route *route, box *localRequest) RequestContext {
	id, resourceID := newRequestID()
	ctx := RequestContext{
		APIID: "local", HTTPMethod: req.Method, ResourcePath: pattern, Stage: stage,
		RequestID: id, ResourceID: resourceID,
	}
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		box.ip = ip
		ctx.Identity.SourceIP = &box.ip
	}
	if ua := r.UserAgent(); ua != "" {
		box.ua = ua
		ctx.Identity.UserAgent = &box.ua
	}
	if route != nil && route.APIKeyRequired {
		k := req.Headers.Get("x-api-key")
		ctx.Identity.APIKey = &k
	}
	return ctx
}

func writeResult(w http.ResponseWriter, res *result) {
	if res.stream != nil {
		writeStream(w, res)
		return
	}
	setResultHeaders(w.Header(), res)
	w.WriteHeader(res.status)
	if len(res.body) > 0 {
		_, _ = w.Write(res.body)
	}
}

// serve serves the app over HTTP on l until ctx is done, calling ready,
// when not nil, once the server accepts; then it shuts down gracefully,
// letting requests in flight finish (up to 10 s).
func (a *App) serve(ctx context.Context, l net.Listener, stage string, ready func()) error {
	if err := a.Validate(); err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           a.httpHandler(stage),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       bodyReadTimeout,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    1 << 20,
	}
	conns := trackConns(srv, l)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(conns.ln) }()
	if ready != nil {
		ready() // connections queue on l until Serve accepts them
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serving on %s: %w", l.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conns.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}
