package local

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/localiam"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/wsgateway"
)

// wsServer is the local WebSocket API: the supervisor serves it on a port
// of its own for as long as `framework local` runs, so that a reload keeps
// the clients connected. Each handshake, message and end of a connection
// is an invocation of the current build's WebSocket handler for the
// route, with the event API Gateway sends (events.APIGatewayWebsocketProxyRequest);
// the management endpoint (/STAGE/@connections/ID: POST sends, DELETE
// closes, GET describes) is what the connections handle calls.
//
// With the IAM check on, the functions reach the management endpoint
// through the check's proxy (wsEndpoint), which refuses the calls of a
// function whose deployed role lacks execute-api:ManageConnections, as
// API Gateway does, and sends the others on with token: the server
// answers any call without it API Gateway's 403, so that no other local
// process may send to, describe or close a connection.
type wsServer struct {
	s      *supervisor
	ln     net.Listener
	srv    *http.Server
	port   int
	apiID  string
	token  string // "" when the IAM check is off: any call is taken
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	api    *manifest.WebSocket
	app    string
	routes map[string]*manifest.Function // by route key
	fns    map[string]*manifest.Function // every function, by name (authorizers)
	conns  map[string]*wsConn

	// invokeFn runs a handler (nil: the supervisor's invoke); tests
	// replace it.
	invokeFn func(ctx context.Context, app string, fn *manifest.Function, event []byte) (*localres.Outcome, error)
}

// wsConn is one open connection.
type wsConn struct {
	id          string
	c           *websocket.Conn
	connectedAt time.Time
	sourceIP    string
	userAgent   string
	authorizer  map[string]any
	guard       *frameGuard

	// closedByApp is set when the app closed the connection
	// (Connections.Close, DELETE @connections/ID).
	closedByApp atomic.Bool

	mu           sync.Mutex
	lastActiveAt time.Time
}

// API Gateway's quotas: a message of at most 128 KB, in frames of at
// most 32 KB.
const (
	wsMaxMessage = wsgateway.MaxMessage
	wsMaxFrame   = wsgateway.MaxFrame
)

// updateWebSocket starts the local WebSocket API the first time a build
// declares WebSocket handlers, and routes to the handlers of m from now
// on; it says what happened to the open connections.
func (s *supervisor) updateWebSocket(m *manifest.Manifest) {
	if m.WebSocket == nil || len(m.WebSocketFunctions()) == 0 {
		if s.ws != nil {
			n := s.ws.update(nil, "")
			if n > 0 {
				s.event("websocket_closed", map[string]any{"connections": n},
					"WebSocket: the app declares no WebSocket handler any more: closed its %d open connection(s) (1001 going away).", n)
			}
		}
		return
	}
	if s.ws == nil {
		ws, err := s.startWebSocket()
		if err != nil {
			s.event("websocket_failed", map[string]any{"error": err.Error()}, "WebSocket: %v", err)
			return
		}
		s.ws = ws
		ws.update(m, m.App)
		host := s.o.Host
		if host == "127.0.0.1" || host == "::1" {
			host = "localhost"
		}
		addr := net.JoinHostPort(host, strconv.Itoa(ws.port))
		s.event("websocket", map[string]any{"url": "ws://" + addr + "/" + s.o.Stage, "management_url": s.wsEndpoint(), "route_selection": m.WebSocket.RouteSelection},
			"WebSocket API on ws://%s/%s (routes by %s; the connections handle reaches it at %s)", addr, s.o.Stage, m.WebSocket.RouteSelection, s.wsEndpoint())
		return
	}
	if n := s.ws.update(m, m.App); n > 0 {
		s.event("websocket_kept", map[string]any{"connections": n},
			"WebSocket: %d open connection(s) stay connected; their next messages go to the new version.", n)
	}
}

// wsEnv is what the app's functions need to reach the local WebSocket API.
func (s *supervisor) wsEnv() []string {
	if s.ws == nil {
		return nil
	}
	return []string{names.EnvWebSocketEndpoint + "=" + s.wsEndpoint()}
}

