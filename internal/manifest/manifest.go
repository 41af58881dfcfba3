package manifest

import (
	"errors"
	"fmt"
	"mime"
	"slices"
	"strconv"
	"strings"
)

// Version is the version of the route manifest format written by
// (*App).Manifest. Readers must refuse a manifest whose version they do not
// know. Version 2 added the event handlers and plain functions (Functions)
// and the typed handlers' schemas: a reader of version 1 would deploy such
// an app without its functions, so it must refuse it instead.
const Version = 2

// Manifest is the machine-readable route table of an app. The app prints it
// as JSON when it runs in manifest mode (see Run); synthesis builds the REST
// API from it, so it carries every route feature API Gateway needs to know.
type Manifest struct {
	// Version is Version.
	Version int `json:"version"`
	// App is the app's name.
	App string `json:"app"`
	// BinaryTypes are the content types the app treats as binary; API
	// Gateway's binaryMediaTypes are set from them.
	BinaryTypes []string `json:"binary_types"`
	// Routes lists one entry per handler, sorted by path and then by the
	// first method.
	Routes []Route `json:"routes"`
	// Functions lists the event handlers and plain functions, each a
	// Lambda function of its own, sorted by name.
	Functions []Function `json:"functions,omitempty"`
	// Schemas are the OpenAPI 3.0 Schema Objects of the named struct types
	// of typed handlers, by component name; the routes' schemas refer to
	// them as {"$ref": "#/components/schemas/<name>"}. Absent without
	// typed handlers.
	Schemas map[string]any `json:"schemas,omitempty"`
	// Resources are the AWS resources the app declares and owns (tables,
	// queues, topics, buckets, secrets, parameters), sorted by name.
	Resources []Resource `json:"resources,omitempty"`
	// Grants are the accesses to declared resources that every function of
	// the app has; routes and functions add their own.
	Grants []Grant `json:"grants,omitempty"`
	// WebSocket is the app's WebSocket API; nil when the app declares no
	// WebSocket handler (websocket.go).
	WebSocket *WebSocket `json:"websocket,omitempty"`
}

// Route is one handler of one path in a Manifest.
type Route struct {
	// Path is the route pattern, for example "/users/{name}".
	Path string `json:"path"`
	// Methods are the upper-case HTTP methods the handler serves, sorted;
	// never OPTIONS on a CORS route (API Gateway answers the preflight).
	Methods []string `json:"methods"`
	// Handler is the handler's name, unique per path.
	Handler string `json:"handler"`
	// ContentTypes are the request content types the route accepts.
	ContentTypes []string `json:"content_types"`
	// CORS is nil when CORS is off for the route; otherwise the headers to send.
	CORS *CORS `json:"cors"`
	// APIKeyRequired is true when requests must carry a valid X-Api-Key.
	APIKeyRequired bool `json:"api_key_required"`
	// Authorizer is nil when the route has no authorizer.
	Authorizer *Authorizer `json:"authorizer"`
	// RequestSchema is the OpenAPI 3.0 Schema Object of a typed handler's
	// request body; nil for a handler without a body parameter.
	RequestSchema map[string]any `json:"request_schema,omitempty"`
	// ResponseSchema is the Schema Object of the handler's result, nil when
	// the handler returns any or a Response.
	ResponseSchema map[string]any `json:"response_schema,omitempty"`
	// Status is the status of the handler's plain values when the route
	// sets one (the Status option); 0 means 200.
	Status int `json:"status,omitempty"`
	// Grants are this route's accesses to declared resources; the REST
	// API's function, which serves every route, has them all.
	Grants []Grant `json:"grants,omitempty"`
	// Streaming is true when the route may stream its response body
	// (framework.Streaming): its front door must stream (a function URL
	// in RESPONSE_STREAM mode, or a REST API's streaming integration).
	Streaming bool `json:"streaming,omitempty"`
	// StreamTypes are the content types of the route's streamed answers
	// (framework.Streaming's arguments, "text/event-stream"), which the
	// OpenAPI document lists; empty when the route does not say.
	StreamTypes []string `json:"stream_types,omitempty"`
	// Idempotency is nil unless the route is idempotent
	// (resource.Idempotent): its clients may send an Idempotency-Key.
	Idempotency *RouteIdempotency `json:"idempotency,omitempty"`
	// Declared is where the route was declared ("dir/file.go:line"), which
	// Validate's errors name; empty when unknown. It is not part of the
	// manifest's JSON.
	Declared string `json:"-"`
}

