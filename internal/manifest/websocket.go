package manifest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// KindWebSocket is a handler of a route of the app's WebSocket API:
// $connect, $disconnect, $default or a route key the route selection
// expression selects. Each is a Lambda function of its own, integrated by
// its route.
const KindWebSocket Kind = "websocket"

// Route keys of a WebSocket API that API Gateway predefines.
const (
	RouteConnect    = "$connect"
	RouteDisconnect = "$disconnect"
	RouteDefault    = "$default"
)

// DefaultRouteSelection is the route selection expression of a WebSocket
// API that does not set one: the "action" field of a JSON message.
const DefaultRouteSelection = "$request.body.action"

// ErrNoWebSocketAPI is the declaration error of an app that uses the
// WebSocket connections handle but declares no WebSocket handler: it has
// no WebSocket API whose connections the handle could reach.
var ErrNoWebSocketAPI = errors.New("the app uses the WebSocket connections handle but declares no WebSocket handler, so it has no WebSocket API: declare one with OnWebSocketConnect, OnWebSocketMessage or WebSocketRoute (package framework), or remove the handle")

// WebSocket is the app's WebSocket API.
type WebSocket struct {
	// RouteSelection is the route selection expression, such as
	// $request.body.action (DefaultRouteSelection).
	RouteSelection string `json:"route_selection"`
	// Connections is true when the app took the connections handle
	// (App.Connections), which reaches the API's management endpoint.
	Connections bool `json:"connections,omitempty"`
	// Authorizers are the app authorizers that protect $connect (their
	// functions are KindAuthorizer functions of the same name).
	Authorizers []Authorizer `json:"authorizers,omitempty"`
}

// AuthorizerDef returns the WebSocket API's authorizer named name, or nil.
func (m *Manifest) AuthorizerDef(name string) *Authorizer {
	if m.WebSocket == nil {
		return nil
	}
	for i := range m.WebSocket.Authorizers {
		if m.WebSocket.Authorizers[i].Name == name {
			return &m.WebSocket.Authorizers[i]
		}
	}
	return nil
}

// WebSocketFunctions returns the app's WebSocket handlers, in manifest
// order (by name).
func (m *Manifest) WebSocketFunctions() []*Function {
	var out []*Function
	for i := range m.Functions {
		if m.Functions[i].Kind == KindWebSocket {
			out = append(out, &m.Functions[i])
		}
	}
	return out
}

// validRouteSelection reports whether expr is what API Gateway accepts as
// a WebSocket API's route selection expression: a field of the JSON
// message body, $request.body.NAME(.NAME)*, each NAME a letter or _
// then letters, digits and _. (No regexp: the manifest package is linked
// into every Lambda binary.)
func validRouteSelection(expr string) bool {
	rest, ok := strings.CutPrefix(expr, "$request.body.")
	if !ok {
		return false
	}
	for _, name := range strings.Split(rest, ".") {
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			return false
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// RouteSelectionPath returns the JSON field path the expression selects
// by ("action" for $request.body.action, "a.b" for $request.body.a.b).
func RouteSelectionPath(expr string) []string {
	return strings.Split(strings.TrimPrefix(expr, "$request.body."), ".")
}

// validateWebSocket checks the WebSocket API and its handlers.
func (m *Manifest) validateWebSocket() []error {
	var errs []error
	fns := m.WebSocketFunctions()
	if m.WebSocket == nil {
		if len(fns) > 0 {
			errs = append(errs, fmt.Errorf("%s: the manifest has WebSocket handlers but no websocket section: build the app and the CLI from the same framework version", fns[0].Label()))
		}
		return errs
	}
	if len(fns) == 0 {
		if m.WebSocket.Connections {
			errs = append(errs, fmt.Errorf("websocket: %w", ErrNoWebSocketAPI))
		}
		return errs
	}
	if !validRouteSelection(m.WebSocket.RouteSelection) {
		errs = append(errs, fmt.Errorf("websocket: route selection expression %q: write $request.body.FIELD, for example %s", m.WebSocket.RouteSelection, DefaultRouteSelection))
	}
	authorizers := map[string]bool{}
	for _, f := range m.Functions {
		if f.Kind == KindAuthorizer {
			authorizers[f.Name] = true
		}
	}
	byKey := map[string]string{}
	for _, f := range fns {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: "+format, append([]any{f.Label()}, args...)...))
		}
		switch k := f.RouteKey; {
		case k == "":
			bad("no route key: give one such as \"sendmessage\", or use OnWebSocketConnect or OnWebSocketDisconnect")
		case strings.HasPrefix(k, "$") && !slices.Contains([]string{RouteConnect, RouteDisconnect, RouteDefault}, k):
			bad("route key %q: a key starting with $ is one of %s, %s and %s; choose a key without $", k, RouteConnect, RouteDisconnect, RouteDefault)
		case len(k) > 128 || strings.TrimSpace(k) != k:
			bad("route key %q: use 1 to 128 characters without surrounding spaces", k)
		}
		if prev, ok := byKey[f.RouteKey]; ok && f.RouteKey != "" {
			bad("route key %q is also the route of WebSocket handler %q: a route has one handler; remove one", f.RouteKey, prev)
		}
		byKey[f.RouteKey] = f.Name
		if f.Authorizer != "" {
			if f.RouteKey != RouteConnect {
				bad("an authorizer protects only %s (API Gateway checks a WebSocket client once, when it connects): remove it here and give it to the connect handler", RouteConnect)
			} else if !authorizers[f.Authorizer] {
				bad("authorizer %q is not an app authorizer of the app", f.Authorizer)
			}
		}
	}
	return errs
}

// WebSocketRef names the app's WebSocket API where a policy statement
// names a declared resource (perms.Resource.Ref); AttrConnectionsARN is
// the ARN of its connections, the resource of
// execute-api:ManageConnections.
const (
	WebSocketRef       = "$websocket"
	AttrConnectionsARN = "ConnectionsArn"
)
