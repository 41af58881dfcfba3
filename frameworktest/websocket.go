package frameworktest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/eventsample"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/wsgateway"
)

// What the deployed WebSocket API's events carry for a test's connection.
const (
	wsAPIID    = "test"
	wsSourceIP = "192.0.2.10"
)

// ErrWebSocketClosed is the error of Send on a connection that is
// closed: the test closed it, the app did (Connections.Close), or a
// message broke API Gateway's rules.
var ErrWebSocketClosed = errors.New("frameworktest: the WebSocket connection is closed")

// WebSocketConn is a connection a test opened to the app's WebSocket API
// with Client.Connect: Send sends it a message as a client would, Received
// is what the app sent it through its connections handle (App.Connections),
// Close ends it. It is safe for concurrent use.
type WebSocketConn struct {
	// ID is the connection's id, as its handlers get it
	// (WebSocketRequest.ConnectionID) and the connections handle reaches it.
	ID string

	c           *Client
	api         manifest.WebSocket
	routes      map[string]string // function by route key
	authorizer  map[string]any
	connectedAt time.Time
	userAgent   string

	mu         sync.Mutex
	received   [][]byte
	lastActive time.Time
	closed     bool
	code       int
	reason     string
	done       chan struct{} // closed when $disconnect has run
}

// Connect opens a connection to the app's WebSocket API as a client's
// handshake does, and returns it with the handshake's answer: 101 when
// the connection is open; else the refusal and a nil connection (the
// $connect authorizer's 401 or 403, the connect handler's ViewError
// status, 500 when a handler fails). target is the URL path with an
// optional query string ("/?name=ann"), headers the handshake's (may be
// nil).
//
// The events are those the deployed API sends (Host and the other headers
// API Gateway adds to $connect's, the authorizer's context on every
// route). The app's connections handle reaches the test's connections:
// Connect points it (the FRAMEWORK_WS_ENDPOINT variable of the test's
// process) at a management endpoint on 127.0.0.1 that frameworktest serves
// for every Client, so tests may run in parallel.
func (c *Client) Connect(target string, headers map[string]string) (*WebSocketConn, *Response) {
	m, err := apphook.Of(c.app).Manifest()
	if err != nil {
		return nil, wsAnswer(http.StatusInternalServerError, "frameworktest: the app's declarations: "+err.Error())
	}
	if m.WebSocket == nil {
		return nil, wsAnswer(http.StatusNotFound, fmt.Sprintf("frameworktest: the app %s declares no WebSocket handler (OnWebSocketConnect, OnWebSocketMessage...)", m.App))
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, wsAnswer(http.StatusBadRequest, fmt.Sprintf("frameworktest: target %q: %v", target, err))
	}
	if err := wsHub.start(c.Stage); err != nil {
		return nil, wsAnswer(http.StatusInternalServerError, "frameworktest: "+err.Error())
	}
	now := time.Now()
	conn := &WebSocketConn{ID: newWSID(), c: c, api: *m.WebSocket, routes: map[string]string{}, connectedAt: now, lastActive: now, done: make(chan struct{})}
	var connect *manifest.Function
	for _, f := range m.WebSocketFunctions() {
		conn.routes[f.RouteKey] = f.Name
		if f.RouteKey == manifest.RouteConnect {
			connect = f
		}
	}
	ev := conn.event(manifest.RouteConnect, "CONNECT", now)
	ev.Headers, ev.MultiValueHeaders = map[string]string{}, map[string][]string{}
	set := func(k, v string) { ev.Headers[k], ev.MultiValueHeaders[k] = v, []string{v} }
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	set("Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(key))
	set("Sec-WebSocket-Version", "13")
	for k, v := range headers {
		set(http.CanonicalHeaderKey(k), v)
	}
	// The headers API Gateway adds.
	set("Host", ev.RequestContext.DomainName)
	set("X-Forwarded-For", wsSourceIP)
	set("X-Forwarded-Port", "443")
	set("X-Forwarded-Proto", "https")
	trace := make([]byte, 12)
	_, _ = rand.Read(trace)
	set("X-Amzn-Trace-Id", fmt.Sprintf("Root=1-%08x-%x", now.Unix(), trace))
	conn.userAgent = ev.Headers["User-Agent"]
	ev.RequestContext.Identity.UserAgent = conn.userAgent
	if q := u.Query(); len(q) > 0 {
		ev.QueryStringParameters, ev.MultiValueQueryStringParameters = map[string]string{}, map[string][]string(q)
		for k, v := range q {
			ev.QueryStringParameters[k] = v[len(v)-1]
		}
	}
	if connect != nil && connect.Authorizer != "" {
		allowed, passed, status := conn.authorize(m.AuthorizerDef(connect.Authorizer), connect.Authorizer, ev)
		if !allowed {
			return nil, wsAnswer(status, map[int]string{
				http.StatusUnauthorized: `{"message":"Unauthorized"}`, http.StatusForbidden: `{"message":"Forbidden"}`,
			}[status])
		}
		conn.authorizer = passed
		ev.RequestContext.Authorizer = passed
	}
	if connect != nil {
		out, err := c.Invoke(connect.Name, ev)
		if err != nil {
			return nil, wsAnswer(http.StatusInternalServerError, `{"message": "Internal server error"}`)
		}
		if res := wsResult(out); res.StatusCode < 200 || res.StatusCode > 299 {
			resp := wsAnswer(res.StatusCode, res.Body)
			for k, v := range res.Headers {
				resp.Headers.Set(k, v)
			}
			return nil, resp
		}
	}
	wsHub.add(conn)
	resp := &Response{StatusCode: http.StatusSwitchingProtocols, Headers: http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"}}}
	return conn, resp
}

// Send sends message to the app as a client's text message: the route
// selection expression picks its handler ($default when no route takes
// it), which runs before Send returns. The error is the handler's (what
// Lambda reports), or says that it answered a status other than 2xx (a
// ViewError, such as a WebSocketRoute message that does not decode) or
// that no handler takes the message; as deployed, the client then receives
// API Gateway's {"message": "Internal server error", ...} or {"message":
// "Forbidden", ...}. As API Gateway, a message over 128 KB closes the
// connection with 1009 and one that is not UTF-8 with 1007 (RFC 6455),
// and Send returns why.
func (w *WebSocketConn) Send(message []byte) error {
	w.mu.Lock()
	if w.closed {
		code, reason := w.code, w.reason
		w.mu.Unlock()
		return fmt.Errorf("%w (%d %s)", ErrWebSocketClosed, code, reason)
	}
	now := time.Now()
	w.lastActive = now
	w.mu.Unlock()
	switch {
	case len(message) > wsgateway.MaxMessage:
		reason := fmt.Sprintf("Message too big: API Gateway takes at most %d KB", wsgateway.MaxMessage>>10)
		_ = w.disconnect(1009, reason)
		return fmt.Errorf("frameworktest: a message of %d bytes: API Gateway closes the connection with 1009 (%s)", len(message), reason)
	case !utf8.Valid(message):
		_ = w.disconnect(1007, "Invalid UTF-8 in a text message")
		return errors.New("frameworktest: a text message that is not UTF-8: the connection is closed with 1007 (RFC 6455)")
	}
	key := wsgateway.SelectRoute(w.api.RouteSelection, message)
	fn := w.routes[key]
	if fn == "" || key == manifest.RouteConnect || key == manifest.RouteDisconnect {
		key = manifest.RouteDefault
		fn = w.routes[key]
	}
	ev := w.event(key, "MESSAGE", now)
	ev.RequestContext.MessageID = newWSID()
	ev.Body = string(message)
	if fn == "" {
		w.receive(fmt.Appendf(nil, `{"message": "Forbidden", "connectionId":%q, "requestId":%q}`, w.ID, ev.RequestContext.RequestID))
		return fmt.Errorf("frameworktest: no WebSocket route takes the message (route key %q) and the app has no %s handler: API Gateway answers the client Forbidden", key, manifest.RouteDefault)
	}
	out, err := w.c.Invoke(fn, ev)
	w.waitClose()
	if err != nil {
		w.receive(fmt.Appendf(nil, `{"message": "Internal server error", "connectionId":%q, "requestId":%q}`, w.ID, ev.RequestContext.RequestID))
		return err
	}
	if res := wsResult(out); res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("frameworktest: WebSocket route %s (%s) answered %d: %s", key, fn, res.StatusCode, res.Body)
	}
	return nil
}

// SendJSON sends v, encoded as JSON, as Send does.
func (w *WebSocketConn) SendJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("frameworktest: encode the message: %w", err)
	}
	return w.Send(b)
}

