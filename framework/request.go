package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// MultiDict maps a key to all of its values, in the order received. Get
// returns the last value, like a plain dict view of repeated keys. Keys are
// case-sensitive: query parameter names are, in API Gateway too.
type MultiDict map[string][]string

// Get returns the last value of key, or "" when it is absent.
func (m MultiDict) Get(key string) string {
	v := m[key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// GetAll returns every value of key.
func (m MultiDict) GetAll(key string) []string { return m[key] }

// Single returns the single-value view (the last value of each key), or nil
// when m is nil.
func (m MultiDict) Single() map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if len(v) > 0 {
			out[k] = v[len(v)-1]
		}
	}
	return out
}

// parseQuery parses a query string as API Gateway passes it on: pairs
// separated by "&" (a ";" belongs to its value), "+" a space, names and
// values percent-decoded; a name or value that is not valid
// percent-encoding ("%zz", "100%") is kept as sent instead of dropping its
// pair, as url.ParseQuery does. It returns nil when raw holds no pair.
func parseQuery(raw string) MultiDict {
	var q MultiDict
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		if q == nil {
			q = MultiDict{}
		}
		k = unescapeQuery(k)
		q[k] = append(q[k], unescapeQuery(v))
	}
	return q
}

// unescapeQuery decodes one query name or value, leaving it as is when it
// is not valid percent-encoding.
func unescapeQuery(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// Headers are request headers: each lower-case name with all of its values,
// in the order received. Ranging over Headers gives the lower-case names.
// Get and Values take a name in any case ("X-Token", "x-token").
type Headers map[string][]string

// Get returns the last value of the header name (in any case), or "" when
// it is absent. The last value is the one API Gateway's single-value header
// map holds when a header is repeated.
func (h Headers) Get(name string) string {
	v := h[strings.ToLower(name)]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// Values returns every value of the header name (in any case), in the
// order received, or nil when it is absent.
func (h Headers) Values(name string) []string { return h[strings.ToLower(name)] }

// Single returns the single-value view (the last value of each header,
// names lower-case), or nil when h is nil.
func (h Headers) Single() map[string]string { return MultiDict(h).Single() }

// Identity is the caller identity API Gateway reports. Each field is nil when
// it does not apply.
type Identity struct {
	AccessKey                      *string `json:"accessKey"`
	AccountID                      *string `json:"accountId"`
	APIKey                         *string `json:"apiKey"`
	Caller                         *string `json:"caller"`
	UserpoolAuthenticationProvider *string `json:"userpoolAuthenticationProvider"`
	UserpoolAuthenticationType     *string `json:"userpoolAuthenticationType"`
	UserpoolIdentityID             *string `json:"userpoolIdentityId"`
	UserpoolIdentityPoolID         *string `json:"userpoolIdentityPoolId"`
	SourceIP                       *string `json:"sourceIp"`
	UserAgent                      *string `json:"userAgent"`
	UserArn                        *string `json:"userArn"`
}

// RequestContext is the request context API Gateway passes along.
type RequestContext struct {
	APIID        string   `json:"apiId"`
	HTTPMethod   string   `json:"httpMethod"`
	Identity     Identity `json:"identity"`
	RequestID    string   `json:"requestId"`
	ResourceID   string   `json:"resourceId"`
	ResourcePath string   `json:"resourcePath"`
	Stage        string   `json:"stage"`
	// Authorizer holds what an authorizer passed on (claims, principalId);
	// nil when the route has none. It is not part of ToDict's context.
	Authorizer map[string]any `json:"-"`
}

// Request is one HTTP request as a handler sees it. Each request has its own
// Request; handlers may keep nothing of it across requests.
type Request struct {
	// QueryParams are the query string parameters; nil when there is no query string.
	QueryParams MultiDict
	// Headers are the request headers, names lower-case; Headers.Get takes
	// a name in any case.
	Headers Headers
	// URIParams are the path captures, percent-decoded; nil when the route has none.
	URIParams map[string]string
	// Method is the HTTP method.
	Method string
	// Path is the request path, without the stage prefix.
	Path string
	// RawBody is the body as received; nil when there is none.
	RawBody []byte
	// GatewayContext is API Gateway's request context (request ID, stage,
	// caller identity, authorizer claims); filled in the same way when the
	// app is served locally.
	GatewayContext RequestContext
	// StageVars are the stage variables; nil when there are none.
	StageVars map[string]string

	ctx        context.Context
	event      *events.APIGatewayProxyRequest
	eventV2    *events.APIGatewayV2HTTPRequest // frontdoor.go
	door       string                          // the front door: doorREST, doorHTTP or doorFunctionURL
	jsonDone   bool
	jsonBody   any
	jsonFailed bool

	args        []string               // the captures, for the middleware chain
	respHeaders []manifest.HeaderField // SetResponseHeader
}

// Context returns the request's context.Context: its deadline is the
// function's timeout (lambda_timeout), deployed and locally, and it
// carries the Lambda context (lambdacontext.FromContext) when deployed.
// As in Lambda, a client that goes away does not cancel it: the handler
// runs on to its end or its deadline (a stream's body is stopped, see
// StreamWriter.Request). Pass it to the calls the handler makes.
func (r *Request) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// Event returns the API Gateway proxy event the request came from, for
// what Request does not carry (multi-value query strings as sent,
// requestContext fields such as domainName); nil when the app is served
// locally. Treat it as read-only.
func (r *Request) Event() *events.APIGatewayProxyRequest { return r.event }

// ContentType returns the media type of the request's Content-Type header,
// lower-case and without parameters, or "" when there is none.
func (r *Request) ContentType() string { return mediaType(r.Headers.Get("content-type")) }

func (r *Request) isJSON() bool { return r.ContentType() == "application/json" }

// errParsingJSON is what a malformed or empty JSON body answers.
var errParsingJSON = BadRequestError{Message: "Error Parsing JSON"}

// JSONBody returns the parsed JSON body when the Content-Type is
// application/json (parameters such as charset allowed), else nil. A
// malformed or empty body returns a BadRequestError, and the request then
// answers 400 {"Code":"BadRequestError","Message":"Error Parsing JSON"}
// even if the handler ignores the error.
func (r *Request) JSONBody() (any, error) {
	if !r.isJSON() {
		return nil, nil
	}
	if !r.jsonDone {
		r.jsonDone = true
		dec := json.NewDecoder(bytes.NewReader(r.RawBody))
		dec.UseNumber()
		if err := dec.Decode(&r.jsonBody); err != nil || dec.More() {
			r.jsonBody, r.jsonFailed = nil, true
		}
	}
	if r.jsonFailed {
		return nil, errParsingJSON
	}
	return r.jsonBody, nil
}

// DecodeJSON decodes the JSON body into v. It fails like JSONBody on a
// malformed body, and with a BadRequestError when the Content-Type is not
// application/json.
func (r *Request) DecodeJSON(v any) error {
	if !r.isJSON() {
		return BadRequestError{Message: "Expected a Content-Type of application/json"}
	}
	if err := json.Unmarshal(r.RawBody, v); err != nil {
		r.jsonDone, r.jsonFailed = true, true
		return errParsingJSON
	}
	return nil
}

// ToDict returns the request as a map with the keys context, headers,
// method, query_params, raw_body, stage_vars and uri_params; headers and
// query_params in their single-value view (header names lower-case),
// context API Gateway's request context (GatewayContext).
func (r *Request) ToDict() map[string]any {
	var raw any
	if r.RawBody != nil {
		raw = string(r.RawBody)
	}
	return map[string]any{
		"context":      r.GatewayContext,
		"headers":      r.Headers.Single(),
		"method":       r.Method,
		"query_params": r.QueryParams.Single(),
		"raw_body":     raw,
		"stage_vars":   r.StageVars,
		"uri_params":   r.URIParams,
	}
}

// mediaType is manifest.MediaType: the lower-case media type of a
// Content-Type or Accept entry, without parameters.
func mediaType(v string) string { return manifest.MediaType(v) }

// typeSet is a set of lower-case media types.
type typeSet map[string]bool

func newTypeSet(types []string) typeSet {
	s := make(typeSet, len(types))
	for _, t := range types {
		s[mediaType(t)] = true
	}
	return s
}

func (s typeSet) has(mt string) bool { return s[mt] }

// matchesAny reports whether a Content-Type header value names one of the
// types in s (or */*).
func (s typeSet) matchesAny(header string) bool {
	for rest, more := header, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		mt := mediaType(part)
		if mt == "*/*" || s[mt] {
			return true
		}
	}
	return false
}

// acceptsFirst reports whether the first media type of an Accept header is
// one of the types in s (or */*): a REST API decodes a base64-encoded
// binary answer only then, whatever the header lists after it.
func (s typeSet) acceptsFirst(accept string) bool {
	first, _, _ := strings.Cut(accept, ",")
	mt := mediaType(first)
	return mt == "*/*" || s[mt]
}
