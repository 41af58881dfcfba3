// Package framework turns Go functions into a REST API that runs on AWS
// Lambda behind API Gateway, and on a local HTTP server during development,
// with the same request pipeline in both places.
//
// Declare routes on an App, then run it from main:
//
//	app := framework.New("hello")
//	app.Route("/users/{name}", func(r *framework.Request, name string) (any, error) {
//		return map[string]string{"name": name}, nil
//	}, framework.Methods("GET", "PUT"))
//	app.Run()
//
// A handler's return value becomes a JSON response; a *Response sets status,
// headers and body exactly; a ViewError such as NotFoundError becomes
// {"Code": ..., "Message": ...} with its status.
package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/aws/aws-lambda-go/events"
)

// defaultBinaryTypes returns the content types an App treats as binary unless
// the app changes App.API.BinaryTypes.
func defaultBinaryTypes() []string {
	return []string{
		"application/octet-stream", "application/x-tar", "application/zip",
		"audio/basic", "audio/ogg", "audio/mp4", "audio/mpeg", "audio/wav", "audio/webm",
		"image/png", "image/jpg", "image/jpeg", "image/gif",
		"video/ogg", "video/mpeg", "video/webm",
	}
}

// App is an application: a name, settings and a route table. Configure it and
// register routes before it serves; after the first request or Validate call,
// the route table is fixed.
type App struct {
	// Name is the application's name; stacks and functions are named after it.
	Name string
	// Debug makes an uncaught error answer with its text and stack trace
	// (text/plain) instead of the generic internal-error body.
	Debug bool
	// ErrorLog receives one line per uncaught error or panic of a
	// route, its middleware or an event handler, whatever Debug says (JSON
	// in Lambda and in tests, the readable local format when Run serves on
	// this machine; see logtext.go):
	// level ERROR, msg ("panic" or "uncaught error"), request_id (the
	// Lambda request id, in Lambda), api_request_id, method, resource,
	// path, handler (and kind for an event handler), error, and for a
	// panic its stack. A ViewError writes none. Each line is one Write,
	// and writes are serialized. Nil means os.Stderr, which `framework
	// local` shows and Lambda sends to CloudWatch Logs. Set it before the
	// app serves.
	ErrorLog io.Writer
	// API holds the settings of the REST API as a whole.
	API struct {
		// BinaryTypes are the content types treated as binary, in requests
		// and responses. Change the slice before the app serves its first
		// request.
		BinaryTypes []string
		// CORS turns CORS on for every route that does not set it itself.
		CORS bool
	}

	mu          sync.Mutex
	routes      []*route
	regErrs     []error
	authorizers map[string]*manifest.Authorizer // DefineAuthorizer (deprecated)

	once  sync.Once
	table *routeTable
	err   error

	functions []*function // event handlers and plain functions
	// apiEvents serves the API's events in dispatch (handleEvent when nil;
	// Run sets the access-logged handleEvent in Lambda mode).
	apiEvents func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)
	// apiEventsV2 is apiEvents for payload format 2.0 events (frontdoor.go).
	apiEventsV2 func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	middleware  []kindMiddleware // Use, UseFor
	groups      []registration   // Register
	authCache   authCache        // app authorizers' answers, as API Gateway caches them (appauth_gateway.go)
	logFmt      string           // the error lines' format, as Run chose it (logFormat); "" is JSON
	resources   []resourceDecl   // declared with package framework/resource
	grants      []grantDecl
	ws          wsDecl // the WebSocket API (websocket.go)
}

// New returns an App named name with the default binary types.
func New(name string) *App {
	a := &App{Name: name}
	a.API.BinaryTypes = defaultBinaryTypes()
	return a
}

// Route registers handler for path. The handler's type is
// func(*Request, string...) (T, error) with one string parameter per
// {capture} in path, in order; T is any type. Options set the methods
// (default GET), content types, CORS, API key and authorizer.
//
// Registration never panics: a wrong declaration is reported, with the route
// named, by Validate, Run and the first request.
func (a *App) Route(path string, handler any, opts ...RouteOption) {
	r := newRoute(path, handler, opts)
	r.where = callerAt(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("route %s: registered after the app started serving; register every route before Run", path))
		return
	}
	a.routes = append(a.routes, r)
}

// DefineAuthorizer declares a named authorizer that routes select with
// AuthorizerName. authType is "iam", "cognito_user_pools" or "custom"; for
// cognito_user_pools pass the user pool ARNs, for custom the authorizer URI.
//
// Deprecated: pass a RoleAuthorizer, UserPoolAuthorizer or CustomAuthorizer
// to WithAuthorizer instead.
func (a *App) DefineAuthorizer(name, header, authType string, providerARNsOrURI ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.authorizers == nil {
		a.authorizers = map[string]*manifest.Authorizer{}
	}
	m := &manifest.Authorizer{Type: authType, Name: name, Header: header}
	switch authType {
	case manifest.AuthorizerUserPool:
		m.ProviderARNs = append([]string(nil), providerARNsOrURI...)
	case manifest.AuthorizerCustom:
		if len(providerARNsOrURI) > 0 {
			m.AuthorizerURI = providerARNsOrURI[0]
		}
		m.TTLSeconds = 300
	case manifest.AuthorizerIAM:
		m.Name, m.Header = "", ""
	default:
		a.regErrs = append(a.regErrs, fmt.Errorf("authorizer %q: unknown type %q: use %q, %q or %q", name, authType, manifest.AuthorizerIAM, manifest.AuthorizerUserPool, manifest.AuthorizerCustom))
		return
	}
	if m.Header == "" && authType != manifest.AuthorizerIAM {
		m.Header = "Authorization"
	}
	a.authorizers[name] = m
}

