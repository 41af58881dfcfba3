package constructs

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/manifest"
)

// buildAppAuthorizers adds the Lambda functions of the app's authorizers
// (functions of kind authorizer) before the REST API, whose definition
// names them, and returns their invocation URIs by authorizer name (nil
// when the app has none). buildFunctions leaves them alone afterwards.
func (a *App) buildAppAuthorizers(p *Prepared, code awslambda.Code, arch awslambda.Architecture) map[string]string {
	var uris map[string]string
	stack := awscdk.Stack_Of(a.Construct)
	for _, spec := range p.Manifest.Functions {
		if spec.Kind != manifest.KindAuthorizer {
			continue
		}
		if spec.Description == "" {
			spec.Description = fmt.Sprintf("Authorizer %s of %s", spec.Name, p.Name)
		}
		fn := a.handlerFunction(p, code, arch, spec)
		if uris == nil {
			uris = map[string]string{}
		}
		uris[spec.Name] = *awscdk.Fn_Join(jsii.String(""), &[]*string{
			jsii.String("arn:"), stack.Partition(), jsii.String(":apigateway:"), stack.Region(),
			jsii.String(":lambda:path/2015-03-31/functions/"), fn.FunctionArn(), jsii.String("/invocations"),
		})
	}
	return uris
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
