package openapi

import (
	"fmt"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// Prefixes of the header keys in API Gateway's parameter mappings.
const (
	methodResponseHeader  = "method.response.header."
	gatewayResponseHeader = "gatewayresponse.header."
)

// defaultErrorTemplate is the body API Gateway's own default gateway
// responses send; set again so that customizing the headers keeps it.
const defaultErrorTemplate = `{"message":$context.error.messageString}`

// staticValue quotes v as a static value of an API Gateway parameter
// mapping. Such a value cannot hold a single quote.
func staticValue(v string) (string, error) {
	if strings.Contains(v, "'") {
		return "", fmt.Errorf("the value %q holds a single quote, which an API Gateway static header value cannot express", v)
	}
	return "'" + v + "'", nil
}

// preflightOperation is the OPTIONS operation of a CORS path: API Gateway
// answers it itself (MOCK integration) with the headers framework's local
// server sends for the preflight. methods are the path's methods, sorted.
func preflightOperation(it *pathItem, methods []string) (map[string]any, error) {
	hs := it.cors.PreflightHeaders(methods)
	params := map[string]any{}
	declared := map[string]any{}
	for _, h := range hs {
		v, err := staticValue(h.Value)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: CORS header %s: %w", routeLabel(it.first), h.Name, err)
		}
		params[methodResponseHeader+h.Name] = v
		declared[h.Name] = map[string]any{"schema": map[string]any{"type": "string"}}
	}
	return map[string]any{
		"responses": map[string]any{
			"200": map[string]any{
				"description": "CORS preflight",
				"headers":     declared,
			},
		},
		ExtIntegration: map[string]any{
			"type":                "mock",
			"requestTemplates":    map[string]any{"application/json": `{"statusCode": 200}`},
			"passthroughBehavior": "when_no_match",
			"responses": map[string]any{
				"default": map[string]any{
					"statusCode":         "200",
					"responseParameters": params,
					"responseTemplates":  map[string]any{"application/json": ""},
				},
			},
		},
	}, nil
}

// SharedCORS returns the CORS setting whose headers the API's gateway
// responses (DEFAULT_4XX, DEFAULT_5XX) carry: the one setting every CORS
// route of m shares. It returns nil when no route has CORS, and also when
// CORS routes differ, since gateway responses are set for the whole API and
// no single set of headers fits every path (see the package documentation).
// It does not check the routes; Build does.
func SharedCORS(m *manifest.Manifest) *manifest.CORS {
	var shared *manifest.CORS
	for i := range m.Routes {
		c := m.Routes[i].CORS
		if c == nil {
			continue
		}
		if shared == nil {
			shared = c
		} else if !shared.Equal(c) {
			return nil
		}
	}
	return shared
}

// gatewayResponses returns x-amazon-apigateway-gateway-responses for m, or
// nil when the API keeps API Gateway's defaults.
func gatewayResponses(m *manifest.Manifest) (map[string]any, error) {
	c := SharedCORS(m)
	if c == nil {
		return nil, nil
	}
	params := map[string]any{}
	for _, h := range c.Headers() {
		v, err := staticValue(h.Value)
		if err != nil {
			return nil, fmt.Errorf("openapi: gateway responses: CORS header %s: %w", h.Name, err)
		}
		params[gatewayResponseHeader+h.Name] = v
	}
	out := map[string]any{}
	for _, t := range []string{"DEFAULT_4XX", "DEFAULT_5XX"} {
		p := make(map[string]any, len(params))
		for k, v := range params {
			p[k] = v
		}
		out[t] = map[string]any{
			"responseParameters": p,
			"responseTemplates":  map[string]any{"application/json": defaultErrorTemplate},
		}
	}
	return out, nil
}
