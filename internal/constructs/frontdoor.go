package constructs

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/manifest"
)

// The front doors other than the REST API (Config.APIType): an API
// Gateway HTTP API (payload format 2.0) or a Lambda function URL. Both
// send the function the same 2.0 event, which the framework's Lambda
// adapter serves through the same pipeline as a REST API's events.

// Front doors a Config accepts in APIType.
const (
	APIRest        = config.APIRest        // API Gateway REST API; the default (empty)
	APIHTTP        = config.APIHTTP        // API Gateway HTTP API
	APIFunctionURL = config.APIFunctionURL // Lambda function URL
)

// Auth types of a function URL (Config.FunctionURLAuth).
const (
	URLAuthNone = config.URLAuthNone // anyone may call the URL; the default (empty)
	URLAuthIAM  = config.URLAuthIAM  // SigV4-signed requests only
)

// HTTPAPIStage is the stage an HTTP API is deployed to: its $default
// stage, served at the API's root URL and deployed automatically on every
// change of its routes.
const HTTPAPIStage = "$default"

// httpRoute is one route of an HTTP API: a method and a path in API
// Gateway's route key syntax, and the manifest route it serves (nil for
// the OPTIONS route of a CORS path, whose preflight the function answers).
type httpRoute struct {
	key   string
	route *manifest.Route
}

// httpRoutes returns the routes of an HTTP API for the manifest, in a
// stable order: each declared method of each path, plus OPTIONS for a CORS
// path that does not declare it. An HTTP API's CorsConfiguration is one
// setting for the whole API; routes sending preflights to the function
// keep each route's own CORS configuration, as on a REST API.
func httpRoutes(m *manifest.Manifest) []httpRoute {
	var out []httpRoute
	declared := map[string]bool{}
	corsPaths := map[string]*manifest.Route{}
	for i := range m.Routes {
		r := &m.Routes[i]
		for _, meth := range r.Methods {
			k := strings.ToUpper(meth) + " " + r.Path
			declared[k] = true
			out = append(out, httpRoute{key: k, route: r})
		}
		if r.CORS != nil && corsPaths[r.Path] == nil {
			corsPaths[r.Path] = r
		}
	}
	for path := range corsPaths {
		if k := "OPTIONS " + path; !declared[k] {
			out = append(out, httpRoute{key: k})
		}
	}
	slices.SortFunc(out, func(a, b httpRoute) int { return strings.Compare(a.key, b.key) })
	return out
}

// buildFrontDoor adds the stage's front door when it is not a REST API.
func (a *App) buildFrontDoor(p *Prepared) error {
	switch p.Config.APIType {
	case APIHTTP:
		return a.buildHTTPAPI(p)
	case APIFunctionURL:
		return a.buildFunctionURL(p)
	}
	return fmt.Errorf("api type %q: use %q, %q or %q", p.Config.APIType, APIRest, APIHTTP, APIFunctionURL)
}

