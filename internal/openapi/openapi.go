package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// Version is the OpenAPI version of the body Build returns.
const Version = "3.0.1"

// API Gateway's extension names, as its OpenAPI import reads them.
const (
	ExtIntegration      = "x-amazon-apigateway-integration"
	ExtAuthorizer       = "x-amazon-apigateway-authorizer"
	ExtAuthType         = "x-amazon-apigateway-authtype"
	ExtBinaryMediaTypes = "x-amazon-apigateway-binary-media-types"
	ExtAPIKeySource     = "x-amazon-apigateway-api-key-source"
	ExtGatewayResponses = "x-amazon-apigateway-gateway-responses"
)

// Fixed security scheme names.
const (
	// SchemeAPIKey is the scheme of routes that require an API key.
	SchemeAPIKey = "api_key"
	// SchemeSigV4 is the scheme of routes protected by IAM (RoleAuthorizer).
	SchemeSigV4 = "sigv4"
)

// Options are the values of the body that come from the deployment, not the manifest.
type Options struct {
	// Title is the API's title; empty means the manifest's app name. (The construct sets e.g. "<app>-<stage>".)
	Title string
	// IntegrationURI is the Lambda proxy integration URI used for every route method:
	// "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/<function arn>/invocations".
	// The construct passes a string holding CDK token markers (e.g. "${Token[TOKEN.123]}"); copy it verbatim.
	IntegrationURI string
	// StreamingIntegrationURI is the integration URI of the routes that
	// stream (manifest.Route.Streaming): the function's streaming
	// invocation, "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2021-11-15/functions/<function arn>/response-streaming-invocations".
	// Needed when a route streams.
	StreamingIntegrationURI string
	// StreamingTimeoutMillis is the integration timeout of the routes that
	// stream (a streamed response may last up to 15 minutes); 0 leaves
	// API Gateway's default.
	StreamingTimeoutMillis int
	// AuthorizerURIs are the Lambda invocation URIs of the app authorizers'
	// functions, by authorizer name (manifest.AuthorizerApp); every app
	// authorizer a route uses needs one.
	AuthorizerURIs map[string]string
}

// pathItem gathers the routes of one path while building.
type pathItem struct {
	path     string
	captures []string
	methods  map[string]*manifest.Route
	cors     *manifest.CORS // the CORS setting every route of the path shares
	first    *manifest.Route
}

// Build returns the OpenAPI definition of the REST API for m: a JSON-ready value (maps, slices, strings,
// numbers, bools only) that the construct hands to CDK whole. Deterministic: the same manifest and options
// give the same value. Errors name the route at fault (for example an authorizer kind it does not know).
func Build(m *manifest.Manifest, o Options) (map[string]any, error) {
	if m == nil {
		return nil, errors.New("openapi: no manifest")
	}
	if m.Version != manifest.Version {
		return nil, fmt.Errorf("openapi: manifest version %d is not %d, the version this framework reads: rebuild the app against this framework", m.Version, manifest.Version)
	}
	title := o.Title
	if title == "" {
		title = m.App
	}
	if strings.TrimSpace(title) == "" {
		return nil, errors.New("openapi: no title: the manifest has no app name and Options.Title is empty")
	}
	if strings.TrimSpace(o.IntegrationURI) == "" {
		return nil, errors.New("openapi: Options.IntegrationURI is empty: every route method needs the Lambda function's invocation URI")
	}
	if err := manifest.Validate(m); err != nil {
		return nil, fmt.Errorf("openapi: the manifest's routes: %w", err)
	}
	binary := binaryMediaTypes(m.BinaryTypes)
	items, order := groupPaths(m.Routes)
	sec := newSecurity()
	sec.appURIs, sec.extension = o.AuthorizerURIs, true
	paths, err := pathsObject(items, order, func(it *pathItem, method string) (map[string]any, error) {
		op := map[string]any{
			"responses":    proxyResponses(),
			ExtIntegration: proxyIntegration(o.IntegrationURI),
		}
		if r := it.methods[method]; r.Streaming {
			integration, err := streamingIntegration(r, o)
			if err != nil {
				return nil, err
			}
			op[ExtIntegration] = integration
		}
		if len(it.captures) > 0 {
			op["parameters"] = pathParameters(it.captures)
		}
		req, err := sec.requirement(it.methods[method])
		if err != nil {
			return nil, err
		}
		if req != nil {
			op["security"] = []any{req}
		}
		return op, nil
	}, func(it *pathItem, methods []string) (map[string]any, error) {
		op, err := preflightOperation(it, methods)
		if err != nil {
			return nil, err
		}
		if len(it.captures) > 0 {
			op["parameters"] = pathParameters(it.captures)
		}
		return op, nil
	})
	if err != nil {
		return nil, err
	}

	doc := map[string]any{
		"openapi":           Version,
		"info":              map[string]any{"title": title, "version": "1.0"},
		"paths":             paths,
		ExtBinaryMediaTypes: binary,
	}
	if schemes := sec.schemes(); len(schemes) > 0 {
		doc["components"] = map[string]any{"securitySchemes": schemes}
	}
	if sec.apiKey {
		doc[ExtAPIKeySource] = "HEADER"
	}
	gr, err := gatewayResponses(m)
	if err != nil {
		return nil, err
	}
	if gr != nil {
		doc[ExtGatewayResponses] = gr
	}
	return doc, nil
}

