package constructs

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// hasWebSocket reports whether m declares a WebSocket API.
func hasWebSocket(m *manifest.Manifest) bool {
	return m.WebSocket != nil && len(m.WebSocketFunctions()) > 0
}

// webSocketStage is the WebSocket API's stage name: the REST API's stage
// name, so that the management endpoint reads like the API's URL.
func webSocketStage(cfg *Config) string {
	if cfg.APIGatewayStage != "" {
		return cfg.APIGatewayStage
	}
	return "api"
}

// buildWebSocketAPI adds the WebSocket API itself, before the roles and
// functions that name it (the management endpoint in their environment,
// execute-api:ManageConnections on its connections in their policies).
func (a *App) buildWebSocketAPI(p *Prepared) {
	if !hasWebSocket(p.Manifest) {
		return
	}
	a.WebSocketAPI = awsapigatewayv2.NewCfnApi(a.Construct, jsii.String("WebSocketApi"), &awsapigatewayv2.CfnApiProps{
		Name:                     jsii.String(p.Name + "-ws"),
		Description:              jsii.String("WebSocket API of " + p.Name),
		ProtocolType:             jsii.String("WEBSOCKET"),
		RouteSelectionExpression: jsii.String(p.Manifest.WebSocket.RouteSelection),
	})
}

// WebSocketURL is the wss:// URL clients connect to; nil without a
// WebSocket API.
func (a *App) WebSocketURL() *string {
	if a.WebSocketAPI == nil {
		return nil
	}
	return awscdk.Fn_Join(jsii.String(""), &[]*string{a.WebSocketAPI.AttrApiEndpoint(), jsii.String("/" + webSocketStage(a.Config))})
}

// webSocketEnv adds the management endpoint of the WebSocket API, which
// the connections handle calls, to a function's environment.
func (a *App) webSocketEnv(env map[string]*string) map[string]*string {
	if a.WebSocketAPI == nil {
		return env
	}
	if env == nil {
		env = map[string]*string{}
	}
	stack := awscdk.Stack_Of(a.Construct)
	env[names.EnvWebSocketEndpoint] = awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("https://"), a.WebSocketAPI.Ref(), jsii.String(".execute-api."), stack.Region(), jsii.String("."), stack.UrlSuffix(),
		jsii.String("/" + webSocketStage(a.Config)),
	})
	return env
}

// webSocketAttr resolves the attributes of perms.WebSocketRef.
func (a *App) webSocketAttr(attr string) (string, bool) {
	if a.WebSocketAPI == nil || attr != manifest.AttrConnectionsARN {
		return "", false
	}
	stack := awscdk.Stack_Of(a.Construct)
	return *stack.FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("execute-api"), Resource: a.WebSocketAPI.Ref(),
		ResourceName: jsii.String(webSocketStage(a.Config) + "/*/@connections/*"),
	}), true
}

