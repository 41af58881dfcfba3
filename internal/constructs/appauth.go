package constructs

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// buildAppAuthorizers adds the Lambda functions of the app's authorizers
// (functions of kind authorizer) before the REST API, whose definition
// names them, and returns their invocation URIs by authorizer name (nil
// when the app has none). buildFunctions leaves them alone afterwards.
func (a *App) buildAppAuthorizers(p *Prepared, code awslambda.Code, arch awslambda.Architecture) (map[string]string, error) {
	var uris map[string]string
	stack := awscdk.Stack_Of(a.Construct)
	for _, spec := range p.Manifest.Functions {
		if spec.Kind != manifest.KindAuthorizer {
			continue
		}
		if spec.Description == "" {
			spec.Description = fmt.Sprintf("Authorizer %s of %s", spec.Name, p.Name)
		}
		fn, err := a.handlerFunction(p, code, arch, spec)
		if err != nil {
			return nil, err
		}
		if uris == nil {
			uris = map[string]string{}
		}
		uris[spec.Name] = *awscdk.Fn_Join(jsii.String(""), &[]*string{
			jsii.String("arn:"), stack.Partition(), jsii.String(":apigateway:"), stack.Region(),
			jsii.String(":lambda:path/2015-03-31/functions/"), fn.FunctionArn(), jsii.String("/invocations"),
		})
	}
	return uris, nil
}

// permitAppAuthorizers lets the REST API call the functions of the app's
// authorizers, and nothing else call them through API Gateway.
func (a *App) permitAppAuthorizers(p *Prepared) {
	stack := awscdk.Stack_Of(a.Construct)
	for _, spec := range p.Manifest.Functions {
		fn, ok := a.Functions[spec.Name]
		if spec.Kind != manifest.KindAuthorizer || !ok {
			continue
		}
		fn.AddPermission(jsii.String("AuthorizerInvoke"), &awslambda.Permission{
			Principal: awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
			Action:    jsii.String("lambda:InvokeFunction"),
			SourceArn: stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("execute-api"), Resource: a.RestAPI.RestApiId(), ResourceName: jsii.String("authorizers/*"),
			}),
		})
	}
}

// httpAuthorizer returns the HTTP API authorizer of decl, added on first
// use: a Lambda authorizer (payload 2.0, simple responses, the TTL and
// identity sources configured) calling an app authorizer's function, which
// the API's authorizers may invoke; or a JWT authorizer.
func (a *App) httpAuthorizer(api awsapigatewayv2.CfnApi, decl *manifest.Authorizer) awsapigatewayv2.CfnAuthorizer {
	if z, ok := a.httpAuthorizers[decl.Name]; ok {
		return z
	}
	stack := awscdk.Stack_Of(a.Construct)
	props := &awsapigatewayv2.CfnAuthorizerProps{ApiId: api.Ref(), Name: jsii.String(decl.Name)}
	if decl.Type == manifest.AuthorizerApp {
		var sources []*string
		if len(decl.IdentitySources) == 0 {
			sources = append(sources, jsii.String("$request.header."+decl.Header))
		}
		for _, src := range decl.IdentitySources {
			place, name, _ := manifest.ParseIdentitySource(src)
			if place == manifest.IdentityQuery {
				sources = append(sources, jsii.String("$request.querystring."+name))
			} else {
				sources = append(sources, jsii.String("$request.header."+name))
			}
		}
		props.AuthorizerType = jsii.String("REQUEST")
		props.AuthorizerUri = jsii.String(a.appAuthURIs[decl.Name])
		props.AuthorizerPayloadFormatVersion = jsii.String("2.0")
		props.EnableSimpleResponses = jsii.Bool(true)
		props.IdentitySource = &sources
		props.AuthorizerResultTtlInSeconds = jsii.Number(float64(decl.TTLSeconds))
		a.Functions[decl.Name].AddPermission(jsii.String("HttpAuthorizerInvoke"), &awslambda.Permission{
			Principal: awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
			Action:    jsii.String("lambda:InvokeFunction"),
			SourceArn: stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("execute-api"), Resource: api.Ref(), ResourceName: jsii.String("authorizers/*"),
			}),
		})
	} else {
		issuer, audiences, _ := decl.JWTConfig() // checked by frontDoorAuth
		props.AuthorizerType = jsii.String("JWT")
		props.IdentitySource = &[]*string{jsii.String("$request.header." + decl.Header)}
		props.JwtConfiguration = &awsapigatewayv2.CfnAuthorizer_JWTConfigurationProperty{Issuer: jsii.String(issuer), Audience: jsii.Strings(audiences...)}
	}
	z := awsapigatewayv2.NewCfnAuthorizer(a.Construct, jsii.String("HttpAuthorizer"+names.FunctionID(decl.Name)), props)
	if a.httpAuthorizers == nil {
		a.httpAuthorizers = map[string]awsapigatewayv2.CfnAuthorizer{}
	}
	a.httpAuthorizers[decl.Name] = z
	return z
}
