package framework

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// route is one registered handler and its declaration.
type route struct {
	// Path is the route pattern, for example "/users/{name}".
	Path string
	// Methods are the upper-case HTTP methods the handler serves.
	Methods []string
	// ContentTypes are the accepted request content types.
	ContentTypes []string
	// Name is the handler's name: the Name option, else the function's name.
	Name string
	// APIKeyRequired is set by the APIKeyRequired option.
	APIKeyRequired bool

	handler        any
	call           handlerFunc
	captures       []string
	ctSet          typeSet
	cors           *CORSConfig
	corsSet        bool
	authorizer     Authorizer
	authorizerName string
	authorizerDecl *manifest.Authorizer
	optErrs        []error
	where          string        // file:line of the registration
	group          *registration // nil for the app's own routes
	groupMW        []Middleware
	mw             []Middleware            // WithMiddleware
	chain          Next                    // the middleware chain, nil without middleware
	input          *typedInput             // a typed handler's body parameter
	output         reflect.Type            // the handler's result type
	status         int                     // Status, 0 when not set
	streaming      bool                    // Streaming: the route may stream its body
	streamTypes    []string                // Streaming's content types
	describe       []func(*manifest.Route) // the guards' additions to the manifest entry

	// guards are the innermost middleware of options (guard.go), and
	// guardGrants the accesses they need.
	guards      []Middleware
	guardGrants []manifest.Grant
}

// handlerFunc is a handler with its captures passed as a slice.
type handlerFunc func(r *Request, args []string) (any, error)

// RouteOption configures a route at registration; build one with
// Methods, ContentTypes, CORS and the other functions returning it.
type RouteOption struct{ apply func(*route) }

// Methods sets the HTTP methods the handler serves (default GET).
func Methods(methods ...string) RouteOption {
	return RouteOption{func(r *route) { r.Methods = append([]string(nil), methods...) }}
}

// ContentTypes sets the request content types the route accepts (default
// application/json). A request with another Content-Type gets 415.
func ContentTypes(types ...string) RouteOption {
	return RouteOption{func(r *route) { r.ContentTypes = append([]string(nil), types...) }}
}

// CORS turns CORS on (allow origin *) or off for the route, overriding
// App.API.CORS.
func CORS(enabled bool) RouteOption {
	return RouteOption{func(r *route) {
		r.corsSet = true
		r.cors = nil
		if enabled {
			r.cors = &CORSConfig{AllowOrigin: "*"}
		}
	}}
}

// WithCORS turns CORS on for the route with the given configuration.
func WithCORS(cfg CORSConfig) RouteOption {
	return RouteOption{func(r *route) {
		c := cfg
		r.corsSet, r.cors = true, &c
	}}
}

// APIKeyRequired makes API Gateway accept only requests with a valid X-Api-Key header.
func APIKeyRequired() RouteOption { return RouteOption{func(r *route) { r.APIKeyRequired = true }} }

// WithAuthorizer protects the route with a RoleAuthorizer, UserPoolAuthorizer,
// CustomAuthorizer, JWTAuthorizer or AppAuthorizer.
func WithAuthorizer(a Authorizer) RouteOption {
	return RouteOption{func(r *route) {
		if v := reflect.ValueOf(a); a == nil || v.Kind() == reflect.Pointer && v.IsNil() {
			r.optErrs = append(r.optErrs, errors.New("WithAuthorizer(nil): pass a RoleAuthorizer, UserPoolAuthorizer, CustomAuthorizer, JWTAuthorizer or AppAuthorizer"))
			a = nil
		}
		r.authorizer = a
	}}
}

// AuthorizerName selects an authorizer declared with App.DefineAuthorizer.
//
// Deprecated: use WithAuthorizer.
func AuthorizerName(name string) RouteOption {
	return RouteOption{func(r *route) { r.authorizerName = name }}
}

// Name sets the handler's name: by default the Go function's name, or for a
// function literal its methods and path ("get_put_items_id"). The name is
// the OpenAPI operation id and appears in logs and errors; handler names
// must be unique among the handlers of one path.
func Name(name string) RouteOption { return RouteOption{func(r *route) { r.Name = name }} }

func newRoute(path string, handler any, opts []RouteOption) *route {
	r := &route{Path: path, handler: handler}
	for _, o := range opts {
		if o.apply == nil {
			r.optErrs = append(r.optErrs, errors.New("an option is the zero RouteOption: build options with the framework's functions (Methods, CORS, ...)"))
			continue
		}
		o.apply(r)
	}
	if r.Methods == nil {
		r.Methods = []string{"GET"}
	}
	for i, m := range r.Methods {
		r.Methods[i] = strings.ToUpper(strings.TrimSpace(m))
	}
	slices.Sort(r.Methods)
	if r.ContentTypes == nil {
		r.ContentTypes = []string{"application/json"}
	}
	if r.Name == "" {
		r.Name = funcName(handler)
		if anonymous(r.Name) {
			r.Name = routeName(r.Methods, path)
		}
	}
	return r
}