// buildHTTPAPI adds an HTTP API with one route per declared method of each
// path (and an OPTIONS route per CORS path), all sent to the function by
// one Lambda proxy integration with payload format 2.0, its $default stage
// deployed automatically, one invoke permission scoped to the API, and the
// custom domain when the stage has one.
func (a *App) buildHTTPAPI(p *Prepared) error {
	stack := awscdk.Stack_Of(a.Construct)
	cfg := p.Config
	api := awsapigatewayv2.NewCfnApi(a.Construct, jsii.String("HttpApi"), &awsapigatewayv2.CfnApiProps{
		Name:         jsii.String(p.Name),
		Description:  jsii.String("HTTP API of " + p.Name),
		ProtocolType: jsii.String("HTTP"),
	})
	a.HTTPAPI = api
	integration := awsapigatewayv2.NewCfnIntegration(a.Construct, jsii.String("HttpIntegration"), &awsapigatewayv2.CfnIntegrationProps{
		ApiId:                api.Ref(),
		IntegrationType:      jsii.String("AWS_PROXY"),
		IntegrationUri:       a.Function.FunctionArn(),
		PayloadFormatVersion: jsii.String("2.0"),
		Description:          jsii.String("Every route of " + p.Name + " goes to its function"),
	})
	target := awscdk.Fn_Join(jsii.String("/"), &[]*string{jsii.String("integrations"), integration.Ref()})
	stage := awsapigatewayv2.NewCfnStage(a.Construct, jsii.String("HttpStage"), &awsapigatewayv2.CfnStageProps{
		ApiId:       api.Ref(),
		StageName:   jsii.String(HTTPAPIStage),
		AutoDeploy:  jsii.Bool(true),
		Description: jsii.String("Stage " + p.Stage + " of " + p.Manifest.App),
	})
	a.HTTPStage = stage
	used := map[string]bool{}
	for _, hr := range httpRoutes(p.Manifest) {
		props := &awsapigatewayv2.CfnRouteProps{ApiId: api.Ref(), RouteKey: jsii.String(hr.key), Target: target}
		if hr.route != nil {
			props.OperationName = jsii.String(hr.route.Handler)
			if err := a.attachHTTPAuthorizer(props, hr.route, api); err != nil {
				return err
			}
		}
		route := awsapigatewayv2.NewCfnRoute(a.Construct, jsii.String(routeID(hr.key, used)), props)
		// Auto-deploy deploys what the stage sees: create the routes first.
		stage.AddDependency(route)
	}
	// One invoke permission for the whole API, scoped to it.
	a.Function.AddPermission(jsii.String("HttpApiInvoke"), &awslambda.Permission{
		Principal: awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
		Action:    jsii.String("lambda:InvokeFunction"),
		SourceArn: stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("execute-api"), Resource: api.Ref(), ResourceName: jsii.String("*/*"),
		}),
	})
	a.addHTTPDomain(cfg, api, stage)
	return nil
}

// attachHTTPAuthorizer sets the authorization of an HTTP API route from
// its manifest route's authorizer: the one place HTTP API routes get
// their authorizers.
func (a *App) attachHTTPAuthorizer(props *awsapigatewayv2.CfnRouteProps, r *manifest.Route, api awsapigatewayv2.CfnApi) error {
	if r.Authorizer == nil {
		return nil
	}
	authType, err := config.FrontDoor{APIType: APIHTTP}.RouteAuth(r.Authorizer)
	if err != nil {
		return fmt.Errorf("route %s (handler %s): %w", r.Path, r.Handler, err)
	}
	props.AuthorizationType = jsii.String(authType)
	if authType == "CUSTOM" || authType == "JWT" {
		props.AuthorizerId = a.httpAuthorizer(api, r.Authorizer).Ref()
	}
	return nil
}

