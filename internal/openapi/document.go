package openapi

import (
	"errors"
	"fmt"
	"mime"
	"slices"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// DocumentVersion is the OpenAPI version of the document Document returns.
const DocumentVersion = "3.0.3"

// Component names Document adds next to the typed handlers' schemas.
const (
	// SchemaError is the schema of the function's error answers {"Code", "Message"}.
	SchemaError = "Error"
	// SchemaGatewayError is the schema of API Gateway's own answers {"message"}.
	SchemaGatewayError = "GatewayError"
)

// DocOptions are the values of the document that do not come from the manifest.
type DocOptions struct {
	// Title is info.title; empty means the manifest's app name.
	Title string
	// Version is info.version; empty means "1.0".
	Version string
	// ServerURL, when set, is the document's one server (for example
	// "/dev", the deployed stage's base path, or a full URL).
	ServerURL string
}

// Document returns the OpenAPI 3.0 document of the app described by m,
// for its users rather than for API Gateway: no x-amazon-apigateway-*
// extensions, and what clients need instead: an operation per route
// method (operationId the handler's name, tagged with its group), the
// path parameters, the request body and success response schemas of typed
// handlers (Manifest.Schemas become components.schemas), the error
// answers (400 for a typed body, 401 and 403 for protected routes: 403
// also for a Lambda authorizer's deny; 500),
// the CORS preflights and the security schemes of API keys and
// authorizers; for an idempotent route (Route.Idempotency) the
// Idempotency-Key header parameter, the Idempotent-Replayed header of a
// replayed answer, and its 400, 409 and 422 answers; for a route that
// streams, the content types it streams (Route.StreamTypes, else */*).
// Deterministic, and JSON-ready like Build's value.
func Document(m *manifest.Manifest, o DocOptions) (map[string]any, error) {
	if m == nil {
		return nil, errors.New("openapi: no manifest")
	}
	if m.Version != manifest.Version {
		return nil, fmt.Errorf("openapi: manifest version %d is not %d, the version this framework reads: rebuild the app against this framework", m.Version, manifest.Version)
	}
	if err := manifest.Validate(m); err != nil {
		return nil, fmt.Errorf("openapi: the manifest's routes: %w", err)
	}
	title, version := o.Title, o.Version
	if title == "" {
		title = m.App
	}
	if version == "" {
		version = "1.0"
	}
	if strings.TrimSpace(title) == "" {
		return nil, errors.New("openapi: no title: the manifest has no app name and DocOptions.Title is empty")
	}
	items, order := groupPaths(m.Routes)
	sec := newSecurity()
	ids := operationIDs(m.Routes)
	var tags []string
	paths, err := pathsObject(items, order, func(it *pathItem, method string) (map[string]any, error) {
		r := it.methods[method]
		op, err := operation(r, method, it.captures, sec, ids[opKey{r.Path, method}])
		if err != nil {
			return nil, err
		}
		if tag, ok := op["tags"].([]any); ok && !slices.Contains(tags, tag[0].(string)) {
			tags = append(tags, tag[0].(string))
		}
		return op, nil
	}, func(it *pathItem, methods []string) (map[string]any, error) {
		return preflightDoc(it, methods), nil
	})
	if err != nil {
		return nil, err
	}
	schemas := map[string]any{
		SchemaError: map[string]any{
			"type":        "object",
			"description": "The function's error answer: Code is the error's type name (BadRequestError, NotFoundError, ...).",
			"required":    []any{"Code", "Message"},
			"properties": map[string]any{
				"Code":    map[string]any{"type": "string"},
				"Message": map[string]any{"type": "string"},
			},
		},
		SchemaGatewayError: map[string]any{
			"type":        "object",
			"description": "API Gateway's own answer (missing API key or token, unknown route, body too large).",
			"required":    []any{"message"},
			"properties":  map[string]any{"message": map[string]any{"type": "string"}},
		},
	}
	for name, s := range m.Schemas {
		if _, taken := schemas[name]; taken {
			return nil, fmt.Errorf("openapi: the app's type %s has the name of a schema the document defines itself: rename the Go type", name)
		}
		schemas[name] = s
	}
	components := map[string]any{"schemas": schemas}
	if s := sec.docSchemes(); s != nil {
		components["securitySchemes"] = s
	}
	doc := map[string]any{
		"openapi":    DocumentVersion,
		"info":       map[string]any{"title": title, "version": version},
		"paths":      paths,
		"components": components,
	}
	if o.ServerURL != "" {
		doc["servers"] = []any{map[string]any{"url": o.ServerURL}}
	}
	if len(tags) > 0 {
		slices.Sort(tags)
		list := []any{}
		for _, t := range tags {
			list = append(list, map[string]any{"name": t})
		}
		doc["tags"] = list
	}
	return doc, nil
}

type opKey struct{ path, method string }

// operationIDs names every operation after its handler: the name alone
// when the handler serves one method and no other route has it, else the
// name and the method, else also the path.
func operationIDs(routes []manifest.Route) map[opKey]string {
	count := map[string]int{}
	for _, r := range routes {
		count[r.Handler] += len(r.Methods)
	}
	ids := map[opKey]string{}
	used := map[string]bool{}
	for _, r := range routes {
		for _, m := range r.Methods {
			id := r.Handler
			if count[r.Handler] > 1 {
				id += "_" + strings.ToLower(m)
			}
			if used[id] {
				id += "_" + strings.Trim(componentSafe(r.Path), "_")
			}
			for n := 2; used[id]; n++ {
				id = fmt.Sprintf("%s_%d", id, n)
			}
			used[id] = true
			ids[opKey{r.Path, m}] = id
		}
	}
	return ids
}

// componentSafe returns s with every character an OpenAPI components key
// does not allow replaced by "_".
func componentSafe(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < 0x80 && schemeNameRe.MatchString(string(c)) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func errorResponse(description, schema string) map[string]any {
	return map[string]any{
		"description": description,
		"content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"$ref": "#/components/schemas/" + schema},
		}},
	}
}