// RouteIdempotency is what an idempotent route asks of its clients.
type RouteIdempotency struct {
	// KeyRequired is true when a request without an Idempotency-Key
	// header is refused (400).
	KeyRequired bool `json:"key_required,omitempty"`
}

// CORS is the CORS configuration of a route with every default
// filled in. Headers computes the headers it makes; the runtime and the
// deployed API both send exactly those.
type CORS struct {
	// AllowOrigin is the single origin sent in Access-Control-Allow-Origin.
	AllowOrigin string `json:"allow_origin"`
	// AllowHeaders is the full list sent in Access-Control-Allow-Headers,
	// DefaultCORSHeaders included.
	AllowHeaders []string `json:"allow_headers"`
	// ExposeHeaders are sent in Access-Control-Expose-Headers.
	ExposeHeaders []string `json:"expose_headers,omitempty"`
	// MaxAge is sent in Access-Control-Max-Age (seconds); 0 means not sent.
	MaxAge int `json:"max_age,omitempty"`
	// AllowCredentials sends Access-Control-Allow-Credentials: true.
	AllowCredentials bool `json:"allow_credentials,omitempty"`
}

// Authorizer kinds as they appear in Authorizer.Type.
const (
	AuthorizerIAM      = "iam"
	AuthorizerUserPool = "cognito_user_pools"
	AuthorizerCustom   = "custom"
	// AuthorizerApp is an in-app authorizer: a function of the app, of
	// KindAuthorizer and named like the authorizer, that API Gateway calls
	// as a Lambda authorizer (REST TOKEN or REQUEST, HTTP API simple
	// responses).
	AuthorizerApp = "app"
	// AuthorizerJWT checks a JSON Web Token's issuer, audience, expiry and
	// signature: an HTTP API's JWT authorizer.
	AuthorizerJWT = "jwt"
)

// Authorizer describes a route's authorizer.
type Authorizer struct {
	// Type is AuthorizerIAM, AuthorizerUserPool or AuthorizerCustom.
	Type string `json:"type"`
	// Name is the authorizer's name (empty for IAM).
	Name string `json:"name,omitempty"`
	// Header is the request header carrying the token (user pool and custom).
	Header string `json:"header,omitempty"`
	// ProviderARNs are the Cognito user pool ARNs (user pool only).
	ProviderARNs []string `json:"provider_arns,omitempty"`
	// AuthorizerURI is the Lambda invocation URI of a custom authorizer.
	AuthorizerURI string `json:"authorizer_uri,omitempty"`
	// TTLSeconds is how long API Gateway caches the authorizer's answer
	// (custom, user pool and app; 0 turns an app authorizer's cache off).
	TTLSeconds int `json:"ttl_seconds,omitempty"`
	// IdentitySources make an app authorizer a request authorizer: each is
	// "header.NAME" or "query.NAME", and API Gateway answers 401 without
	// calling the authorizer when one is missing. Empty for a token
	// authorizer, whose token is in Header.
	IdentitySources []string `json:"identity_sources,omitempty"`
	// Issuer is a JWT authorizer's token issuer (an https URL, the tokens'
	// iss claim).
	Issuer string `json:"issuer,omitempty"`
	// Audiences are a JWT authorizer's accepted audiences (aud or
	// client_id claim), or a user pool authorizer's app client IDs, which
	// let an HTTP API check its tokens with a JWT authorizer.
	Audiences []string `json:"audiences,omitempty"`
}

// HeaderField is one response header line.
type HeaderField struct{ Name, Value string }

// supportedMethods are the HTTP methods a route may serve, in the order error
// messages list them.
var supportedMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// SupportedMethods returns the HTTP methods a route may serve, upper case:
// GET, POST, PUT, PATCH, DELETE, HEAD and OPTIONS.
func SupportedMethods() []string { return slices.Clone(supportedMethods) }

// ValidMethod reports whether m is one of SupportedMethods, written upper case.
func ValidMethod(m string) bool { return slices.Contains(supportedMethods, m) }