// Received returns the messages the app sent the connection (and those
// API Gateway sent it on a failed message), oldest first.
func (w *WebSocketConn) Received() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([][]byte, len(w.received))
	for i, m := range w.received {
		out[i] = append([]byte(nil), m...)
	}
	return out
}

// Close closes the connection as a client does (1000), and returns once
// the $disconnect handler ran, with its error.
func (w *WebSocketConn) Close() error {
	return w.disconnect(1000, "")
}

// Closed reports whether the connection is closed, and the status and
// reason its $disconnect handler got: 1000 "Connection Closed Normally"
// when the app closed it (Connections.Close), as API Gateway gives them.
// When it is closed, Closed returns once $disconnect ran.
func (w *WebSocketConn) Closed() (code int, reason string, closed bool) {
	w.waitClose()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.code, w.reason, w.closed
}

// waitClose waits for $disconnect when the connection is closing.
func (w *WebSocketConn) waitClose() {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		<-w.done
	}
}

// disconnect ends the connection with code and runs $disconnect, once.
func (w *WebSocketConn) disconnect(code int, reason string) error {
	if !w.end(code, reason) {
		<-w.done
		w.mu.Lock()
		defer w.mu.Unlock()
		return fmt.Errorf("%w (%d %s)", ErrWebSocketClosed, w.code, w.reason)
	}
	return w.runDisconnect(code, reason)
}