// routeID is the construct id of an HTTP API route: readable from its key
// and made unique by a short hash of it, so that adding a route never
// renames another.
func routeID(key string, used map[string]bool) string {
	var b strings.Builder
	b.WriteString("Route")
	for _, c := range key {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	id := fmt.Sprintf("%.60s%08X", b.String(), h.Sum32())
	for n := 2; used[id]; n++ {
		id = fmt.Sprintf("%.60s%08X%d", b.String(), h.Sum32(), n)
	}
	used[id] = true
	return id
}

// addHTTPDomain adds the stage's custom domain to an HTTP API: a regional
// domain name (TLS 1.2), mapped to the $default stage at its base path,
// and its alias record when a hosted zone is named.
func (a *App) addHTTPDomain(cfg *Config, api awsapigatewayv2.CfnApi, stage awsapigatewayv2.CfnStage) {
	d := cfg.CustomDomain
	if d == nil {
		return
	}
	domain := awsapigatewayv2.NewCfnDomainName(a.Construct, jsii.String("HttpDomain"), &awsapigatewayv2.CfnDomainNameProps{
		DomainName: jsii.String(d.DomainName),
		DomainNameConfigurations: &[]any{&awsapigatewayv2.CfnDomainName_DomainNameConfigurationProperty{
			CertificateArn: jsii.String(d.CertificateArn),
			EndpointType:   jsii.String("REGIONAL"),
			SecurityPolicy: jsii.String(config.TLS12),
		}},
	})
	a.HTTPDomain = domain
	mapping := &awsapigatewayv2.CfnApiMappingProps{ApiId: api.Ref(), DomainName: domain.Ref(), Stage: stage.Ref()}
	if d.BasePath != "" {
		mapping.ApiMappingKey = jsii.String(d.BasePath)
	}
	awsapigatewayv2.NewCfnApiMapping(a.Construct, jsii.String("HttpDomainMapping"), mapping)
	a.addDomainRecord(d, domain.AttrRegionalDomainName(), domain.AttrRegionalHostedZoneId())
}

// buildFunctionURL gives the function a URL, with the auth type of the
// configuration (NONE by default). Every request reaches the function,
// which answers unknown routes and CORS preflights itself.
func (a *App) buildFunctionURL(p *Prepared) error {
	auth := awslambda.FunctionUrlAuthType_NONE
	if p.Config.FunctionURLAuth == URLAuthIAM {
		auth = awslambda.FunctionUrlAuthType_AWS_IAM
	}
	opts := &awslambda.FunctionUrlOptions{AuthType: auth}
	if p.streams() {
		opts.InvokeMode = awslambda.InvokeMode_RESPONSE_STREAM
	}
	a.FunctionURL = a.Function.AddFunctionUrl(opts)
	return nil
}

// EndpointURL returns the base URL of the stage's front door, whatever its
// type: route paths are relative to it.
func (a *App) EndpointURL() *string {
	switch {
	case a.HTTPAPI != nil:
		return awscdk.Fn_Join(jsii.String(""), &[]*string{a.HTTPAPI.AttrApiEndpoint(), jsii.String("/")})
	case a.FunctionURL != nil:
		return a.FunctionURL.Url()
	case a.RestAPI != nil:
		return a.RestAPI.Url()
	}
	return nil
}

// checkFrontDoorConfig reports a front door AWS does not have, or a REST
// API setting given to another front door, for a Config built in Go
// rather than read from config.json (which refuses them with the key).
func (c *Config) checkFrontDoorConfig() error {
	switch c.APIType {
	case "", APIRest:
		if c.FunctionURLAuth != "" {
			return fmt.Errorf("FunctionURLAuth %q goes with APIType %q only", c.FunctionURLAuth, APIFunctionURL)
		}
		return nil
	case APIHTTP, APIFunctionURL:
	default:
		return fmt.Errorf("api type %q: use %q, %q or %q", c.APIType, APIRest, APIHTTP, APIFunctionURL)
	}
	door := config.FrontDoorName(c.APIType)
	var errs []error
	switch c.FunctionURLAuth {
	case "", URLAuthNone, URLAuthIAM:
		if c.FunctionURLAuth != "" && c.APIType != APIFunctionURL {
			errs = append(errs, fmt.Errorf("FunctionURLAuth %q goes with APIType %q only", c.FunctionURLAuth, APIFunctionURL))
		}
	default:
		errs = append(errs, fmt.Errorf("function URL auth type %q: use %q or %q", c.FunctionURLAuth, URLAuthNone, URLAuthIAM))
	}
	if c.EndpointType != "" && c.EndpointType != EndpointRegional {
		errs = append(errs, fmt.Errorf("the %s has no %s endpoint type: leave EndpointType empty", door, c.EndpointType))
	}
	if c.APIPolicy != nil {
		errs = append(errs, fmt.Errorf("the %s has no resource policy: leave APIPolicy nil", door))
	}
	if c.MinimumCompressionSize != nil {
		errs = append(errs, fmt.Errorf("the %s has no response compression: leave MinimumCompressionSize nil", door))
	}
	if c.CustomDomain != nil && c.APIType == APIFunctionURL {
		errs = append(errs, fmt.Errorf("the %s takes no custom domain: leave CustomDomain nil", door))
	}
	if c.CustomDomain != nil && c.CustomDomain.TLSVersion == config.TLS10 {
		errs = append(errs, fmt.Errorf("the %s's custom domain supports %s only", door, config.TLS12))
	}
	return errors.Join(errs...)
}