// routeName is the name of a route whose handler is a function literal:
// its methods and path, lower case, joined by "_" ("get_put_items_id" for
// GET and PUT on /items/{id}, "get_root" for GET /), which OpenAPI
// operation ids, logs and error messages show instead of "newApp.func2".
func routeName(methods []string, path string) string {
	parts := make([]string, 0, len(methods)+4)
	for _, m := range methods {
		parts = append(parts, strings.ToLower(m))
	}
	for _, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		seg = strings.Trim(replaceRuns(seg, nameByte), "_")
		if seg != "" {
			parts = append(parts, seg)
		}
	}
	if len(parts) == len(methods) {
		parts = append(parts, "root")
	}
	return strings.Join(parts, "_")
}

// funcName returns a short name for a function value: "getUser" for
// main.getUser, "func1" for a function literal in main.
func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	name := runtime.FuncForPC(v.Pointer()).Name()
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.Index(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSuffix(name, "-fm")
}

// validate checks what the manifest does not show (the options' own
// errors, the authorizer, the handler's signature) and prepares the handler;
// manifest.Validate checks the rest.
func (r *route) validate() []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{r.ref()}, args...)...))
	}
	for _, e := range r.optErrs {
		bad("%w", e)
	}
	r.ctSet = newTypeSet(r.ContentTypes)
	if r.authorizer != nil {
		// manifest.Validate checks the declaration, as for every route.
		r.authorizerDecl = r.authorizer.manifest()
	}
	captures, perr := manifest.ParsePath(r.Path)
	r.captures = captures
	if perr != nil {
		return errs // manifest.Validate reports the path
	}
	call, herr := r.makeCall(len(captures))
	if herr != nil {
		bad("%w", herr)
	}
	r.call = call
	return errs
}

// ref names the route in errors: its path, and where it was declared.
func (r *route) ref() string {
	if r.where == "" {
		return "route " + r.Path
	}
	return fmt.Sprintf("route %s (declared at %s)", r.Path, r.where)
}

// manifestRoute is the route as the manifest describes it.
func (r *route) manifestRoute() manifest.Route {
	m := manifest.Route{
		Path: r.Path, Methods: append([]string(nil), r.Methods...), Handler: r.Name,
		ContentTypes: append([]string(nil), r.ContentTypes...), CORS: r.cors.manifest(),
		APIKeyRequired: r.APIKeyRequired, Authorizer: r.authorizerDecl,
		Status: r.status, Declared: r.where, Streaming: r.streaming,
		StreamTypes: append([]string(nil), r.streamTypes...),
		Grants:      r.guardGrants[:len(r.guardGrants):len(r.guardGrants)],
	}
	for _, d := range r.describe {
		d(&m)
	}
	return m
}

var (
	requestType = reflect.TypeOf((*Request)(nil))
	stringType  = reflect.TypeOf("")
	errorType   = reflect.TypeOf((*error)(nil)).Elem()
)

// makeHandler checks a handler's signature against the route's capture count
// and returns a caller that needs no reflection for the common shapes.
func makeHandler(h any, nCaptures int) (handlerFunc, error) {
	switch f := h.(type) {
	case nil:
		return nil, errors.New("the handler is nil")
	case func(*Request) (any, error):
		if nCaptures == 0 {
			return func(r *Request, _ []string) (any, error) { return f(r) }, nil
		}
	case func(*Request, string) (any, error):
		if nCaptures == 1 {
			return func(r *Request, a []string) (any, error) { return f(r, a[0]) }, nil
		}
	case func(*Request, string, string) (any, error):
		if nCaptures == 2 {
			return func(r *Request, a []string) (any, error) { return f(r, a[0], a[1]) }, nil
		}
	}
	v := reflect.ValueOf(h)
	t := v.Type()
	want := "func(*framework.Request" + strings.Repeat(", string", nCaptures) + ") (T, error)"
	if t.Kind() != reflect.Func || v.IsNil() {
		return nil, fmt.Errorf("the handler is a %s, not a function: want %s", t, want)
	}
	if t.IsVariadic() || t.NumIn() != nCaptures+1 || t.In(0) != requestType {
		return nil, fmt.Errorf("the handler %s has %d capture parameter(s) after the *Request but the path has %d capture(s): want %s", t, max(t.NumIn()-1, 0), nCaptures, want)
	}
	for i := 1; i < t.NumIn(); i++ {
		if t.In(i) != stringType {
			return nil, fmt.Errorf("the handler %s: argument %d is %s, not string: want %s", t, i+1, t.In(i), want)
		}
	}
	if t.NumOut() != 2 || t.Out(1) != errorType {
		return nil, fmt.Errorf("the handler %s must return (T, error): want %s", t, want)
	}
	return func(r *Request, args []string) (any, error) {
		in := make([]reflect.Value, len(args)+1)
		in[0] = reflect.ValueOf(r)
		for i, a := range args {
			in[i+1] = reflect.ValueOf(a)
		}
		out := v.Call(in)
		err, _ := out[1].Interface().(error)
		return out[0].Interface(), err
	}, nil
}

