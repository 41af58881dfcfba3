package diff

import (
	"fmt"
	"strings"
)

// httpAPIRoutes returns the routes of the HTTP APIs of a template (their
// AWS::ApiGatewayV2::Route resources), by API logical id and route key,
// each the route's properties but its API and target. An OPTIONS route is
// a CORS preflight sent to the function.
func httpAPIRoutes(t *template) map[string]map[string]map[string]any {
	out := map[string]map[string]map[string]any{}
	for _, r := range t.Resources {
		if r.Type != "AWS::ApiGatewayV2::Route" {
			continue
		}
		key, _ := r.Properties["RouteKey"].(string)
		api := fmt.Sprint(r.Properties["ApiId"])
		if ref, ok := r.Properties["ApiId"].(map[string]any); ok {
			if id, ok := ref["Ref"].(string); ok {
				api = id
			}
		}
		props := map[string]any{}
		for k, v := range r.Properties {
			if k != "ApiId" && k != "Target" && k != "RouteKey" {
				props[k] = v
			}
		}
		if out[api] == nil {
			out[api] = map[string]map[string]any{}
		}
		out[api][key] = props
	}
	return out
}

// httpRouteChanges are the route changes of the HTTP APIs: a route key
// added or removed, or its authorization changed. A CORS preflight route
// shows as a CORS change of the path's other routes, as a REST API's does.
func httpRouteChanges(o, n *template) []RouteChange {
	oldAPIs, newAPIs := httpAPIRoutes(o), httpAPIRoutes(n)
	ids := map[string]bool{}
	for id := range oldAPIs {
		ids[id] = true
	}
	for id := range newAPIs {
		ids[id] = true
	}
	var out []RouteChange
	for _, id := range keys(ids) {
		byPath := func(routes map[string]map[string]any) map[string]map[string]map[string]any {
			paths := map[string]map[string]map[string]any{}
			for key, props := range routes {
				method, path, ok := strings.Cut(key, " ")
				if !ok {
					method, path = key, key // $default
				}
				if paths[path] == nil {
					paths[path] = map[string]map[string]any{}
				}
				paths[path][method] = props
			}
			return paths
		}
		op, np := byPath(oldAPIs[id]), byPath(newAPIs[id])
		paths := map[string]bool{}
		for p := range op {
			paths[p] = true
		}
		for p := range np {
			paths[p] = true
		}
		for _, p := range keys(paths) {
			old, neu := op[p], np[p]
			_, oldPre := old["OPTIONS"]
			_, newPre := neu["OPTIONS"]
			cors := ""
			switch {
			case !oldPre && newPre:
				cors = "cors enabled"
			case oldPre && !newPre:
				cors = "cors disabled"
			}
			methods := map[string]bool{}
			for m := range old {
				methods[m] = true
			}
			for m := range neu {
				methods[m] = true
			}
			delete(methods, "OPTIONS")
			for _, m := range keys(methods) {
				a, inOld := old[m]
				b, inNew := neu[m]
				switch {
				case !inOld:
					out = append(out, RouteChange{Action: Add, Method: m, Path: p, API: id})
				case !inNew:
					out = append(out, RouteChange{Action: Remove, Method: m, Path: p, API: id})
				default:
					var changes []string
					if !equal(a["AuthorizationType"], b["AuthorizationType"]) || !equal(a["AuthorizerId"], b["AuthorizerId"]) || !equal(a["AuthorizationScopes"], b["AuthorizationScopes"]) {
						changes = append(changes, "authorization")
					}
					if cors != "" {
						changes = append(changes, cors)
					}
					if len(changes) > 0 {
						out = append(out, RouteChange{Action: Modify, Method: m, Path: p, Changes: changes, API: id})
					}
				}
			}
		}
	}
	return out
}
