// Command kitchensink exercises every route feature of the framework: JSON,
// captures, query strings, forms, binary bodies, errors, CORS, shared paths,
// gzip and multi-value headers.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/framework-dev/framework/framework"
)

// binaryOut is the body of GET /binary-out: a PNG signature and bytes that
// are not valid UTF-8.
var binaryOut = []byte{0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF}

func newApp() *framework.App {
	app := framework.New("kitchensink")
	app.Debug = os.Getenv("KITCHENSINK_DEBUG") == "1"
	if os.Getenv("KITCHENSINK_JSON_BINARY") != "0" {
		// Spec 4.4: gzip-compressed JSON needs application/json among the binary types.
		app.API.BinaryTypes = append(app.API.BinaryTypes, "application/json")
	}

	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"hello": "world"}, nil
	}, framework.Name("index"))

	app.Route("/users/{name}", func(r *framework.Request, name string) (any, error) {
		body, err := r.JSONBody()
		if err != nil {
			return nil, err
		}
		return map[string]any{"name": name, "method": r.Method, "uri_params": r.URIParams, "json_body": body}, nil
	}, framework.Methods("GET", "PUT"), framework.Name("users"))

	app.Route("/echo", func(r *framework.Request) (any, error) {
		d := r.ToDict()
		delete(d, "raw_body")
		body, err := r.JSONBody()
		if err != nil {
			return nil, err
		}
		d["json_body"] = body
		return d, nil
	}, framework.Methods("POST"), framework.Name("echo"))

	app.Route("/qs", func(r *framework.Request) (any, error) {
		var lists map[string][]string
		if r.QueryParams != nil {
			lists = r.QueryParams
		}
		return map[string]any{"query_params": r.QueryParams.Single(), "lists": lists}, nil
	}, framework.Name("qs"))

	app.Route("/form", func(r *framework.Request) (any, error) {
		body, _ := r.JSONBody()
		parsed, err := url.ParseQuery(string(r.RawBody))
		if err != nil {
			return nil, framework.BadRequestError{Message: "malformed form body: " + err.Error()}
		}
		return map[string]any{"raw_body": string(r.RawBody), "json_body": body, "parsed": parsed}, nil
	}, framework.Methods("POST"), framework.ContentTypes("application/x-www-form-urlencoded"), framework.Name("form"))

	app.Route("/binary", func(r *framework.Request) (any, error) {
		return framework.Response{Body: r.RawBody, Headers: map[string]string{"Content-Type": "application/octet-stream"}}, nil
	}, framework.Methods("POST"), framework.ContentTypes("application/octet-stream"), framework.Name("binary"))

	app.Route("/binary-out", func(r *framework.Request) (any, error) {
		return framework.Response{Body: binaryOut, Headers: map[string]string{"Content-Type": "application/octet-stream"}}, nil
	}, framework.Name("binary_out"))

	app.Route("/error/{kind}", func(r *framework.Request, kind string) (any, error) {
		if err := errorOfKind(kind); err != nil {
			return nil, err
		}
		return map[string]string{"unknown_kind": kind}, nil
	}, framework.Name("error"))

	app.Route("/boom", func(r *framework.Request) (any, error) {
		return nil, fmt.Errorf("kaboom: %w", errors.New("something broke"))
	}, framework.Name("boom"))

	app.Route("/cors", func(r *framework.Request) (any, error) {
		return map[string]string{"cors": "default", "method": r.Method}, nil
	}, framework.Methods("GET", "POST"), framework.CORS(true), framework.Name("cors"))

	app.Route("/cors-custom", func(r *framework.Request) (any, error) {
		return map[string]string{"cors": "custom", "method": r.Method}, nil
	}, framework.Methods("GET", "PUT"), framework.WithCORS(customCORS), framework.Name("cors_custom"))

	app.Route("/none", func(r *framework.Request) (any, error) { return nil, nil }, framework.Name("none"))

	app.Route("/created", func(r *framework.Request) (any, error) {
		return framework.Response{StatusCode: 201, Body: "created!", Headers: map[string]string{"Content-Type": "text/plain"}}, nil
	}, framework.Methods("POST"), framework.Name("created"))

	app.Route("/shared", func(r *framework.Request) (any, error) {
		return map[string]string{"view": "shared_get"}, nil
	}, framework.Name("shared_get"))
	app.Route("/shared", func(r *framework.Request) (any, error) {
		body, err := r.JSONBody()
		if err != nil {
			return nil, err
		}
		return map[string]any{"view": "shared_post", "json_body": body}, nil
	}, framework.Methods("POST"), framework.Name("shared_post"))

	app.Route("/gzip", func(r *framework.Request) (any, error) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write([]byte(`{"compressed": true, "items": [0,1,2,3,4]}`)); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return framework.Response{Body: buf.Bytes(), Headers: map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}}, nil
	}, framework.Name("gzip"))

	app.Route("/headers", func(r *framework.Request) (any, error) {
		return framework.Response{
			Body:              "headers test",
			Headers:           map[string]string{"Content-Type": "text/plain", "x-lower-case": "lower", "X-Mixed-Case": "Mixed"},
			MultiValueHeaders: map[string][]string{"Set-Cookie": {"a=1", "b=2"}},
		}, nil
	}, framework.Name("headers"))
	return app
}

var customCORS = framework.CORSConfig{
	AllowOrigin:      "https://foo.example.com",
	AllowHeaders:     []string{"X-Special-Header"},
	MaxAge:           600,
	ExposeHeaders:    []string{"X-Special-Header"},
	AllowCredentials: true,
}

// errorOfKind returns the built-in error named by kind, or nil.
func errorOfKind(kind string) error {
	return builtinErrors[kind]
}

// builtinErrors are the built-in errors by the kind that names them.
var builtinErrors = map[string]error{
	"badrequest":    framework.BadRequestError{Message: "BadRequestError raised"},
	"unauthorized":  framework.UnauthorizedError{Message: "UnauthorizedError raised"},
	"forbidden":     framework.ForbiddenError{Message: "ForbiddenError raised"},
	"notfound":      framework.NotFoundError{Message: "NotFoundError raised"},
	"conflict":      framework.ConflictError{Message: "ConflictError raised"},
	"unprocessable": framework.UnprocessableEntityError{Message: "UnprocessableEntityError raised"},
	"toomany":       framework.TooManyRequestsError{Message: "TooManyRequestsError raised"},
	"frameworkview": framework.FrameworkViewError{Message: "FrameworkViewError raised"},
}

func main() { newApp().Run() }
