package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/framework-dev/framework/manifest"

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
	return &localHandler{app: a, stage: stage, door: apiType}
}

type localHandler struct {
	app   *App
	stage string
	door  string // doorREST, doorHTTP or doorFunctionURL
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
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeResult(w, gateway(tooLarge()))
			return
		}
		if err != nil {
			// Malformed or cut short: answering nothing would make net/http
			// send an empty 200. What follows on the connection cannot be
			// trusted to start a request, so close it after the answer.
			w.Header().Set("Connection", "close")
			writeResult(w, unreadableBody(err))
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
		if res = h.app.authorizeLocal(r.Context(), e, route, req, args, h.stage); res == nil {
			res = h.app.serveRoute(t, e, route, req, args)
		} else {
			res = gateway(res)
		}
	} else {
		res = gateway(res)
	}
	if h.door != doorREST {
		res = asV2Result(res)
	}
	writeResult(w, res)
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
		ReadTimeout:       60 * time.Second,
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