// end marks the connection closed with code, and reports whether it was
// open.
func (w *WebSocketConn) end(code int, reason string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.closed, w.code, w.reason = true, code, reason
	return true
}

// runDisconnect runs the $disconnect handler of a connection just ended.
func (w *WebSocketConn) runDisconnect(code int, reason string) error {
	wsHub.remove(w.ID)
	defer close(w.done)
	fn := w.routes[manifest.RouteDisconnect]
	if fn == "" {
		return nil
	}
	ev := w.event(manifest.RouteDisconnect, "DISCONNECT", time.Now())
	ev.RequestContext.DisconnectStatusCode, ev.RequestContext.DisconnectReason = int64(code), &reason
	ev.Headers = map[string]string{"Host": ev.RequestContext.DomainName, "X-Forwarded-For": ""}
	ev.MultiValueHeaders = map[string][]string{"Host": {ev.RequestContext.DomainName}, "X-Forwarded-For": {""}}
	_, err := w.c.Invoke(fn, ev)
	return err
}

// receive records a message sent to the connection.
func (w *WebSocketConn) receive(m []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.received = append(w.received, m)
}

// event is an event of the connection, as API Gateway sends it.
func (w *WebSocketConn) event(routeKey, eventType string, now time.Time) events.APIGatewayWebsocketProxyRequest {
	id := newWSID()
	return events.APIGatewayWebsocketProxyRequest{RequestContext: events.APIGatewayWebsocketProxyRequestContext{
		RouteKey: routeKey, EventType: eventType, MessageDirection: "IN", Stage: w.c.Stage,
		ConnectionID: w.ID, RequestID: id, ExtendedRequestID: id, APIID: wsAPIID,
		DomainName:  fmt.Sprintf("%s.execute-api.%s.amazonaws.com", wsAPIID, eventsample.Region),
		ConnectedAt: w.connectedAt.UnixMilli(), RequestTimeEpoch: now.UnixMilli(),
		RequestTime: now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
		Identity:    events.APIGatewayRequestIdentity{SourceIP: wsSourceIP, UserAgent: w.userAgent},
		Authorizer:  w.authorizer,
	}}
}

// authorize runs the $connect authorizer name (def) on the handshake ev,
// as API Gateway runs a REQUEST authorizer.
func (w *WebSocketConn) authorize(def *manifest.Authorizer, name string, ev events.APIGatewayWebsocketProxyRequest) (bool, map[string]any, int) {
	if wsgateway.IdentityMissing(def, http.Header(ev.MultiValueHeaders), url.Values(ev.MultiValueQueryStringParameters)) {
		return false, nil, http.StatusUnauthorized
	}
	req := events.APIGatewayCustomAuthorizerRequestTypeRequest{
		Type:      "REQUEST",
		MethodArn: fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/%s/$connect", eventsample.Region, eventsample.Account, wsAPIID, w.c.Stage),
		Headers:   ev.Headers, MultiValueHeaders: ev.MultiValueHeaders,
		QueryStringParameters: ev.QueryStringParameters, MultiValueQueryStringParameters: ev.MultiValueQueryStringParameters,
		StageVariables: map[string]string{},
		RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
			APIID: wsAPIID, Stage: w.c.Stage, RequestID: ev.RequestContext.RequestID,
			Identity: events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{SourceIP: wsSourceIP},
		},
	}
	out, err := w.c.Invoke(name, req)
	if err != nil {
		return wsgateway.Decide(nil, err.Error())
	}
	return wsgateway.Decide(out, "")
}