// wsEndpoint is the management endpoint the functions are given: with
// the IAM check on, the check's proxy (with the stage's path, as API
// Gateway's is https://API.execute-api.REGION.amazonaws.com/STAGE), which
// checks each call against the calling function's role; else the server.
func (s *supervisor) wsEndpoint() string {
	return s.ws.managementURL()
}

// managementURL is wsEndpoint of ws.
func (ws *wsServer) managementURL() string {
	if p := ws.s.iam.proxy; p != nil {
		return p.URL + "/" + ws.s.o.Stage
	}
	return ws.endpoint()
}

// wsIAM is the local WebSocket API as the IAM check sees it (nil when
// none runs, or the check is off).
func (s *supervisor) wsIAM() *localiam.WebSocket {
	if s.ws == nil || s.ws.token == "" {
		return nil
	}
	return &localiam.WebSocket{APIID: s.ws.apiID, Stage: s.o.Stage, Endpoint: "http://" + net.JoinHostPort(loopback(s.o.Host), strconv.Itoa(s.ws.port)), Token: s.ws.token}
}

// startWebSocket listens on Options.WebSocketPort (0: a free port).
func (s *supervisor) startWebSocket() (*wsServer, error) {
	addr := net.JoinHostPort(s.o.Host, strconv.Itoa(s.o.WebSocketPort))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("cannot listen on %s: port %d is in use: choose another with --ws-port (0 picks a free one)", addr, s.o.WebSocketPort)
		}
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ws := &wsServer{s: s, ln: l, port: l.Addr().(*net.TCPAddr).Port, apiID: "local", ctx: ctx, cancel: cancel, conns: map[string]*wsConn{}}
	if s.iam.proxy != nil {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		ws.token = base64.RawURLEncoding.EncodeToString(b)
	}
	ws.srv = &http.Server{Handler: ws, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = ws.srv.Serve(l) }()
	return ws, nil
}

// endpoint is the management endpoint, as the connections handle gets it.
func (ws *wsServer) endpoint() string {
	return "http://" + net.JoinHostPort(loopback(ws.s.o.Host), strconv.Itoa(ws.port)) + "/" + ws.s.o.Stage
}

// loopback is the address to reach a server bound to host from this machine.
func loopback(host string) string {
	if host == "" || host == "0.0.0.0" || host == "::" {
		return "127.0.0.1"
	}
	return host
}

// update routes to the WebSocket handlers of m (none: nil) and returns
// how many connections are open; without handlers they are closed.
func (ws *wsServer) update(m *manifest.Manifest, app string) int {
	ws.mu.Lock()
	open := make([]*wsConn, 0, len(ws.conns))
	for _, c := range ws.conns {
		open = append(open, c)
	}
	if m == nil {
		ws.api, ws.routes = nil, nil
		ws.mu.Unlock()
		for _, c := range open {
			_ = c.c.Close(websocket.StatusGoingAway, "the app has no WebSocket API any more")
		}
		return len(open)
	}
	ws.api, ws.app = m.WebSocket, app
	ws.routes, ws.fns = map[string]*manifest.Function{}, map[string]*manifest.Function{}
	for i := range m.Functions {
		f := m.Functions[i]
		ws.fns[f.Name] = &f
		if f.Kind == manifest.KindWebSocket {
			ws.routes[f.RouteKey] = &f
		}
	}
	ws.mu.Unlock()
	return len(open)
}

// close stops the server and closes every connection (1001).
func (ws *wsServer) close() {
	ws.cancel()
	ws.mu.Lock()
	open := make([]*wsConn, 0, len(ws.conns))
	for _, c := range ws.conns {
		open = append(open, c)
	}
	ws.mu.Unlock()
	for _, c := range open {
		_ = c.c.Close(websocket.StatusGoingAway, "framework local stopped")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = ws.srv.Shutdown(ctx)
}

// route returns the handler of route key (nil: none) and the API.
func (ws *wsServer) route(key string) (*manifest.Function, *manifest.WebSocket, string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.routes[key], ws.api, ws.app
}

func (ws *wsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, "/@connections") {
		ws.manage(w, r)
		return
	}
	ws.handshake(w, r)
}

