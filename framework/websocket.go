package framework

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// KindWebSocket is the kind of a WebSocket handler: a route of the app's
// WebSocket API ($connect, $disconnect, $default or a route key the route
// selection expression selects), each in a Lambda function of its own.
const KindWebSocket = manifest.KindWebSocket

// Route keys that API Gateway predefines for a WebSocket API.
const (
	RouteConnect    = manifest.RouteConnect    // a client connects; its handler may refuse
	RouteDisconnect = manifest.RouteDisconnect // a connection ended (best effort)
	RouteDefault    = manifest.RouteDefault    // a message no other route key matches
)

// ErrNoWebSocketAPI is the declaration error of an app that takes the
// connections handle (App.Connections) but declares no WebSocket handler.
var ErrNoWebSocketAPI = manifest.ErrNoWebSocketAPI

// wsDecl is the app's WebSocket API as declared.
type wsDecl struct {
	routeSelection string
	connections    bool             // App.Connections was called
	authorizers    []*AppAuthorizer // of the connect handlers
}

// WebSocketRequest is what a WebSocket handler gets: the connection, the
// route, and for $connect the handshake's headers and query string.
type WebSocketRequest struct {
	// ConnectionID identifies the connection; Connections.Send reaches it.
	ConnectionID string
	// RouteKey is the route that was selected ($connect, $disconnect,
	// $default or a custom route key); EventType is CONNECT, MESSAGE or
	// DISCONNECT.
	RouteKey, EventType string
	// Headers (names lower-case) and QueryParams are the handshake's, on
	// $connect; API Gateway sends none with the other routes.
	Headers     Headers
	QueryParams MultiDict
	// Body is a message's body (empty on $connect and $disconnect).
	Body []byte
	// Authorizer is what the app authorizer of $connect passed on
	// (principalId and its Context, as strings), on every route of the
	// connection; nil without an authorizer.
	Authorizer map[string]any
	// ConnectedAt is when the connection was opened.
	ConnectedAt time.Time
	// SourceIP is the client's address.
	SourceIP string
	// Stage is the stage that serves the API.
	Stage string
	// DisconnectStatusCode and DisconnectReason say how a connection
	// ended, on $disconnect (1000 for a normal close, 1001 when it went
	// away, 1006 when it broke).
	DisconnectStatusCode int
	DisconnectReason     string
	// Event is the API Gateway event as received.
	Event events.APIGatewayWebsocketProxyRequest
}

// WebSocketOption configures the app's WebSocket API.
type WebSocketOption func(*wsDecl)

// RouteSelection sets the WebSocket API's route selection expression, a
// field of the JSON message ($request.body.FIELD); the default is
// $request.body.action: {"action":"sendmessage",...} goes to the
// handler of route key "sendmessage", a message without it (or not JSON)
// to $default.
func RouteSelection(expr string) WebSocketOption {
	return func(d *wsDecl) { d.routeSelection = expr }
}

// WebSocket configures the app's WebSocket API; an app that declares
// WebSocket handlers has one without it.
func (a *App) WebSocket(opts ...WebSocketOption) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, o := range opts {
		if o != nil {
			o(&a.ws)
		}
	}
}

// ConnectAuthorizer protects $connect with an app authorizer: API
// Gateway calls it with the handshake (as a REQUEST authorizer: set its
// IdentitySources, such as "query.token" or "header.Authorization"; with
// none it reads the Authorization header) before the connect handler, and
// refuses the client when it does not allow. What it passes on reaches
// every handler of the connection as WebSocketRequest.Authorizer.
func ConnectAuthorizer(z AppAuthorizer) FunctionOption {
	return FunctionOption{name: "ConnectAuthorizer", kinds: []HandlerKind{KindWebSocket}, auth: &z, apply: func(m *manifest.Function) { m.Authorizer = z.Name }}
}

// OnWebSocketConnect runs handler when a client opens a connection to the
// app's WebSocket API ($connect). Returning nil accepts it; a ViewError
// (ForbiddenError, UnauthorizedError, ...) refuses it with its status,
// any other error with 500. ConnectAuthorizer protects it.
func (a *App) OnWebSocketConnect(name string, handler func(context.Context, *WebSocketRequest) error, opts ...FunctionOption) {
	a.addWebSocket(name, RouteConnect, handler == nil, wsCall(handler), opts)
}

// OnWebSocketDisconnect runs handler when a connection ended
// ($disconnect): the client or the app closed it, or it broke. API
// Gateway calls it on a best-effort basis.
func (a *App) OnWebSocketDisconnect(name string, handler func(context.Context, *WebSocketRequest) error, opts ...FunctionOption) {
	a.addWebSocket(name, RouteDisconnect, handler == nil, wsCall(handler), opts)
}

// OnWebSocketMessage runs handler on the messages whose route selection
// field is routeKey (RouteDefault: those no other route matches). Its
// Body is the message as sent.
func (a *App) OnWebSocketMessage(name, routeKey string, handler func(context.Context, *WebSocketRequest) error, opts ...FunctionOption) {
	a.addWebSocket(name, routeKey, handler == nil, wsCall(handler), opts)
}

// WebSocketRoute registers on app a typed message handler: the JSON
// message routed to routeKey is decoded into a T, and one that does not
// decode is answered with 400 and logged without calling handler. It is a
// function rather than a method of App because Go methods cannot have type
// parameters.
func WebSocketRoute[T any](app *App, name, routeKey string, handler func(context.Context, *WebSocketRequest, T) error, opts ...FunctionOption) {
	var call func(context.Context, *WebSocketRequest) error
	if handler != nil {
		call = func(ctx context.Context, r *WebSocketRequest) error {
			var msg T
			if err := json.Unmarshal(r.Body, &msg); err != nil {
				return BadRequestError{Message: fmt.Sprintf("the message is not a %s: %v", reflect.TypeFor[T](), err)}
			}
			return handler(ctx, r, msg)
		}
	}
	app.addWebSocket(name, routeKey, handler == nil, wsCall(call), opts)
}