// ParsePath checks a route pattern such as "/users/{name}" and returns its
// capture names in order. A pattern starts with "/", has no empty segment
// and no trailing "/"; a capture is a whole segment {name} whose name is
// letters, digits and _ (not starting with a digit) and appears once;
// literal segments hold only the characters API Gateway allows in a
// resource path.
func ParsePath(pattern string) (captures []string, err error) {
	if !strings.HasPrefix(pattern, "/") {
		return nil, errors.New(`the path does not start with "/": write it as "/` + pattern + `"`)
	}
	if pattern == "/" {
		return nil, nil
	}
	if strings.HasSuffix(pattern, "/") {
		return nil, errors.New(`the path must not end with "/": remove the trailing "/"`)
	}
	segs := strings.Split(pattern[1:], "/")
	for i, seg := range segs {
		switch {
		case seg == "":
			return nil, errors.New(`empty path segment ("//"): remove it`)
		case strings.ContainsAny(seg, "{}"):
			name, ok := captureSegment(seg)
			if !ok {
				return nil, fmt.Errorf("segment %q is malformed: a capture is a whole segment like {name}, with a name of letters, digits and _ not starting with a digit", seg)
			}
			if slices.Contains(captures, name) {
				return nil, duplicateCapture(segs, i, name)
			}
			captures = append(captures, name)
		case !literalSegment(seg):
			return nil, fmt.Errorf("segment %q has characters API Gateway does not allow in a resource path: use letters, digits and ._~!$&'()*+,;=:@-", seg)
		}
	}
	return captures, nil
}

// duplicateCapture is the error of a path whose segment i reuses the
// capture name: it suggests the path with that capture renamed.
func duplicateCapture(segs []string, i int, name string) error {
	fresh := name
	for n := 2; ; n++ {
		fresh = name + strconv.Itoa(n)
		if !slices.Contains(segs, "{"+fresh+"}") {
			break
		}
	}
	renamed := slices.Clone(segs)
	renamed[i] = "{" + fresh + "}"
	return fmt.Errorf("the capture name %q appears twice in the path: give each capture its own name, such as /%s (the handler receives the captures in order, one string argument each)", name, strings.Join(renamed, "/"))
}

// DefaultCORSHeaders are the request headers every CORS route allows.
var DefaultCORSHeaders = []string{"Authorization", "Content-Type", "X-Amz-Date", "X-Amz-Security-Token", "X-Api-Key"}

// WithDefaults returns a copy of c with every default filled in: the origin
// "*" when empty, and AllowHeaders as the sorted union of DefaultCORSHeaders
// and c's own. It returns nil when c is nil.
func (c *CORS) WithDefaults() *CORS {
	if c == nil {
		return nil
	}
	return &CORS{
		AllowOrigin:      c.origin(),
		AllowHeaders:     corsAllowHeaders(c.AllowHeaders),
		ExposeHeaders:    slices.Clone(c.ExposeHeaders),
		MaxAge:           c.MaxAge,
		AllowCredentials: c.AllowCredentials,
	}
}

// corsAllowHeaders is the sorted union of DefaultCORSHeaders and extra.
func corsAllowHeaders(extra []string) []string {
	out := append(slices.Clone(DefaultCORSHeaders), extra...)
	slices.Sort(out)
	return slices.Compact(out)
}

// origin is AllowOrigin, "*" when empty.
func (c *CORS) origin() string {
	if c.AllowOrigin == "" {
		return "*"
	}
	return c.AllowOrigin
}

// Headers returns the headers every answer of a CORS route carries, the
// function's and API Gateway's own alike, in this order:
// Access-Control-Allow-Origin (AllowOrigin, "*" when empty),
// Access-Control-Allow-Headers (DefaultCORSHeaders and AllowHeaders, sorted,
// without duplicates), then Access-Control-Expose-Headers, -Max-Age and
// -Allow-Credentials when set.
func (c *CORS) Headers() []HeaderField {
	h := make([]HeaderField, 0, 5)
	h = append(h,
		HeaderField{"Access-Control-Allow-Origin", c.origin()},
		HeaderField{"Access-Control-Allow-Headers", strings.Join(corsAllowHeaders(c.AllowHeaders), ",")})
	if len(c.ExposeHeaders) > 0 {
		h = append(h, HeaderField{"Access-Control-Expose-Headers", strings.Join(c.ExposeHeaders, ",")})
	}
	if c.MaxAge > 0 {
		h = append(h, HeaderField{"Access-Control-Max-Age", strconv.Itoa(c.MaxAge)})
	}
	if c.AllowCredentials {
		h = append(h, HeaderField{"Access-Control-Allow-Credentials", "true"})
	}
	return h
}