// forbidden is API Gateway's answer to a management call that is not
// authorized, or names no stage of the API.
func forbidden(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", "ForbiddenException")
	w.WriteHeader(http.StatusForbidden)
	_, _ = io.WriteString(w, `{"message":"Forbidden"}`)
}

// manage answers one call of the management API: with the IAM check on,
// only those the check's proxy sends on (with the token), on
// /STAGE/@connections/ID of the stage.
func (ws *wsServer) manage(w http.ResponseWriter, r *http.Request) {
	if ws.token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get(localiam.ManagementTokenHeader)), []byte(ws.token)) != 1 {
		ws.s.event("websocket_manage_refused", map[string]any{"method": r.Method, "path": r.URL.EscapedPath(), "management_url": ws.managementURL()},
			"WebSocket: refused %s %s: a management call that did not come through the IAM check got 403; the app's functions reach the connections at %s, as their roles allow", r.Method, r.URL.EscapedPath(), ws.managementURL())
		forbidden(w)
		return
	}
	stage, id, ok := localiam.ConnectionsPath(r.URL.EscapedPath())
	if !ok || stage != ws.s.o.Stage {
		forbidden(w)
		return
	}
	ws.mu.Lock()
	c := ws.conns[id]
	ws.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if c == nil {
		w.Header().Set("X-Amzn-ErrorType", "GoneException")
		w.WriteHeader(http.StatusGone)
		_, _ = io.WriteString(w, `{"message":null}`)
		return
	}
	switch r.Method {
	case http.MethodPost:
		body, err := io.ReadAll(io.LimitReader(r.Body, wsMaxMessage+1))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > wsMaxMessage {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = io.WriteString(w, `{"message":"Message too long: API Gateway takes at most 128 KB"}`)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		if err := c.c.Write(ctx, websocket.MessageText, body); err != nil {
			w.Header().Set("X-Amzn-ErrorType", "GoneException")
			w.WriteHeader(http.StatusGone)
			_, _ = io.WriteString(w, `{"message":null}`)
			return
		}
	case http.MethodDelete:
		c.closedByApp.Store(true)
		go func() { _ = c.c.Close(websocket.StatusNormalClosure, "") }()
		w.WriteHeader(http.StatusNoContent)
	case http.MethodGet:
		c.mu.Lock()
		last := c.lastActiveAt
		c.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{
			"connectedAt": c.connectedAt.Format(time.RFC3339Nano), "lastActiveAt": last.Format(time.RFC3339Nano),
			"identity": map[string]string{"sourceIp": c.sourceIP, "userAgent": c.userAgent},
		})
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// newConnectionID returns an id of API Gateway's shape ("SxbAPdTjIAMCJdA=").
func newConnectionID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// handshake runs the authorizer and the connect handler, then accepts the
// connection and serves its messages.
func (ws *wsServer) handshake(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUpgradeRequired)
		_, _ = fmt.Fprintf(w, "framework local: this port serves the app's WebSocket API: connect with a WebSocket client to ws://%s/%s\n", r.Host, ws.s.o.Stage)
		return
	}
	connect, api, app := ws.route(manifest.RouteConnect)
	if api == nil {
		http.Error(w, "framework local: the app declares no WebSocket handler", http.StatusServiceUnavailable)
		return
	}
	now := time.Now()
	c := &wsConn{id: newConnectionID(), connectedAt: now, lastActiveAt: now, userAgent: r.UserAgent()}
	c.sourceIP, _, _ = net.SplitHostPort(r.RemoteAddr)
	base := ws.requestContext(c, manifest.RouteConnect, "CONNECT", now)
	ev := map[string]any{"isBase64Encoded": false}
	headers, multi := map[string]string{}, map[string][]string{}
	for k, v := range r.Header {
		if k == "Connection" || k == "Upgrade" {
			continue
		}
		headers[k], multi[k] = strings.Join(v, ","), v
	}
	// The headers API Gateway adds to the handshake's: Host (Go's server
	// keeps it out of r.Header), the client's address, the port and
	// scheme it connected on (plain ws:// here) and a trace id.
	for k, v := range map[string]string{
		"Host": r.Host, "X-Forwarded-For": c.sourceIP, "X-Forwarded-Port": strconv.Itoa(ws.port),
		"X-Forwarded-Proto": "http", "X-Amzn-Trace-Id": traceID(now),
	} {
		headers[k], multi[k] = v, []string{v}
	}
	ev["headers"], ev["multiValueHeaders"] = headers, multi
	if q := r.URL.Query(); len(q) > 0 {
		single := map[string]string{}
		for k, v := range q {
			single[k] = v[len(v)-1]
		}
		ev["queryStringParameters"], ev["multiValueQueryStringParameters"] = single, map[string][]string(q)
	}
	if connect != nil && connect.Authorizer != "" {
		allowed, ctxMap, status := ws.authorize(r.Context(), app, connect.Authorizer, c, headers, multi, ev)
		if !allowed {
			ws.s.event("websocket_refused", map[string]any{"status": status, "authorizer": connect.Authorizer},
				"websocket $connect refused by authorizer %s (%d)", connect.Authorizer, status)
			http.Error(w, http.StatusText(status), status)
			return
		}
		c.authorizer = ctxMap
		base["authorizer"] = ctxMap
	}
	ev["requestContext"] = base
	if connect != nil {
		status, body, err := ws.invoke(r.Context(), app, connect, ev)
		if err != nil || status < 200 || status > 299 {
			if err != nil {
				status, body = http.StatusInternalServerError, `{"message": "Internal server error"}`
			}
			ws.s.event("websocket_refused", map[string]any{"status": status, "function": connect.Name},
				"websocket $connect -> %s: refused with %d", connect.Name, status)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
			return
		}
	}
	gw := &guardedWriter{ResponseWriter: w}
	conn, err := websocket.Accept(gw, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	c.guard = gw.guard
	conn.SetReadLimit(wsMaxMessage)
	c.c = conn
	ws.mu.Lock()
	ws.conns[c.id] = c
	ws.mu.Unlock()
	ws.s.event("websocket_connected", map[string]any{"connection_id": c.id}, "websocket %s connected", c.id)
	ws.serveConn(c)
}

