package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/manifest"
)

// testURI is the integration URI of the tests, with a CDK token marker as
// the construct passes it.
const testURI = "arn:${AWS::Partition}:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${Token[TOKEN.123]}/invocations"

var testOptions = Options{IntegrationURI: testURI}

// get walks doc along keys (map keys, or indexes of arrays) and returns the
// value there.
func get(doc any, keys ...string) (any, bool) {
	v := doc
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// mustJSON decodes a JSON literal written in a test.
func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in the test: %v: %s", err, s)
	}
	return v
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// route is a short way to write a ManifestRoute in a test.
func route(path, handler string, methods ...string) manifest.Route {
	if len(methods) == 0 {
		methods = []string{"GET"}
	}
	return manifest.Route{Path: path, Methods: methods, Handler: handler, ContentTypes: []string{"application/json"}}
}

func newManifest(routes ...manifest.Route) *manifest.Manifest {
	return &manifest.Manifest{Version: manifest.Version, App: "demo", BinaryTypes: []string{}, Routes: routes}
}

// defaultCORS is CORS(true) as framework writes it in a manifest.
func defaultCORS() *manifest.CORS {
	return &manifest.CORS{AllowOrigin: "*", AllowHeaders: append([]string(nil), manifest.DefaultCORSHeaders...)}
}

var (
	requestType = reflect.TypeOf((*framework.Request)(nil))
	anyType     = reflect.TypeOf((*any)(nil)).Elem()
	errorType   = reflect.TypeOf((*error)(nil)).Elem()
)

// handlerMarker is what a handler of appFromManifest answers.
func handlerMarker(name string) string { return "handler:" + name }

// handlerFor makes a handler with n capture parameters that answers
// handlerMarker(name).
func handlerFor(name string, n int) any {
	in := []reflect.Type{requestType}
	for range n {
		in = append(in, reflect.TypeOf(""))
	}
	ft := reflect.FuncOf(in, []reflect.Type{anyType, errorType}, false)
	return reflect.MakeFunc(ft, func([]reflect.Value) []reflect.Value {
		out := reflect.New(anyType).Elem()
		out.Set(reflect.ValueOf(handlerMarker(name)))
		return []reflect.Value{out, reflect.Zero(errorType)}
	}).Interface()
}

// appFromManifest declares, with framework's own API, an app whose
// manifest is m, so that tests can ask framework's local server what it
// answers for the routes of m. It fails the test when the app's manifest
// is not m.
func appFromManifest(t testing.TB, m *manifest.Manifest) *framework.App {
	t.Helper()
	app := framework.New(m.App)
	app.API.BinaryTypes = append([]string(nil), m.BinaryTypes...)
	for _, r := range m.Routes {
		captures, err := manifest.ParsePath(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		opts := []framework.RouteOption{
			framework.Methods(r.Methods...), framework.ContentTypes(r.ContentTypes...), framework.Name(r.Handler),
		}
		if c := r.CORS; c != nil {
			opts = append(opts, framework.WithCORS(framework.CORSConfig{
				AllowOrigin: c.AllowOrigin, AllowHeaders: c.AllowHeaders, ExposeHeaders: c.ExposeHeaders,
				MaxAge: c.MaxAge, AllowCredentials: c.AllowCredentials,
			}))
		}
		if r.APIKeyRequired {
			opts = append(opts, framework.APIKeyRequired())
		}
		if a := r.Authorizer; a != nil {
			switch a.Type {
			case manifest.AuthorizerIAM:
				opts = append(opts, framework.WithAuthorizer(framework.RoleAuthorizer{}))
			case manifest.AuthorizerUserPool:
				opts = append(opts, framework.WithAuthorizer(framework.UserPoolAuthorizer{Name: a.Name, Header: a.Header, ProviderARNs: a.ProviderARNs}))
			case manifest.AuthorizerCustom:
				opts = append(opts, framework.WithAuthorizer(framework.CustomAuthorizer{Name: a.Name, Header: a.Header, AuthorizerURI: a.AuthorizerURI, TTLSeconds: a.TTLSeconds}))
			default:
				t.Fatalf("route %s: authorizer kind %q", r.Path, a.Type)
			}
		}
		app.Route(r.Path, handlerFor(r.Handler, len(captures)), opts...)
	}
	got, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatalf("the app rebuilt from the manifest does not declare: %v", err)
	}
	if compact(got) != compact(m) {
		t.Fatalf("the app rebuilt from the manifest has another manifest:\n got %s\nwant %s", compact(got), compact(m))
	}
	return app
}

// concretePath fills a route pattern's captures with sample values.
func concretePath(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = "v-" + strings.Trim(s, "{}")
		}
	}
	return strings.Join(segs, "/")
}

// bigManifest returns a valid manifest of n routes that uses every feature.
func bigManifest(n int) *manifest.Manifest {
	m := newManifest()
	m.App = "big"
	m.BinaryTypes = []string{"application/octet-stream", "image/png"}
	for i := range n {
		r := route(fmt.Sprintf("/group%d/items%d/{id}", i/10, i), fmt.Sprintf("handler_%d", i))
		switch i % 3 {
		case 1:
			r.Methods = []string{"GET", "PUT"}
		case 2:
			r.Methods = []string{"DELETE", "PATCH", "POST"}
		}
		if i%4 == 0 {
			r.Path = fmt.Sprintf("/group%d/items%d/{id}/sub/{sub}", i/10, i)
		}
		if i%3 == 0 {
			r.CORS = defaultCORS()
		}
		if i%5 == 0 {
			r.APIKeyRequired = true
		}
		switch i % 7 {
		case 1:
			r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerIAM}
		case 2:
			r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerCustom, Name: fmt.Sprintf("custom%d", i%3), Header: "Authorization",
				AuthorizerURI: "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:auth/invocations", TTLSeconds: 300}
		case 3:
			r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization",
				ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_ABC"}}
		}
		m.Routes = append(m.Routes, r)
	}
	// framework's order: by path, then by the first method.
	sort.SliceStable(m.Routes, func(i, j int) bool {
		if m.Routes[i].Path != m.Routes[j].Path {
			return m.Routes[i].Path < m.Routes[j].Path
		}
		return m.Routes[i].Methods[0] < m.Routes[j].Methods[0]
	})
	return m
}

// typicalManifest returns a valid manifest of n routes shaped like a REST
// API: two handlers per path (a reader, GET; a writer, POST on collections
// and PUT, DELETE on items), CORS on a third of the paths, API keys and
// authorizers on some.
func typicalManifest(n int) *manifest.Manifest {
	m := newManifest()
	m.App = "typical"
	m.BinaryTypes = []string{"application/octet-stream"}
	for i := range n {
		p, item := i/2, (i/2)%2 == 1
		path := fmt.Sprintf("/service%d/resource%d", i/50, p)
		if item {
			path += "/{id}"
		}
		r := route(path, fmt.Sprintf("handler_%d", i))
		if i%2 == 1 {
			r.Methods = []string{"POST"}
			if item {
				r.Methods = []string{"DELETE", "PUT"}
			}
		}
		if p%3 == 0 {
			r.CORS = defaultCORS()
		}
		if p%5 == 0 {
			r.APIKeyRequired = true
		}
		if p%4 == 1 {
			r.Authorizer = &manifest.Authorizer{Type: manifest.AuthorizerUserPool, Name: "pool", Header: "Authorization",
				ProviderARNs: []string{"arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_ABC"}}
		}
		m.Routes = append(m.Routes, r)
	}
	return m
}