// wsResult is the answer of a WebSocket handler (200 when it has none).
func wsResult(out []byte) events.APIGatewayProxyResponse {
	var res events.APIGatewayProxyResponse
	_ = json.Unmarshal(out, &res)
	if res.StatusCode == 0 {
		res.StatusCode = http.StatusOK
	}
	return res
}

// wsAnswer is a handshake's answer other than 101.
func wsAnswer(status int, body string) *Response {
	h := http.Header{}
	if strings.HasPrefix(body, "{") {
		h.Set("Content-Type", "application/json")
	}
	return &Response{StatusCode: status, Headers: h, Body: []byte(body)}
}

// newWSID returns an id of API Gateway's shape ("SxbAPdTjIAMCJdA=").
func newWSID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// wsHub is the management endpoint (POST, DELETE and GET
// /STAGE/@connections/ID) of every test connection of the process.
var wsHub = &hub{conns: map[string]*WebSocketConn{}}

type hub struct {
	once sync.Once
	url  string
	err  error

	mu    sync.Mutex
	conns map[string]*WebSocketConn
}

// start serves the endpoint (once) and points the connections handle at
// it, at stage.
func (h *hub) start(stage string) error {
	h.once.Do(func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			h.err = fmt.Errorf("cannot serve the WebSocket management endpoint on 127.0.0.1: %w", err)
			return
		}
		h.url = "http://" + l.Addr().String()
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(l) }()
	})
	if h.err != nil {
		return h.err
	}
	return os.Setenv(names.EnvWebSocketEndpoint, h.url+"/"+stage)
}

func (h *hub) add(w *WebSocketConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conns[w.ID] = w
}

func (h *hub) remove(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, id)
}

// ServeHTTP answers a call of the connections handle as API Gateway's
// management API does: a connection that is not open is 410 GoneException.
func (h *hub) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", "application/json")
	_, escaped, ok := strings.Cut(r.URL.EscapedPath(), "/@connections/")
	id, err := url.PathUnescape(escaped)
	if !ok || err != nil || id == "" {
		rw.Header().Set("X-Amzn-ErrorType", "ForbiddenException")
		rw.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(rw, `{"message":"Forbidden"}`)
		return
	}
	h.mu.Lock()
	w := h.conns[id]
	h.mu.Unlock()
	if w == nil {
		rw.Header().Set("X-Amzn-ErrorType", "GoneException")
		rw.WriteHeader(http.StatusGone)
		_, _ = io.WriteString(rw, `{"message":null}`)
		return
	}
	switch r.Method {
	case http.MethodPost:
		body, err := io.ReadAll(io.LimitReader(r.Body, wsgateway.MaxMessage+1))
		if err != nil {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		if len(body) > wsgateway.MaxMessage {
			rw.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = io.WriteString(rw, `{"message":"Message too long: API Gateway takes at most 128 KB"}`)
			return
		}
		w.receive(body)
	case http.MethodDelete:
		// As deployed, $disconnect runs after the call is answered; Send
		// and Closed wait for it.
		if w.end(wsgateway.ClosedByAppCode, wsgateway.ClosedByAppReason) {
			go func() { _ = w.runDisconnect(wsgateway.ClosedByAppCode, wsgateway.ClosedByAppReason) }()
		}
		rw.WriteHeader(http.StatusNoContent)
	case http.MethodGet:
		w.mu.Lock()
		last := w.lastActive
		w.mu.Unlock()
		_ = json.NewEncoder(rw).Encode(map[string]any{
			"connectedAt": w.connectedAt.Format(time.RFC3339Nano), "lastActiveAt": last.Format(time.RFC3339Nano),
			"identity": map[string]string{"sourceIp": wsSourceIP, "userAgent": w.userAgent},
		})
	default:
		rw.Header().Set("Allow", "GET, POST, DELETE")
		rw.WriteHeader(http.StatusMethodNotAllowed)
	}
}
