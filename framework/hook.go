package framework

import (
	"context"
	"net"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
)

func init() {
	apphook.Of = func(app any) apphook.App { return internals{app.(*App)} }
}

// internals is an App as apphook reaches it.
type internals struct{ a *App }

func (i internals) Manifest() (*manifest.Manifest, error) { return i.a.routeManifest() }

func (i internals) Invoke(ctx context.Context, name string, event []byte) ([]byte, error) {
	return i.a.invokeNamed(ctx, name, event)
}

func (i internals) HandleEvent(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return i.a.handleEvent(ctx, ev)
}

func (i internals) Handler(stage string) http.Handler { return i.a.httpHandler(stage) }

func (i internals) Serve(ctx context.Context, l net.Listener, stage string) error {
	return i.a.serve(ctx, l, stage, nil)
}

func (i internals) GatewayEvent(method, target string, body []byte, headers map[string]string, stage string) events.APIGatewayProxyRequest {
	return i.a.gatewayEvent(method, target, body, headers, stage)
}

func (i internals) GatewayAnswer(ev events.APIGatewayProxyRequest) (*events.APIGatewayProxyResponse, bool) {
	return i.a.gatewayAnswerOf(ev)
}

func (i internals) Authorize(ctx context.Context, ev *events.APIGatewayProxyRequest) (*events.APIGatewayProxyResponse, bool) {
	return i.a.authorizeEvent(ctx, ev)
}

func (i internals) GatewayBody(ev events.APIGatewayProxyRequest, out events.APIGatewayProxyResponse) []byte {
	return i.a.gatewayBody(ev, out)
}

func (i internals) FrontDoorHandler(stage, apiType string) http.Handler {
	return i.a.frontDoorHandler(stage, apiType)
}

func (i internals) HandleHTTPEvent(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return i.a.handleEventV2(ctx, ev)
}

func (i internals) HTTPEvent(method, target string, body []byte, headers map[string]string, stage, apiType string) events.APIGatewayV2HTTPRequest {
	return i.a.gatewayEventV2(method, target, body, headers, stage, apiType)
}

func (i internals) HTTPGatewayAnswer(ev events.APIGatewayV2HTTPRequest) (*events.APIGatewayV2HTTPResponse, bool) {
	return i.a.gatewayAnswerV2(ev)
}

func (i internals) AuthorizeHTTP(ctx context.Context, ev *events.APIGatewayV2HTTPRequest) (*events.APIGatewayV2HTTPResponse, bool) {
	return i.a.authorizeEventV2(ctx, ev)
}

func (i internals) DeclareResource(r manifest.Resource, where string) {
	i.a.declareResource(r, where)
}

func (i internals) Grant(g manifest.Grant, handlers []string, where string) {
	i.a.grantResource(g, handlers, where)
}

func (i internals) Refuse(err error) { i.a.refuse(err) }
