package diff

import (
	"strings"
)

// httpRoutes compare an HTTP API's routes: an OPTIONS route is a CORS
// preflight the function answers, and a route changes in its authorization
// only.
var httpRoutes = routeRules{
	preflight: func(map[string]any) (bool, any) { return true, nil },
	changes: func(a, b map[string]any) []string {
		for _, k := range []string{"AuthorizationType", "AuthorizerId", "AuthorizationScopes"} {
			if !equal(a[k], b[k]) {
				return []string{"authorization"}
			}
		}
		return nil
	},
}

// httpAPIRoutes returns the routes of the HTTP APIs of a template (their
// AWS::ApiGatewayV2::Route resources), by API logical id, path and method,
// each the route's properties but its API, route key and target. The
// $default route is its own path and method. The WebSocket API's routes
// are left to webSocketRouteChanges.
func httpAPIRoutes(t *template) map[string]apiPaths {
	out := map[string]apiPaths{}
	ws := webSocketAPIs(t)
	for _, r := range t.ofType("AWS::ApiGatewayV2::Route") {
		if ws[routeAPI(r)] {
			continue
		}
		key, _ := r.Properties["RouteKey"].(string)
		method, path, ok := strings.Cut(key, " ")
		if !ok {
			method, path = key, key // $default
		}
		api := routeAPI(r)
		props := map[string]any{}
		for k, v := range r.Properties {
			if k != "ApiId" && k != "Target" && k != "RouteKey" {
				props[k] = v
			}
		}
		if out[api] == nil {
			out[api] = apiPaths{}
		}
		if out[api][path] == nil {
			out[api][path] = map[string]map[string]any{}
		}
		out[api][path][method] = props
	}
	return out
}