// serveConn routes the connection's messages until it ends, then runs
// $disconnect. As API Gateway, it invokes the handlers of a connection's
// messages concurrently: a slow one does not hold up the next.
//
// It closes the connection as API Gateway and RFC 6455 say: 1009 on a
// frame over 32 KB (seen by its header, before any payload is read) or a
// message over 128 KB, 1007 on a text message that is not UTF-8.
func (ws *wsServer) serveConn(c *wsConn) {
	code, reason := 1005, ""
	for {
		typ, data, err := c.c.Read(ws.ctx)
		if err != nil {
			var ce websocket.CloseError
			switch {
			case c.closedByApp.Load():
				code, reason = wsgateway.ClosedByAppCode, wsgateway.ClosedByAppReason
			case c.guard != nil && c.guard.tooBig() != "":
				code, reason = int(websocket.StatusMessageTooBig), c.guard.tooBig()
				ws.failConn(c, websocket.StatusMessageTooBig, reason)
			case errors.Is(err, websocket.ErrMessageTooBig):
				code, reason = int(websocket.StatusMessageTooBig), fmt.Sprintf("Message too big: API Gateway takes at most %d KB", wsMaxMessage>>10)
			case errors.As(err, &ce):
				code, reason = int(ce.Code), ce.Reason
			case ws.ctx.Err() != nil:
				code, reason = 1001, "Going away"
			default:
				code, reason = 1006, "Connection closed abnormally"
			}
			break
		}
		if typ == websocket.MessageText && !utf8.Valid(data) {
			code, reason = int(websocket.StatusInvalidFramePayloadData), "Invalid UTF-8 in a text message"
			ws.failConn(c, websocket.StatusInvalidFramePayloadData, reason)
			break
		}
		now := time.Now()
		c.mu.Lock()
		c.lastActiveAt = now
		c.mu.Unlock()
		go ws.message(c, typ, data, now)
	}
	ws.mu.Lock()
	delete(ws.conns, c.id)
	ws.mu.Unlock()
	_ = c.c.CloseNow()
	disconnect, api, app := ws.route(manifest.RouteDisconnect)
	ws.s.event("websocket_disconnected", map[string]any{"connection_id": c.id, "status": code, "reason": reason},
		"websocket %s disconnected (%d %s)", c.id, code, reason)
	if disconnect == nil || api == nil {
		return
	}
	rc := ws.requestContext(c, manifest.RouteDisconnect, "DISCONNECT", time.Now())
	rc["disconnectStatusCode"], rc["disconnectReason"] = code, reason
	if c.authorizer != nil {
		rc["authorizer"] = c.authorizer
	}
	ev := map[string]any{"requestContext": rc, "isBase64Encoded": false,
		"headers": map[string]string{"Host": net.JoinHostPort("localhost", strconv.Itoa(ws.port)), "X-Forwarded-For": ""}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, _ = ws.invoke(ctx, app, disconnect, ev)
}

// failConn closes c with code, and says why.
func (ws *wsServer) failConn(c *wsConn, code websocket.StatusCode, reason string) {
	ws.s.event("websocket_refused_message", map[string]any{"connection_id": c.id, "status": int(code), "reason": reason},
		"websocket %s: closed with %d: %s", c.id, int(code), reason)
	_ = c.c.Close(code, reason)
}

// message routes one message by the route selection expression and runs
// its handler; a message no route takes gets API Gateway's answer.
func (ws *wsServer) message(c *wsConn, typ websocket.MessageType, data []byte, now time.Time) {
	_, api, app := ws.route("")
	if api == nil {
		return
	}
	key := selectRoute(api.RouteSelection, data)
	fn, _, _ := ws.route(key)
	if fn == nil || key == manifest.RouteConnect || key == manifest.RouteDisconnect {
		key = manifest.RouteDefault
		fn, _, _ = ws.route(key)
	}
	rc := ws.requestContext(c, key, "MESSAGE", now)
	rc["messageId"] = newConnectionID()
	if c.authorizer != nil {
		rc["authorizer"] = c.authorizer
	}
	ctx, cancel := context.WithTimeout(ws.ctx, 30*time.Second)
	defer cancel()
	if fn == nil {
		// API Gateway's answer to a message no route takes.
		ws.s.event("websocket_unrouted", map[string]any{"connection_id": c.id}, "websocket %s: a message matched no route and the app has no $default handler", c.id)
		_ = c.c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"message": "Forbidden", "connectionId":%q, "requestId":%q}`, c.id, rc["requestId"]))
		return
	}
	ev := map[string]any{"requestContext": rc, "isBase64Encoded": typ == websocket.MessageBinary}
	if typ == websocket.MessageBinary {
		ev["body"] = base64.StdEncoding.EncodeToString(data)
	} else {
		ev["body"] = string(data)
	}
	start := time.Now()
	status, _, err := ws.invoke(ctx, app, fn, ev)
	fields := map[string]any{"connection_id": c.id, "route_key": key, "function": fn.Name, "status": status, "ok": err == nil, "seconds": time.Since(start).Seconds()}
	if err != nil {
		fields["error"] = err.Error()
		ws.s.event("websocket_message", fields, "websocket %s -> %s: failed (%v)", key, fn.Name, err)
		// What API Gateway sends the client when the integration fails.
		_ = c.c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"message": "Internal server error", "connectionId":%q, "requestId":%q}`, c.id, rc["requestId"]))
		return
	}
	ws.s.event("websocket_message", fields, "websocket %s -> %s: %d in %.2fs", key, fn.Name, status, time.Since(start).Seconds())
}

