package diff

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// httpMethods are the OpenAPI operation keys of a path item, with the
// API Gateway catch-all.
var httpMethods = map[string]string{
	"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE", "options": "OPTIONS",
	"head": "HEAD", "patch": "PATCH", "x-amazon-apigateway-any-method": "ANY",
}

// methodOrder sorts methods as a reader expects.
var methodOrder = map[string]int{"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4, "HEAD": 5, "OPTIONS": 6, "ANY": 7}

// apiPaths are the routes of one API: path → method (upper case) → the
// method's properties.
type apiPaths = map[string]map[string]map[string]any

// routeRules say how the routes of one kind of API compare.
type routeRules struct {
	// preflight tells whether an OPTIONS method is a CORS preflight, and
	// returns the CORS settings it holds (nil when the function answers
	// the preflight, so that only its presence counts).
	preflight func(op map[string]any) (bool, any)
	// changes names what differs between two versions of a method.
	changes func(a, b map[string]any) []string
}

// restRoutes compare a REST API's OpenAPI operations: a preflight is a
// MOCK integration holding the CORS headers.
var restRoutes = routeRules{
	preflight: func(op map[string]any) (bool, any) { return preflight(op), op },
	changes:   operationChanges,
}

// restAPIs returns the OpenAPI paths of each REST API with a Body.
func restAPIs(t *template) map[string]apiPaths {
	out := map[string]apiPaths{}
	for id, r := range t.ofType("AWS::ApiGateway::RestApi") {
		body, _ := r.Properties["Body"].(map[string]any)
		paths, _ := body["paths"].(map[string]any)
		out[id] = apiPaths{}
		for p, item := range paths {
			out[id][p] = operations(item)
		}
	}
	return out
}

// operations returns the methods of a path item, keyed by upper-case method.
func operations(item any) map[string]map[string]any {
	m, _ := item.(map[string]any)
	out := map[string]map[string]any{}
	for k, v := range m {
		if method, ok := httpMethods[strings.ToLower(k)]; ok {
			op, _ := v.(map[string]any)
			if op == nil {
				op = map[string]any{}
			}
			out[method] = op
		}
	}
	return out
}

// preflight tells a CORS preflight: an OPTIONS method answered by a MOCK
// integration.
func preflight(op map[string]any) bool {
	in, _ := op["x-amazon-apigateway-integration"].(map[string]any)
	t, _ := in["type"].(string)
	return strings.EqualFold(t, "mock")
}

// routeChanges are the route changes of the REST APIs and the HTTP APIs
// (httproutes.go), by path and then method.
func routeChanges(o, n *template) []RouteChange {
	out := apiChanges(restRoutes, restAPIs(o), restAPIs(n))
	out = append(out, apiChanges(httpRoutes, httpAPIRoutes(o), httpAPIRoutes(n))...)
	slices.SortStableFunc(out, func(a, b RouteChange) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(methodOrder[a.Method], methodOrder[b.Method]))
	})
	return out
}

// apiChanges are the route changes between the old and new APIs of one
// kind, by API id.
func apiChanges(rules routeRules, oldAPIs, newAPIs map[string]apiPaths) []RouteChange {
	out := []RouteChange{}
	for _, id := range unionKeys(oldAPIs, newAPIs) {
		op, np := oldAPIs[id], newAPIs[id]
		for _, p := range unionKeys(op, np) {
			out = append(out, pathChanges(rules, id, p, op[p], np[p])...)
		}
	}
	return out
}

// pathChanges are the route changes of one path of an API. A CORS
// preflight added, removed or changed shows on the path's other methods as
// a CORS change rather than as an OPTIONS route.
func pathChanges(rules routeRules, api, path string, old, neu map[string]map[string]any) []RouteChange {
	var out []RouteChange
	corsChange := ""
	var oldCORS, newCORS any
	oo, oldPre := old["OPTIONS"]
	no, newPre := neu["OPTIONS"]
	if oldPre {
		oldPre, oldCORS = rules.preflight(oo)
	}
	if newPre {
		newPre, newCORS = rules.preflight(no)
	}
	switch {
	case !oldPre && newPre:
		corsChange = "cors enabled"
	case oldPre && !newPre:
		corsChange = "cors disabled"
	case oldPre && newPre && !equal(oldCORS, newCORS):
		corsChange = "cors changed"
	}
	if oldPre {
		delete(old, "OPTIONS")
	}
	if newPre {
		delete(neu, "OPTIONS")
	}
	for _, m := range unionKeys(old, neu) {
		a, inOld := old[m]
		b, inNew := neu[m]
		switch {
		case !inOld:
			out = append(out, RouteChange{Action: Add, Method: m, Path: path, API: api})
		case !inNew:
			out = append(out, RouteChange{Action: Remove, Method: m, Path: path, API: api})
		default:
			changes := rules.changes(a, b)
			if corsChange != "" {
				changes = appendUnique(changes, corsChange)
			}
			if len(changes) > 0 {
				slices.Sort(changes)
				out = append(out, RouteChange{Action: Modify, Method: m, Path: path, Changes: changes, API: api})
			}
		}
	}
	return out
}

// operationChanges names what differs between two OpenAPI operations.
func operationChanges(a, b map[string]any) []string {
	var out []string
	for _, k := range unionKeys(a, b) {
		if equal(a[k], b[k]) {
			continue
		}
		if mentionsCORS(a[k]) || mentionsCORS(b[k]) {
			out = appendUnique(out, "cors")
			// An integration may hold CORS headers and more: look deeper.
			if !equal(stripCORS(a[k]), stripCORS(b[k])) {
				out = appendUnique(out, name(k))
			}
			continue
		}
		out = appendUnique(out, name(k))
	}
	return out
}

func name(key string) string {
	switch key {
	case "x-amazon-apigateway-integration":
		return "integration"
	case "security":
		return "authorization"
	case "x-amazon-apigateway-api-key-source":
		return "api key"
	case "consumes":
		return "content types"
	}
	return strings.TrimPrefix(key, "x-amazon-apigateway-")
}

// appendUnique appends s to list unless list holds it.
func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func mentionsCORS(v any) bool {
	b, _ := json.Marshal(v)
	return strings.Contains(strings.ToLower(string(b)), "access-control-")
}

// stripCORS returns v without map entries whose key names a CORS header.
func stripCORS(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if strings.Contains(strings.ToLower(k), "access-control-") {
				continue
			}
			out[k] = stripCORS(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = stripCORS(e)
		}
		return out
	}
	return v
}
