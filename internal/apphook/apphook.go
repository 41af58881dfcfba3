// Package apphook reaches what an App does beyond framework's public API:
// its route manifest, its one dispatch point and the API Gateway emulation
// that `framework local` and frameworktest share. Package framework sets Of
// when it is initialized; only this repository's packages can import this
// one, so none of it is API an app author sees.
package apphook

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/internal/manifest"
)

// App is an app's internals.
type App interface {
	// Manifest returns the app's route manifest, or its declaration errors.
	Manifest() (*manifest.Manifest, error)
	// Invoke delivers one event to the handler named name ("" or "api" for
	// the REST API's function, whose event is an API Gateway proxy event)
	// and returns its JSON result, as the deployed function does.
	Invoke(ctx context.Context, name string, event []byte) ([]byte, error)
	// HandleEvent answers one API Gateway REST API proxy event, as the
	// REST API's function does.
	HandleEvent(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)
	// Handler serves the app over HTTP as the deployed API would at stage:
	// API Gateway's own answers first, then the function's.
	Handler(stage string) http.Handler
	// Serve serves the app over HTTP on l, as `framework local` does, until
	// ctx is done; then it shuts down gracefully.
	Serve(ctx context.Context, l net.Listener, stage string) error
	// GatewayEvent is the proxy event the deployed API would send the
	// function for a request; target is the path, still percent-encoded,
	// with an optional query string.
	GatewayEvent(method, target string, body []byte, headers map[string]string, stage string) events.APIGatewayProxyRequest
	// GatewayAnswer is the answer API Gateway gives ev itself, before the
	// function runs, and true; or nil and false when ev reaches the function.
	GatewayAnswer(ev events.APIGatewayProxyRequest) (*events.APIGatewayProxyResponse, bool)
	// Authorize runs the app authorizer of the route ev reaches, if any, as
	// API Gateway does before sending ev on: it returns API Gateway's
	// refusal and true, or fills ev.RequestContext.Authorizer and returns
	// false.
	Authorize(ctx context.Context, ev *events.APIGatewayProxyRequest) (*events.APIGatewayProxyResponse, bool)
	// GatewayBody is the body a client receives when the function answers
	// ev with out (API Gateway decodes base64 bodies the client accepts as
	// binary).
	GatewayBody(ev events.APIGatewayProxyRequest, out events.APIGatewayProxyResponse) []byte

	// The front doors other than the REST API (apiType "http" or
	// "function_url", config.json's api_type), payload format 2.0.

	// FrontDoorHandler is Handler answering as the front door apiType
	// would ("" or "rest" for the REST API).
	FrontDoorHandler(stage, apiType string) http.Handler
	// HandleHTTPEvent answers one 2.0 event, as the API's function does.
	HandleHTTPEvent(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	// HTTPEvent is the 2.0 event the front door would send the function
	// for a request.
	HTTPEvent(method, target string, body []byte, headers map[string]string, stage, apiType string) events.APIGatewayV2HTTPRequest
	// HTTPGatewayAnswer is the answer the front door gives ev itself, and
	// true; or nil and false when ev reaches the function.
	HTTPGatewayAnswer(ev events.APIGatewayV2HTTPRequest) (*events.APIGatewayV2HTTPResponse, bool)
	// AuthorizeHTTP is Authorize for the 2.0 event of an HTTP API.
	AuthorizeHTTP(ctx context.Context, ev *events.APIGatewayV2HTTPRequest) (*events.APIGatewayV2HTTPResponse, bool)

	// Resources the app declares and owns (package framework/resource).

	// DeclareResource declares r, written at where (file:line); the
	// manifest lists it in Resources.
	DeclareResource(r manifest.Resource, where string)
	// Grant gives access g to the handlers named (route handlers, event
	// handlers, plain functions), or to every function of the app when
	// none is named; written at where. A handler name the app does not
	// declare is a declaration error.
	Grant(g manifest.Grant, handlers []string, where string)
	// Refuse records a declaration error found before the manifest is
	// made.
	Refuse(err error)
}

// SourcePrefix starts the queue, topic, bucket or stream given to an event
// handler's registration when it is a declared resource: "resource:NAME"
// becomes the function's SourceResource.
const SourcePrefix = "resource:"

// Caller returns "dir/file.go:line" of the function skip frames above the
// one calling Caller (0: that one itself, 1: its caller), or "?".
func Caller(skip int) string {
	_, file, line, ok := runtime.Caller(skip + 1)
	if !ok {
		return "?"
	}
	return filepath.Base(filepath.Dir(file)) + "/" + filepath.Base(file) + ":" + strconv.Itoa(line)
}

// Of returns the internals of app, a *framework.App. It is nil until
// package framework is initialized, which importing it does.
var Of func(app any) App

// stageKey is the context key of WithStage.
type stageKey struct{}

// WithStage returns ctx carrying stage as the stage an invocation serves:
// frameworktest gives an event handler the stage of its Client this way,
// as framework local and the deployed function give it FRAMEWORK_STAGE.
func WithStage(ctx context.Context, stage string) context.Context {
	return context.WithValue(ctx, stageKey{}, stage)
}

// StageOf returns the stage WithStage put in ctx, or "".
func StageOf(ctx context.Context) string {
	s, _ := ctx.Value(stageKey{}).(string)
	return s
}