// PreflightHeaders returns the headers of the answer to an OPTIONS preflight
// on a CORS path whose routes serve methods: Access-Control-Allow-Methods
// (methods sorted, then OPTIONS) followed by Headers.
func (c *CORS) PreflightHeaders(methods []string) []HeaderField {
	allow := slices.Sorted(slices.Values(methods))
	allow = append(allow, "OPTIONS")
	return append([]HeaderField{{"Access-Control-Allow-Methods", strings.Join(allow, ",")}}, c.Headers()...)
}

// Equal reports whether c and o make the same headers (Headers); two nil
// settings are equal, a nil and a non-nil one are not.
func (c *CORS) Equal(o *CORS) bool {
	if c == nil || o == nil {
		return c == nil && o == nil
	}
	return slices.Equal(c.Headers(), o.Headers())
}

// validate checks the values API Gateway and browsers can use.
func (c *CORS) validate() error {
	if o := strings.TrimSpace(c.origin()); strings.ContainsAny(o, " ,") {
		return fmt.Errorf("CORS AllowOrigin %q lists several origins: it must be a single origin (a list does not work in every browser); answer OPTIONS yourself to pick one per request", c.AllowOrigin)
	}
	if c.MaxAge < 0 {
		return fmt.Errorf("CORS MaxAge is %d: use 0 (not sent) or a number of seconds", c.MaxAge)
	}
	return nil
}

// label names a route in error messages.
func (r *Route) label() string { return "route " + r.ref() }

// ref is a route's path and handler, and where it was declared when known.
func (r *Route) ref() string {
	if r.Declared != "" {
		return fmt.Sprintf("%s (handler %q, declared at %s)", r.Path, r.Handler, r.Declared)
	}
	return fmt.Sprintf("%s (handler %q)", r.Path, r.Handler)
}

// pathAt is a route's path, and where it was declared when known.
func (r *Route) pathAt() string {
	if r.Declared != "" {
		return fmt.Sprintf("%s (declared at %s)", r.Path, r.Declared)
	}
	return r.Path
}

// ValidateRoutes checks the route table as API Gateway and the runtime
// need it, and returns every problem found (joined with errors.Join), each
// naming the route at fault, or nil. It checks the binary types (no empty
// entry, no "~1" escape); each route's path (ParsePath), methods (at least
// one, each a ValidMethod, none twice, no OPTIONS when CORS is on since API
// Gateway answers the preflight), CORS values and content types (well
// formed, all binary or all non-binary); and the routes sharing a path: no
// method served twice, no handler name used twice, one CORS setting; and
// paths that differ only in capture names, which API Gateway cannot tell
// apart. It is the part of Validate a function built for Lambda runs at
// start-up (package framework), so that it never serves a route table it
// cannot route.
func ValidateRoutes(m *Manifest) error { return errors.Join(m.routeErrors()...) }