// operation is the document's operation of route r for method.
func operation(r *manifest.Route, method string, captures []string, sec *security, id string) (map[string]any, error) {
	op := map[string]any{"operationId": id}
	if group, _, ok := strings.Cut(r.Handler, "."); ok {
		op["tags"] = []any{group}
	}
	if len(captures) > 0 {
		op["parameters"] = pathParameters(captures)
	}
	status := 200
	if r.Status != 0 {
		status = r.Status
	}
	success := map[string]any{"description": "The handler's answer."}
	if r.ResponseSchema != nil {
		success["content"] = map[string]any{"application/json": map[string]any{"schema": r.ResponseSchema}}
	}
	if r.Streaming {
		streamedContent(success, r.StreamTypes)
	}
	responses := map[string]any{
		strconv.Itoa(status): success,
		"500":                errorResponse("An uncaught error in the handler (FrameworkViewError).", SchemaError),
		"default":            errorResponse("An error the handler or a middleware returned (NotFoundError, ConflictError, ...), with its own status.", SchemaError),
	}
	if r.RequestSchema != nil {
		content := map[string]any{}
		for _, ct := range r.ContentTypes {
			content[ct] = map[string]any{"schema": r.RequestSchema}
		}
		op["requestBody"] = map[string]any{"required": true, "content": content}
		responses["400"] = errorResponse("The body does not fit the schema (BadRequestError naming the field), or its Validate check failed.", SchemaError)
	}
	req, err := sec.requirement(r)
	if err != nil {
		return nil, err
	}
	if req != nil {
		op["security"] = []any{req}
		a := r.Authorizer
		missing := r.APIKeyRequired || (a != nil && a.Type == manifest.AuthorizerIAM)
		// A Lambda authorizer (the app's own or a custom one) also denies:
		// API Gateway answers 403 when its policy does not allow the
		// method (REST: {"Message": ...}), or when it answers
		// isAuthorized false (HTTP API: {"message": "Forbidden"}).
		deny := a != nil && (a.Type == manifest.AuthorizerApp || a.Type == manifest.AuthorizerCustom)
		switch {
		case deny:
			desc := "API Gateway's answer when the authorizer denies the request (REST API: {\"Message\": \"User is not authorized to access this resource...\"}; HTTP API: {\"message\": \"Forbidden\"})."
			if missing {
				desc = "API Gateway's answer to a missing API key, or when the authorizer denies the request (REST API: {\"Message\": \"User is not authorized to access this resource...\"}; HTTP API: {\"message\": \"Forbidden\"})."
			}
			responses["403"] = map[string]any{
				"description": desc,
				"content": map[string]any{"application/json": map[string]any{
					"schema": map[string]any{"type": "object", "properties": map[string]any{
						"message": map[string]any{"type": "string"},
						"Message": map[string]any{"type": "string"},
					}},
				}},
			}
		case missing:
			responses["403"] = errorResponse("API Gateway's answer to a missing API key or signature.", SchemaGatewayError)
		}
		if a != nil && a.Type != manifest.AuthorizerIAM {
			responses["401"] = errorResponse("API Gateway's answer to a missing or refused token.", SchemaGatewayError)
		}
	}
	if r.Idempotency != nil {
		idempotent(op, r.Idempotency, responses, success)
	}
	op["responses"] = responses
	return op, nil
}

// Names and limits of resource.Idempotent (framework/resource cannot be
// imported here: it links the runtime).
const (
	idempotencyKeyHeader = "Idempotency-Key"
	replayedHeader       = "Idempotent-Replayed"
	maxIdempotencyKey    = 255
)