// selectRoute is the route key a message selects (wsgateway.SelectRoute).
func selectRoute(expr string, body []byte) string { return wsgateway.SelectRoute(expr, body) }

// requestContext is the requestContext of an event of connection c.
func (ws *wsServer) requestContext(c *wsConn, routeKey, eventType string, now time.Time) map[string]any {
	host := net.JoinHostPort("localhost", strconv.Itoa(ws.port))
	return map[string]any{
		"routeKey": routeKey, "eventType": eventType, "messageDirection": "IN",
		"extendedRequestId": newConnectionID(), "requestId": newConnectionID(),
		"requestTime":      now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
		"requestTimeEpoch": now.UnixMilli(), "connectedAt": c.connectedAt.UnixMilli(),
		"stage": ws.s.o.Stage, "domainName": host, "apiId": ws.apiID, "connectionId": c.id,
		"identity": map[string]string{"sourceIp": c.sourceIP, "userAgent": c.userAgent},
	}
}

// run invokes fn with event.
func (ws *wsServer) run(ctx context.Context, app string, fn *manifest.Function, event []byte) (*localres.Outcome, error) {
	if ws.invokeFn != nil {
		return ws.invokeFn(ctx, app, fn, event)
	}
	return ws.s.invoke(ctx, app, fn, event)
}

