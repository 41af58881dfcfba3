package diff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// WebSocketRouteChange is a route of the WebSocket API ($connect,
// $disconnect, $default or a custom route key) added, removed or modified.
type WebSocketRouteChange struct {
	Action string `json:"action"`
	// RouteKey is the route's key as API Gateway selects it.
	RouteKey string `json:"route_key"`
	// Handler is the name of the handler the route goes to (the route's
	// operation name); for a modified route, its new handler.
	Handler string `json:"handler,omitempty"`
	// Changes name what changed in a modified route: "handler",
	// "authorization".
	Changes []string `json:"changes,omitempty"`
	// API is the logical id of the WebSocket API.
	API string `json:"api"`
}

// webSocketRoute is what the diff compares of one WebSocket route.
type webSocketRoute struct {
	api, handler string
	auth         [3]any
}

// webSocketAPIs returns the logical ids of a template's WebSocket APIs.
func webSocketAPIs(t *template) map[string]bool {
	out := map[string]bool{}
	for id, r := range t.ofType("AWS::ApiGatewayV2::Api") {
		if p, _ := r.Properties["ProtocolType"].(string); strings.EqualFold(p, "WEBSOCKET") {
			out[id] = true
		}
	}
	return out
}

// routeAPI returns the logical id of the API a route's ApiId refers to,
// or the ApiId as text when it is not a Ref.
func routeAPI(r resource) string {
	if ref, ok := r.Properties["ApiId"].(map[string]any); ok {
		if id, ok := ref["Ref"].(string); ok {
			return id
		}
	}
	return fmt.Sprint(r.Properties["ApiId"])
}

// webSocketRoutes returns the routes of a template's WebSocket APIs by API
// logical id and route key.
func webSocketRoutes(t *template) map[string]webSocketRoute {
	apis := webSocketAPIs(t)
	out := map[string]webSocketRoute{}
	for _, r := range t.ofType("AWS::ApiGatewayV2::Route") {
		api := routeAPI(r)
		if !apis[api] {
			continue
		}
		key, _ := r.Properties["RouteKey"].(string)
		handler, _ := r.Properties["OperationName"].(string)
		out[api+"\x00"+key] = webSocketRoute{api: api, handler: handler, auth: [3]any{
			r.Properties["AuthorizationType"], r.Properties["AuthorizerId"], r.Properties["AuthorizationScopes"],
		}}
	}
	return out
}

// webSocketRouteChanges are the WebSocket routes added, removed and
// modified between two templates, by route key: $connect, $disconnect and
// $default first, as API Gateway lists them, then the custom keys.
func webSocketRouteChanges(o, n *template) []WebSocketRouteChange {
	or, nr := webSocketRoutes(o), webSocketRoutes(n)
	var out []WebSocketRouteChange
	for _, k := range unionKeys(or, nr) {
		_, key, _ := strings.Cut(k, "\x00")
		a, inOld := or[k]
		b, inNew := nr[k]
		switch {
		case !inOld:
			out = append(out, WebSocketRouteChange{Action: Add, RouteKey: key, Handler: b.handler, API: b.api})
		case !inNew:
			out = append(out, WebSocketRouteChange{Action: Remove, RouteKey: key, Handler: a.handler, API: a.api})
		default:
			var changes []string
			if a.handler != b.handler {
				changes = append(changes, "handler")
			}
			if !equal(a.auth, b.auth) {
				changes = append(changes, "authorization")
			}
			if len(changes) > 0 {
				slices.Sort(changes)
				out = append(out, WebSocketRouteChange{Action: Modify, RouteKey: key, Handler: b.handler, Changes: changes, API: b.api})
			}
		}
	}
	rank := func(key string) int {
		switch key {
		case "$connect":
			return 0
		case "$disconnect":
			return 1
		case "$default":
			return 2
		}
		return 3
	}
	slices.SortStableFunc(out, func(a, b WebSocketRouteChange) int {
		return cmp.Or(strings.Compare(a.API, b.API), cmp.Compare(rank(a.RouteKey), rank(b.RouteKey)), strings.Compare(a.RouteKey, b.RouteKey))
	})
	return out
}

// writeWebSocketRoutes writes the WebSocket routes section of the text
// report: "+ $connect → connect", "~ $connect: authorization changed".
func (r *Report) writeWebSocketRoutes(b *strings.Builder) {
	if len(r.WebSocketRoutes) == 0 {
		return
	}
	b.WriteString("WebSocket routes\n")
	for _, c := range r.WebSocketRoutes {
		fmt.Fprintf(b, "  %s %s", sign[c.Action], c.RouteKey)
		if c.Handler != "" {
			fmt.Fprintf(b, " → %s", c.Handler)
		}
		if len(c.Changes) > 0 {
			fmt.Fprintf(b, ": %s", strings.Join(changed(c.Changes), ", "))
		}
		b.WriteString("\n")
	}
}