// routeErrors is ValidateRoutes's list of problems.
func (m *Manifest) routeErrors() []error {
	var errs []error
	for _, t := range m.BinaryTypes {
		if strings.TrimSpace(t) == "" {
			errs = append(errs, errors.New("binary types: an entry is empty: remove it"))
		} else if strings.Contains(t, "~1") {
			errs = append(errs, fmt.Errorf("binary type %q holds \"~1\": write it with a plain \"/\" (%q); the ~1 escape belongs to JSON Patch paths, and API Gateway would keep it as is", t, strings.ReplaceAll(t, "~1", "/")))
		}
	}
	binary := map[string]bool{}
	for _, t := range m.BinaryTypes {
		binary[MediaType(t)] = true
	}

	type pathRoutes struct {
		first   *Route
		methods map[string]*Route
		names   map[string]bool
	}
	paths := map[string]*pathRoutes{}
	shapes := map[string]*Route{} // pattern with capture names blanked → first route
	for i := range m.Routes {
		r := &m.Routes[i]
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: "+format, append([]any{r.label()}, args...)...))
		}
		_, perr := ParsePath(r.Path)
		if perr != nil {
			bad("%w", perr)
		}
		if len(r.Methods) == 0 {
			bad("no methods: list at least one, for example Methods(\"GET\")")
		}
		for j, meth := range r.Methods {
			if !ValidMethod(meth) {
				bad("method %q is not supported: use %s, upper case", meth, strings.Join(supportedMethods, ", "))
			}
			if slices.Contains(r.Methods[:j], meth) {
				bad("method %s is listed twice: list it once", meth)
			}
		}
		if r.CORS != nil {
			if slices.Contains(r.Methods, "OPTIONS") {
				bad("OPTIONS is listed but CORS is on: API Gateway answers the OPTIONS preflight of a CORS route itself; remove OPTIONS or turn CORS off and answer OPTIONS yourself")
			}
			if err := r.CORS.validate(); err != nil {
				bad("%w", err)
			}
		}
		var nBinary int
		for _, ct := range r.ContentTypes {
			mt, _, err := mime.ParseMediaType(ct)
			if err != nil {
				bad("content type %q is malformed (%v): write it like application/json", ct, err)
				continue
			}
			if binary[mt] {
				nBinary++
			}
		}
		if nBinary > 0 && nBinary < len(r.ContentTypes) {
			bad("content types %v mix binary and non-binary types: list only binary types or only non-binary types", r.ContentTypes)
		}
		for _, ct := range r.StreamTypes {
			if _, _, err := mime.ParseMediaType(ct); err != nil {
				bad("streamed content type %q is malformed (%v): write it like text/event-stream", ct, err)
			}
		}
		if len(r.StreamTypes) > 0 && !r.Streaming {
			bad("streamed content types %v on a route that does not stream: declare it with framework.Streaming", r.StreamTypes)
		}
		if perr != nil {
			continue
		}

		p := paths[r.Path]
		if p == nil {
			shape := Shape(r.Path)
			if other, ok := shapes[shape]; ok {
				errs = append(errs, fmt.Errorf("routes %s and %s: the same path with different capture names; API Gateway needs one name per position, use the same names", other.pathAt(), r.pathAt()))
				continue
			}
			shapes[shape] = r
			p = &pathRoutes{first: r, methods: map[string]*Route{}, names: map[string]bool{}}
			paths[r.Path] = p
		} else if !p.first.CORS.Equal(r.CORS) {
			errs = append(errs, fmt.Errorf("%s and %s set different CORS settings on a shared path: API Gateway answers one preflight per path; give them the same CORS setting", p.first.label(), r.label()))
		}
		if p.names[r.Handler] {
			bad("two handlers named %q share this path: handler names must be unique per path (use the Name option)", r.Handler)
		}
		p.names[r.Handler] = true
		for _, meth := range r.Methods {
			if o, ok := p.methods[meth]; ok && o != r {
				errs = append(errs, fmt.Errorf("route %s: method %s is served by both %q and %q: the routes %s and %s both declare %s; the methods of handlers sharing a path must not overlap", r.Path, meth, o.Handler, r.Handler, o.ref(), r.ref(), meth))
				continue
			}
			p.methods[meth] = r
		}
	}
	return errs
}

// Validate checks the whole manifest and returns every problem found
// (joined with errors.Join), each naming the route, function, authorizer
// or resource at fault, or nil: the route table (ValidateRoutes), then the
// functions, the WebSocket API, the authorizers and the resources, as
// CloudFormation and the services behind them would refuse them.
//
// It is a function, not a method of Manifest, so that a binary that does
// not call it does not link it, with every check it reaches (cron
// expressions, filter policies, names and ARNs): a method Validate() error
// would be kept in every binary that prints a manifest as JSON, because
// the linker keeps the methods of a type converted to an interface when
// some interface with a method of the same name and type is called
// (package framework's input validator is one). A function built for
// Lambda checks its route table only (package framework); the CLI checks
// the rest in every manifest an app prints (internal/build).
func Validate(m *Manifest) error {
	errs := m.routeErrors()
	errs = append(errs, m.validateFunctions()...)
	errs = append(errs, m.validateWebSocket()...)
	errs = append(errs, m.validateAuthorizers()...)
	errs = append(errs, m.validateResources()...)
	return errors.Join(errs...)
}

// Shape is pattern with every capture name blanked: "/u/{}".
func Shape(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

// MediaType returns the lower-case media type of a Content-Type or Accept
// entry without parameters ("" for ""), also for a value mime cannot parse.
func MediaType(v string) string {
	if plainMediaType(v) {
		return v // what mime.ParseMediaType returns, without its allocations
	}
	return mediaTypeParsed(v)
}

// plainMediaType reports whether v is type/subtype alone, both lower-case
// tokens: mime.ParseMediaType returns such a value as it is. Every request
// looks up its Content-Type, and most are such values.
func plainMediaType(v string) bool {
	slash := strings.IndexByte(v, '/')
	if slash <= 0 || slash == len(v)-1 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != slash && !mediaTokenChars.has(v[i]) {
			return false
		}
	}
	return true
}

func mediaTypeParsed(v string) string {
	if v == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(v); err == nil {
		return mt
	}
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return strings.ToLower(strings.TrimSpace(v))
}