// pathEntry is every route of one path pattern.
type pathEntry struct {
	pattern  string
	captures []string
	methods  map[string]*route
	// cors is the shared CORS setting of the path's routes, nil when off;
	// corsHeaders and preflightHeaders are its headers, computed once.
	cors             *manifest.CORS
	corsHeaders      []manifest.HeaderField
	preflightHeaders []manifest.HeaderField
}

// routeTable is the fixed route table: lookup by pattern (Lambda, where API
// Gateway already matched) and by concrete path (local serving).
type routeTable struct {
	byPattern map[string]*pathEntry
	root      *node
	binary    typeSet
	// gatewayCORS are the CORS headers of the deployed REST API's gateway
	// responses, which every answer API Gateway gives itself carries: the
	// headers of the one setting every CORS route shares, nil when no
	// route has CORS or their settings differ (internal/openapi's
	// SharedCORS).
	gatewayCORS []manifest.HeaderField
}

type node struct {
	literal map[string]*node
	capture *node
	entry   *pathEntry
}

// buildTable builds the table of routes that manifest.Validate and
// Route.validate found valid.
func buildTable(routes []*route, binary typeSet) *routeTable {
	t := &routeTable{byPattern: map[string]*pathEntry{}, root: &node{}, binary: binary}
	for _, r := range routes {
		e := t.byPattern[r.Path]
		if e == nil {
			e = &pathEntry{pattern: r.Path, captures: r.captures, methods: map[string]*route{}, cors: r.cors.manifest()}
			t.byPattern[r.Path] = e
			t.insert(e)
		}
		for _, m := range r.Methods {
			e.methods[m] = r
		}
	}
	var shared *manifest.CORS
	mixed := false
	for _, e := range t.byPattern {
		if e.cors != nil {
			e.corsHeaders = e.cors.Headers()
			e.preflightHeaders = e.cors.PreflightHeaders(slices.Collect(maps.Keys(e.methods)))
			if shared == nil {
				shared = e.cors
			}
			mixed = mixed || !shared.Equal(e.cors)
		}
	}
	if shared != nil && !mixed {
		t.gatewayCORS = shared.Headers()
	}
	return t
}

// withGatewayCORS adds the headers of the REST API's gateway responses
// (gatewayCORS) to res, an answer API Gateway gives itself, when it is an
// error: DEFAULT_4XX and DEFAULT_5XX carry them, on every path.
func (t *routeTable) withGatewayCORS(res *result) *result {
	if res.status >= 400 {
		for _, h := range t.gatewayCORS {
			res.setDefault(h.Name, h.Value)
		}
	}
	return res
}

func (t *routeTable) insert(e *pathEntry) {
	n := t.root
	if e.pattern != "/" {
		for _, seg := range strings.Split(e.pattern[1:], "/") {
			if strings.HasPrefix(seg, "{") {
				if n.capture == nil {
					n.capture = &node{}
				}
				n = n.capture
				continue
			}
			if n.literal == nil {
				n.literal = map[string]*node{}
			}
			c := n.literal[seg]
			if c == nil {
				c = &node{}
				n.literal[seg] = c
			}
			n = c
		}
	}
	n.entry = e
}

// match finds the path entry for a concrete, still percent-encoded path and
// returns the decoded capture values. Literal segments win over captures, as
// in API Gateway.
func (t *routeTable) match(escapedPath string) (*pathEntry, []string) {
	if escapedPath == "" || escapedPath[0] != '/' {
		return nil, nil
	}
	var segs []string
	if escapedPath != "/" {
		segs = strings.Split(escapedPath[1:], "/")
	}
	var args []string
	e := matchNode(t.root, segs, &args)
	if e == nil {
		return nil, nil
	}
	for i, a := range args {
		args[i] = unescapeSegment(a)
	}
	return e, args
}

func matchNode(n *node, segs []string, args *[]string) *pathEntry {
	if len(segs) == 0 {
		return n.entry
	}
	seg := segs[0]
	if seg == "" {
		return nil
	}
	if c := n.literal[unescapeSegment(seg)]; c != nil {
		if e := matchNode(c, segs[1:], args); e != nil {
			return e
		}
	}
	if n.capture != nil {
		mark := len(*args)
		*args = append(*args, seg)
		if e := matchNode(n.capture, segs[1:], args); e != nil {
			return e
		}
		*args = (*args)[:mark]
	}
	return nil
}