// idempotent adds what an idempotent route asks of its clients to its
// operation op: the Idempotency-Key header (required with KeyRequired),
// the Idempotent-Replayed header of a replayed answer, and the answers the
// idempotency check gives itself: 400 (no key, when required, or one too
// long), 409 (the first request with the key still runs) and 422 (the key
// was used with another request).
func idempotent(op map[string]any, idem *manifest.RouteIdempotency, responses, success map[string]any) {
	desc := "A unique key (a UUID) for this request; send the same key when you retry it. The first answer to the key (below 500, except 408, 409, 425 and 429) is stored and replayed to every retry with it. Optional: a request without it is not idempotent."
	if idem.KeyRequired {
		desc = "A unique key (a UUID) for this request; send the same key when you retry it. The first answer to the key (below 500, except 408, 409, 425 and 429) is stored and replayed to every retry with it. Required: a request without it is answered 400."
	}
	params, _ := op["parameters"].([]any)
	op["parameters"] = append(params, map[string]any{
		"name": idempotencyKeyHeader, "in": "header", "required": idem.KeyRequired, "description": desc,
		"schema": map[string]any{"type": "string", "minLength": 1, "maxLength": maxIdempotencyKey},
	})
	success["headers"] = map[string]any{replayedHeader: map[string]any{
		"description": "true when the answer is the stored answer to an earlier request with the same Idempotency-Key, replayed (as is, whatever its status).",
		"schema":      map[string]any{"type": "string", "enum": []any{"true"}},
	}}
	missing := "The Idempotency-Key header is longer than 255 characters (IdempotencyKeyMissing)."
	if idem.KeyRequired {
		missing = "The Idempotency-Key header is missing, empty or longer than 255 characters (IdempotencyKeyMissing)."
	}
	if bad, ok := responses["400"].(map[string]any); ok {
		bad["description"] = bad["description"].(string) + " Or: " + missing
	} else {
		responses["400"] = errorResponse(missing, SchemaError)
	}
	responses["409"] = errorResponse("A request with this Idempotency-Key is still being handled (IdempotencyKeyInUse): retry it later with the same key.", SchemaError)
	responses["422"] = errorResponse("This Idempotency-Key was used with another request: another method, path, query string or body (IdempotencyKeyReused). Send a new key for a new request.", SchemaError)
}

// streamedContent adds the content types of a route's streamed answers
// (framework.Streaming's) to its success response; without them, any
// type (*/*), since the handler picks it when it answers.
func streamedContent(success map[string]any, types []string) {
	content, _ := success["content"].(map[string]any)
	if content == nil {
		content = map[string]any{}
		success["content"] = content
	}
	if len(types) == 0 {
		success["description"] = "The handler's answer, which may be streamed (sent as it is written), in a content type the handler picks."
		content["*/*"] = map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}
		return
	}
	success["description"] = "The handler's answer, which may be streamed (sent as it is written)."
	for _, t := range types {
		media := map[string]any{"schema": map[string]any{"type": "string"}}
		if mt, _, _ := mime.ParseMediaType(t); mt == "text/event-stream" {
			media["schema"] = map[string]any{"type": "string", "description": "Server-Sent Events: \"id:\", \"event:\", \"data:\" and \"retry:\" lines, each event ended by an empty line."}
		}
		content[t] = media
	}
}

// preflightDoc is the CORS preflight operation of a path, answered by API
// Gateway with the headers of ManifestCORS.PreflightHeaders.
func preflightDoc(it *pathItem, methods []string) map[string]any {
	headers := map[string]any{}
	for _, h := range it.cors.PreflightHeaders(methods) {
		headers[h.Name] = map[string]any{"schema": map[string]any{"type": "string", "example": h.Value}}
	}
	op := map[string]any{
		"summary":     "CORS preflight",
		"operationId": "preflight_" + strings.Trim(componentSafe(it.path), "_"),
		"responses":   map[string]any{"200": map[string]any{"description": "The CORS preflight answer.", "headers": headers}},
	}
	if op["operationId"] == "preflight_" {
		op["operationId"] = "preflight_root"
	}
	if len(it.captures) > 0 {
		op["parameters"] = pathParameters(it.captures)
	}
	return op
}

// docSchemes returns the security schemes for the document, without API
// Gateway's extensions, or nil when no route is protected.
func (s *security) docSchemes() map[string]any {
	out := map[string]any{}
	if s.apiKey {
		out[SchemeAPIKey] = map[string]any{"type": "apiKey", "name": "x-api-key", "in": "header", "description": "An API key of the API's usage plan."}
	}
	if s.sigv4 {
		out[SchemeSigV4] = map[string]any{"type": "apiKey", "name": "Authorization", "in": "header", "description": "AWS Signature Version 4 (IAM)."}
	}
	for _, def := range s.byName {
		desc := "A Cognito user pool token."
		switch def.decl.Type {
		case manifest.AuthorizerCustom:
			desc = "A token checked by a Lambda authorizer."
		case manifest.AuthorizerApp:
			desc = "Checked by the app's authorizer " + def.decl.Name + "."
		case manifest.AuthorizerJWT:
			out[def.scheme] = map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "A JSON Web Token issued by " + def.decl.Issuer + "."}
			continue
		}
		name, in := schemeKey(def.decl)
		out[def.scheme] = map[string]any{"type": "apiKey", "name": name, "in": in, "description": desc}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
