package framework

import (
	"sort"
	"strings"
)

// API Gateway emulation for local serving.
//
// Deployed, API Gateway answers some requests itself before the function
// runs. Locally, this file does the same, and it is the only place that does:
//
//   - an unknown path, or a method the path does not declare: 403
//     {"message":"Missing Authentication Token"} (API Gateway's answer for
//     both; the deployed API defines exactly the declared methods);
//   - OPTIONS on a CORS route: the preflight answer, 200 with
//     Access-Control-Allow-Methods listing the route's methods and OPTIONS;
//   - a route with APIKeyRequired and no X-Api-Key header: 403
//     {"message":"Forbidden"}. Locally any non-empty key is accepted: there
//     is no usage plan to check it against;
//   - a route with a RoleAuthorizer and no Authorization header: 403
//     {"message":"Missing Authentication Token"}; the signature itself is
//     not verified locally;
//   - a route with a UserPoolAuthorizer or CustomAuthorizer and no token
//     header: 401 {"message":"Unauthorized"}; the token itself is not
//     validated locally (no user pool or authorizer function is called);
//   - a body over 10 MB: 413 {"message":"Request Too Long"} (local.go).

// gatewayAnswer returns API Gateway's own answer to req for the matched path
// entry e (nil when no route matched), or nil when the request goes on to
// the function.
func gatewayAnswer(e *pathEntry, req *Request) (*result, *Route) {
	if e == nil {
		return missingAuthToken(), nil
	}
	route := e.methods[req.Method]
	if route == nil {
		if req.Method == "OPTIONS" && e.cors != nil {
			return preflight(e), nil
		}
		return missingAuthToken(), nil
	}
	if route.APIKeyRequired && req.Headers.Get("x-api-key") == "" {
		return withCORS(e, jsonResult(403, map[string]string{"message": "Forbidden"})), nil
	}
	if a := route.authorizerDecl; a != nil {
		switch a.Type {
		case AuthorizerIAM:
			if req.Headers.Get("authorization") == "" {
				return withCORS(e, missingAuthToken()), nil
			}
		default:
			if req.Headers.Get(strings.ToLower(a.Header)) == "" {
				return withCORS(e, jsonResult(401, map[string]string{"message": "Unauthorized"})), nil
			}
		}
	}
	return nil, route
}

func missingAuthToken() *result {
	return jsonResult(403, map[string]string{"message": "Missing Authentication Token"})
}

// withCORS adds the path's CORS headers, as the deployed API's gateway
// responses do.
func withCORS(e *pathEntry, res *result) *result {
	if e.cors != nil {
		for _, h := range e.cors.responseHeaders() {
			res.setDefault(h.Name, h.Value)
		}
	}
	return res
}

// preflight is the answer to OPTIONS on a CORS path: the route's methods
// followed by OPTIONS, and the CORS headers.
func preflight(e *pathEntry) *result {
	methods := make([]string, 0, len(e.methods)+1)
	for m := range e.methods {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	methods = append(methods, "OPTIONS")
	res := &result{status: 200, headers: []headerField{{"Access-Control-Allow-Methods", strings.Join(methods, ",")}}}
	return withCORS(e, res)
}