func (a *App) addWebSocket(name, routeKey string, nilHandler bool, call eventFunc, opts []FunctionOption) {
	f := a.newFunction(name, KindWebSocket, nilHandler, call, opts)
	f.spec.RouteKey = routeKey
	for _, o := range opts {
		if o.auth != nil {
			a.mu.Lock()
			a.ws.authorizers = append(a.ws.authorizers, o.auth)
			a.mu.Unlock()
		}
	}
	a.addFunction(f)
}

// Connections returns the handle that reaches the connections of the
// app's WebSocket API: from any handler of the app (a route, a queue
// consumer, a WebSocket handler). An app that takes it must declare a
// WebSocket handler (ErrNoWebSocketAPI otherwise). Take it at
// declaration time, before Run.
func (a *App) Connections() *Connections {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ws.connections = true
	return &Connections{app: a.Name}
}

// addWebSocketAuthorizers adds the function of each ConnectAuthorizer that
// no route added already. Called by compile, with a.mu held.
func (a *App) addWebSocketAuthorizers() []error {
	var errs []error
	for _, z := range a.ws.authorizers {
		if z.Func == nil {
			errs = append(errs, fmt.Errorf("websocket: app authorizer %q: Func is nil: set it to the function that decides", z.Name))
			continue
		}
		if prev := a.function(z.Name); prev != nil {
			if prev.Kind != KindAuthorizer {
				errs = append(errs, fmt.Errorf("websocket: app authorizer %q: a %s handler has the same name: rename one", z.Name, prev.Kind))
			}
			continue
		}
		zz := z
		a.functions = append(a.functions, &function{Name: z.Name, Kind: KindAuthorizer, call: zz.handle, spec: manifest.Function{Name: z.Name, Kind: KindAuthorizer}})
	}
	return errs
}

// addWebSocketManifest describes the WebSocket API in m.
func (a *App) addWebSocketManifest(m *manifest.Manifest) {
	has := false
	for _, f := range a.functions {
		has = has || f.Kind == KindWebSocket
	}
	if !has && !a.ws.connections {
		return
	}
	m.WebSocket = &manifest.WebSocket{RouteSelection: a.ws.routeSelection, Connections: a.ws.connections}
	seen := map[string]bool{}
	for _, z := range a.ws.authorizers {
		if !seen[z.Name] {
			seen[z.Name] = true
			m.WebSocket.Authorizers = append(m.WebSocket.Authorizers, *z.manifest())
		}
	}
	if m.WebSocket.RouteSelection == "" {
		m.WebSocket.RouteSelection = manifest.DefaultRouteSelection
	}
}

// wsCall adapts a WebSocket handler to the Lambda event and answer of an
// API Gateway WebSocket proxy integration.
func wsCall(handler func(context.Context, *WebSocketRequest) error) eventFunc {
	return func(ctx context.Context, event []byte) ([]byte, error) {
		var ev events.APIGatewayWebsocketProxyRequest
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: err}
		}
		if ev.RequestContext.ConnectionID == "" {
			return nil, &EventError{Type: fmt.Sprintf("%T", ev), Err: errors.New(`it has no "requestContext.connectionId": send a WebSocket event such as {"requestContext":{"routeKey":"$connect","eventType":"CONNECT","connectionId":"c1"}}`)}
		}
		r := wsRequest(ctx, ev)
		err := handler(ctx, r)
		if err == nil {
			return json.Marshal(events.APIGatewayProxyResponse{StatusCode: 200})
		}
		if ve, code, ok := asViewError(err); ok {
			body, _ := json.Marshal(errorBody{Code: code, Message: ve.Error()})
			return json.Marshal(events.APIGatewayProxyResponse{StatusCode: ve.StatusCode(), Body: string(body), Headers: map[string]string{"Content-Type": "application/json"}})
		}
		return nil, err
	}
}

// wsRequest is the WebSocketRequest of an event.
func wsRequest(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) *WebSocketRequest {
	rc := ev.RequestContext
	r := &WebSocketRequest{ConnectionID: rc.ConnectionID, RouteKey: rc.RouteKey, EventType: rc.EventType,
		SourceIP: rc.Identity.SourceIP, Stage: rc.Stage, DisconnectStatusCode: int(rc.DisconnectStatusCode), Event: ev}
	if rc.DisconnectReason != nil {
		r.DisconnectReason = *rc.DisconnectReason
	}
	if rc.ConnectedAt > 0 {
		r.ConnectedAt = time.UnixMilli(rc.ConnectedAt).UTC()
	}
	if m, ok := rc.Authorizer.(map[string]any); ok {
		r.Authorizer = m
	}
	if len(ev.Headers)+len(ev.MultiValueHeaders)+len(ev.QueryStringParameters)+len(ev.MultiValueQueryStringParameters) > 0 {
		req, _ := eventRequest(ctx, events.APIGatewayProxyRequest{
			Headers: ev.Headers, MultiValueHeaders: ev.MultiValueHeaders,
			QueryStringParameters: ev.QueryStringParameters, MultiValueQueryStringParameters: ev.MultiValueQueryStringParameters,
		})
		r.Headers, r.QueryParams = req.Headers, req.QueryParams
	}
	if ev.IsBase64Encoded {
		r.Body, _ = base64.StdEncoding.DecodeString(ev.Body)
	} else if ev.Body != "" {
		r.Body = []byte(ev.Body)
	}
	return r
}