// traceID is an X-Amzn-Trace-Id header of the shape API Gateway adds.
func traceID(now time.Time) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return fmt.Sprintf("Root=1-%08x-%x", now.Unix(), b)
}

// invoke runs fn with event and returns the statusCode it answered.
func (ws *wsServer) invoke(ctx context.Context, app string, fn *manifest.Function, event map[string]any) (int, string, error) {
	b, err := json.Marshal(event)
	if err != nil {
		return 0, "", err
	}
	out, err := ws.run(ctx, app, fn, b)
	if err != nil {
		return 0, "", err
	}
	if out.Error != "" {
		return 0, "", errors.New(out.Error)
	}
	var res struct {
		StatusCode int    `json:"statusCode"`
		Body       string `json:"body"`
	}
	_ = json.Unmarshal(out.Payload, &res)
	if res.StatusCode == 0 {
		res.StatusCode = 200
	}
	return res.StatusCode, res.Body, nil
}

// authorize runs the app authorizer name on the handshake, as API Gateway
// runs a REQUEST authorizer of $connect: allowed, what it passes on, and
// the status of a refusal (401 or 403).
func (ws *wsServer) authorize(ctx context.Context, app, name string, c *wsConn, headers map[string]string, multi map[string][]string, ev map[string]any) (bool, map[string]any, int) {
	ws.mu.Lock()
	fn, api := ws.fns[name], ws.api
	ws.mu.Unlock()
	if fn == nil || api == nil {
		return false, nil, http.StatusInternalServerError
	}
	// As API Gateway: a handshake lacking an identity source is refused
	// with 401 without calling the authorizer.
	q, _ := ev["multiValueQueryStringParameters"].(map[string][]string)
	for i := range api.Authorizers {
		if def := &api.Authorizers[i]; def.Name == name && wsgateway.IdentityMissing(def, http.Header(multi), url.Values(q)) {
			return false, nil, http.StatusUnauthorized
		}
	}
	rc := ws.requestContext(c, manifest.RouteConnect, "CONNECT", time.Now())
	auth := map[string]any{"type": "REQUEST", "methodArn": fmt.Sprintf("arn:aws:execute-api:us-east-1:000000000000:%s/%s/$connect", ws.apiID, ws.s.o.Stage),
		"headers": headers, "multiValueHeaders": multi, "requestContext": rc, "stageVariables": map[string]string{}}
	if q, ok := ev["queryStringParameters"]; ok {
		auth["queryStringParameters"], auth["multiValueQueryStringParameters"] = q, ev["multiValueQueryStringParameters"]
	}
	b, _ := json.Marshal(auth)
	out, err := ws.run(ctx, app, fn, b)
	if err != nil {
		return false, nil, http.StatusInternalServerError
	}
	return wsgateway.Decide(out.Payload, out.Error)
}