// Marshal returns doc as indented JSON with sorted keys and a trailing newline (for golden files and synth output).
func Marshal(doc map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi: encoding the definition as JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// routeLabel names a route in error messages.
func routeLabel(r *manifest.Route) string {
	return fmt.Sprintf("route %s %s (handler %q)", strings.Join(r.Methods, ","), r.Path, r.Handler)
}

// groupPaths gathers the routes of a manifest that Validate accepted by
// path; order is the sorted list of paths.
func groupPaths(routes []manifest.Route) (map[string]*pathItem, []string) {
	items := map[string]*pathItem{}
	var order []string
	for i := range routes {
		r := &routes[i]
		it := items[r.Path]
		if it == nil {
			captures, _ := manifest.ParsePath(r.Path) // Validate checked it
			it = &pathItem{path: r.Path, captures: captures, methods: map[string]*manifest.Route{}, cors: r.CORS, first: r}
			items[r.Path] = it
			order = append(order, r.Path)
		}
		for _, m := range r.Methods {
			it.methods[m] = r
		}
	}
	slices.Sort(order)
	return items, order
}

// pathsObject builds the paths object: for each path of order, in turn,
// its methods' operations from op, in the methods' sorted order, then for a
// path with CORS its OPTIONS operation from preflight, which gets the
// sorted methods. The first error ends it.
func pathsObject(items map[string]*pathItem, order []string, op func(it *pathItem, method string) (map[string]any, error), preflight func(it *pathItem, methods []string) (map[string]any, error)) (map[string]any, error) {
	paths := map[string]any{}
	for _, p := range order {
		it := items[p]
		pi := map[string]any{}
		methods := slices.Sorted(maps.Keys(it.methods))
		for _, method := range methods {
			o, err := op(it, method)
			if err != nil {
				return nil, err
			}
			pi[strings.ToLower(method)] = o
		}
		if it.cors != nil {
			o, err := preflight(it, methods)
			if err != nil {
				return nil, err
			}
			pi["options"] = o
		}
		paths[p] = pi
	}
	return paths, nil
}

// pathParameters declares the captures of a path, or returns nil when it has none.
func pathParameters(captures []string) []any {
	if len(captures) == 0 {
		return nil
	}
	out := make([]any, 0, len(captures))
	for _, c := range captures {
		out = append(out, map[string]any{
			"name": c, "in": "path", "required": true,
			"schema": map[string]any{"type": "string"},
		})
	}
	return out
}

// proxyResponses is the responses object of a proxy operation: one 200
// response, since OpenAPI 3.0 requires at least one. The proxy integration
// passes the function's answer through whatever its status, so the
// method response maps nothing.
func proxyResponses() map[string]any {
	return map[string]any{"200": map[string]any{"description": "OK"}}
}

// proxyIntegration is the Lambda proxy integration of every route method.
func proxyIntegration(uri string) map[string]any {
	return map[string]any{
		"type":                "aws_proxy",
		"httpMethod":          "POST",
		"uri":                 uri,
		"passthroughBehavior": "when_no_match",
	}
}

// streamingIntegration is the integration of a route that streams: the
// function's streaming invocation, with the response transfer mode STREAM.
func streamingIntegration(r *manifest.Route, o Options) (map[string]any, error) {
	if strings.TrimSpace(o.StreamingIntegrationURI) == "" {
		return nil, fmt.Errorf("openapi: route %s (handler %s) streams, and Options.StreamingIntegrationURI is empty: it needs the function's response-streaming-invocations URI", r.Path, r.Handler)
	}
	in := proxyIntegration(o.StreamingIntegrationURI)
	in["responseTransferMode"] = "STREAM"
	if o.StreamingTimeoutMillis > 0 {
		in["timeoutInMillis"] = o.StreamingTimeoutMillis
	}
	return in, nil
}

// binaryMediaTypes returns the binary types without duplicates (Validate
// checked them).
func binaryMediaTypes(types []string) []any {
	out := []any{}
	seen := map[string]bool{}
	for _, t := range types {
		if seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