// Validate checks every declaration and returns all problems found,
// each naming the route involved, or nil. The error's text lists the
// problems one a line, sorted; its Unwrap() []error returns them one by
// one, so errors.Is and errors.As look at each.
//
// Built for Lambda (-tags lambda.norpc, as framework deploy builds a
// function), it checks what the function itself relies on, its route table
// included, but not what only the deployment uses (schedule expressions,
// event sources, filter policies, authorizer settings, resources): the
// framework command checks those in the app's manifest before it
// synthesizes, deploys or serves anything, and the deployed binary is
// smaller without them.
func (a *App) Validate() error {
	if _, err := a.compiled(); err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.regErrs) > 0 {
		return &declarationError{errs: a.regErrs}
	}
	return nil
}

// compiled fixes the route table on first use.
func (a *App) compiled() (*routeTable, error) {
	a.once.Do(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.table, a.err = a.compile()
	})
	return a.table, a.err
}

func (a *App) compile() (*routeTable, error) {
	var errs []error
	errs = append(errs, a.regErrs...)
	errs = append(errs, a.expandGroups()...)
	if strings.TrimSpace(a.Name) == "" {
		errs = append(errs, errors.New("app: the app name is empty: pass one to framework.New"))
	}
	for _, r := range a.routes {
		if !r.corsSet && a.API.CORS {
			r.cors = &CORSConfig{AllowOrigin: "*"}
		}
		if r.authorizerName != "" && r.authorizer == nil {
			def, ok := a.authorizers[r.authorizerName]
			if !ok {
				errs = append(errs, fmt.Errorf("%s: authorizer %q is not defined: call DefineAuthorizer first, or better pass an authorizer with WithAuthorizer", r.ref(), r.authorizerName))
			} else {
				r.authorizerDecl = def
			}
		}
		errs = append(errs, r.validate()...)
	}
	errs = append(errs, a.addAppAuthorizers()...)
	errs = append(errs, a.addWebSocketAuthorizers()...)
	errs = append(errs, a.validateFunctions()...)
	clashes, kept := conflicts(a.routes)
	errs = append(errs, clashes...)
	m := a.manifestOf(kept)
	errs = append(errs, a.validateResources(m)...)
	if err := validateManifest(m); err != nil {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			errs = append(errs, joined.Unwrap()...)
		} else {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, &declarationError{errs: errs}
	}
	a.chainMiddleware()
	a.chainFunctionMiddleware()
	return buildTable(a.routes, newTypeSet(a.API.BinaryTypes)), nil
}

// routeManifest returns the app's route table, or the declaration errors.
func (a *App) routeManifest() (*manifest.Manifest, error) {
	if _, err := a.compiled(); err != nil {
		return nil, err
	}
	return a.manifest(), nil
}

// manifest describes the registered routes, sorted by path and then by the
// first method.
func (a *App) manifest() *manifest.Manifest { return a.manifestOf(a.routes) }

// manifestOf describes routes as manifest does.
func (a *App) manifestOf(routes []*route) *manifest.Manifest {
	m := &manifest.Manifest{Version: manifest.Version, App: a.Name, BinaryTypes: append([]string{}, a.API.BinaryTypes...), Routes: make([]manifest.Route, 0, len(routes))}
	ss := newSchemaSet()
	for _, r := range routes {
		mr := r.manifestRoute()
		r.schemas(ss, &mr)
		m.Routes = append(m.Routes, mr)
	}
	if len(ss.components) > 0 {
		m.Schemas = ss.components
	}
	// sort.SliceStable, not slices.SortStableFunc: one copy of the code
	// serves every type, where each type of a generic sort adds 10 KB to
	// the function's binary.
	sort.SliceStable(m.Routes, func(i, j int) bool {
		x, y := &m.Routes[i], &m.Routes[j]
		if c := strings.Compare(x.Path, y.Path); c != 0 {
			return c < 0
		}
		return firstOr(x.Methods) < firstOr(y.Methods)
	})
	m.Functions = a.manifestFunctions()
	a.addResources(m)
	a.addWebSocketManifest(m)
	return m
}

func firstOr(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// declarationError lists every problem found in an app's declarations:
// its routes, event handlers, plain functions and resources.
type declarationError struct{ errs []error }

// Error lists every problem, one a line, sorted.
func (e *declarationError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = err.Error()
	}
	slices.Sort(msgs)
	noun := "declarations"
	if len(msgs) == 1 {
		noun = "declaration"
	}
	return fmt.Sprintf("%d invalid %s:\n  %s", len(msgs), noun, strings.Join(msgs, "\n  "))
}

// Unwrap returns the individual problems.
func (e *declarationError) Unwrap() []error { return e.errs }