// buildWebSocketRoutes adds, once the functions exist, one route per
// WebSocket handler with its Lambda proxy integration and invoke
// permission, the $connect authorizer, and the stage (deployed
// automatically, after its routes).
func (a *App) buildWebSocketRoutes(p *Prepared) error {
	if a.WebSocketAPI == nil {
		return nil
	}
	stack := awscdk.Stack_Of(a.Construct)
	api := a.WebSocketAPI
	stageName := webSocketStage(p.Config)
	a.WebSocketStage = awsapigatewayv2.NewCfnStage(a.Construct, jsii.String("WebSocketStage"), &awsapigatewayv2.CfnStageProps{
		ApiId:       api.Ref(),
		StageName:   jsii.String(stageName),
		AutoDeploy:  jsii.Bool(true),
		Description: jsii.String("Stage " + p.Stage + " of " + p.Manifest.App),
	})
	invocationURI := func(fn awslambda.Function) *string {
		return awscdk.Fn_Join(jsii.String(""), &[]*string{
			jsii.String("arn:"), stack.Partition(), jsii.String(":apigateway:"), stack.Region(),
			jsii.String(":lambda:path/2015-03-31/functions/"), fn.FunctionArn(), jsii.String("/invocations"),
		})
	}
	permit := func(fn awslambda.Function, id, resource string) {
		fn.AddPermission(jsii.String(id), &awslambda.Permission{
			Principal: awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
			Action:    jsii.String("lambda:InvokeFunction"),
			SourceArn: stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("execute-api"), Resource: api.Ref(), ResourceName: jsii.String(resource),
			}),
		})
	}
	authorizers := map[string]awsapigatewayv2.CfnAuthorizer{}
	for _, spec := range p.Manifest.WebSocketFunctions() {
		fn, ok := a.Functions[spec.Name]
		if !ok {
			return fmt.Errorf("websocket handler %q: its function was not built", spec.Name)
		}
		id := names.FunctionID(spec.Name)
		integration := awsapigatewayv2.NewCfnIntegration(a.Construct, jsii.String("WebSocketIntegration"+id), &awsapigatewayv2.CfnIntegrationProps{
			ApiId:           api.Ref(),
			IntegrationType: jsii.String("AWS_PROXY"),
			IntegrationUri:  invocationURI(fn),
			Description:     jsii.String(fmt.Sprintf("Route %s of %s goes to the function of %s", spec.RouteKey, p.Name, spec.Name)),
		})
		props := &awsapigatewayv2.CfnRouteProps{
			ApiId: api.Ref(), RouteKey: jsii.String(spec.RouteKey), OperationName: jsii.String(spec.Name),
			Target: awscdk.Fn_Join(jsii.String("/"), &[]*string{jsii.String("integrations"), integration.Ref()}),
		}
		if spec.Authorizer != "" {
			z, ok := authorizers[spec.Authorizer]
			if !ok {
				var err error
				if z, err = a.webSocketAuthorizer(p, spec.Authorizer, invocationURI); err != nil {
					return err
				}
				authorizers[spec.Authorizer] = z
				permit(a.Functions[spec.Authorizer], "WebSocketAuthorizerInvoke", "authorizers/*")
			}
			props.AuthorizationType, props.AuthorizerId = jsii.String("CUSTOM"), z.Ref()
		}
		route := awsapigatewayv2.NewCfnRoute(a.Construct, jsii.String("WebSocketRoute"+id), props)
		a.WebSocketStage.Node().AddDependency(route)
		permit(fn, "WebSocketInvoke", stageName+"/"+spec.RouteKey)
	}
	return nil
}

// webSocketAuthorizer adds the REQUEST authorizer of $connect that calls
// the app authorizer name: its identity sources are the AppAuthorizer's
// (query.NAME, header.NAME), or its token header.
func (a *App) webSocketAuthorizer(p *Prepared, name string, uri func(awslambda.Function) *string) (awsapigatewayv2.CfnAuthorizer, error) {
	fn, ok := a.Functions[name]
	if !ok {
		return nil, fmt.Errorf("websocket authorizer %q: its function was not built", name)
	}
	var sources []*string
	if def := p.Manifest.AuthorizerDef(name); def != nil {
		for _, s := range def.IdentitySources {
			switch {
			case strings.HasPrefix(s, "query."):
				sources = append(sources, jsii.String("route.request.querystring."+strings.TrimPrefix(s, "query.")))
			case strings.HasPrefix(s, "header."):
				sources = append(sources, jsii.String("route.request.header."+strings.TrimPrefix(s, "header.")))
			}
		}
		if len(sources) == 0 && def.Header != "" {
			sources = append(sources, jsii.String("route.request.header."+def.Header))
		}
	}
	if len(sources) == 0 {
		sources = append(sources, jsii.String("route.request.header.Authorization"))
	}
	return awsapigatewayv2.NewCfnAuthorizer(a.Construct, jsii.String("WebSocketAuthorizer"+names.FunctionID(name)), &awsapigatewayv2.CfnAuthorizerProps{
		ApiId: a.WebSocketAPI.Ref(), AuthorizerType: jsii.String("REQUEST"), Name: jsii.String(name),
		AuthorizerUri: uri(fn), IdentitySource: &sources,
	}), nil
}

// deref returns *m, or nil for a nil pointer.
func deref(m *map[string]*string) map[string]*string {
	if m == nil {
		return nil
	}
	return *m
}
