// Package stacks is the CloudFormation stack of one stage of an app, as the
// framework's CLI synthesizes and deploys it: the stack `<app>-<stage>`
// holding the constructs.App construct and the outputs the CLI reads
// (EndpointURL, RestAPIId, FunctionName, FunctionArn, RoleArn and, when a
// route requires an API key, APIKeyId).
//
// # Deploying without `cdk bootstrap`
//
// The stack uses CDK's CliCredentialsStackSynthesizer with its file assets
// bucket set to names.AssetsBucketName, "framework-assets-${AWS::AccountId}-${AWS::Region}":
//
//   - no bootstrap version parameter or rule is added to the template, and
//     no deploy, lookup or publishing role is named in the cloud assembly:
//     everything is done with the caller's own credentials;
//   - file assets (the Lambda package, and the template itself, which is
//     published as an asset so that templates over CloudFormation's 51,200
//     byte inline limit deploy too) go to that bucket, at the object keys
//     the stack's asset manifest (<stack>.assets.json in the cloud assembly)
//     names, with "${AWS::AccountId}" and "${AWS::Region}" standing for the
//     target account and region.
//
// Nobody has to run `cdk bootstrap` on the account: the framework's deploy
// engine creates the bucket itself with a small stack of its own the first
// time it deploys to an account and region, then publishes the assets where
// the asset manifest says. Apps that embed constructs.App in their own CDK
// app keep their own synthesizer (usually the bootstrapped default).
//
// Templates are written without indentation (StackProps
// SuppressTemplateIndentation): an app with a thousand routes then stays
// well under CloudFormation's 1 MB template limit. Read one with `jq .`.
package stacks

import (
	"fmt"
	"maps"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	awsconstructs "github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// Props are the inputs of New.
type Props struct {
	// App is the construct's input, made by constructs.Prepare. The stack
	// is named after its Manifest.App, and its Config.Tags are the stack's
	// tags, which CloudFormation puts on the stack and on every resource of
	// the stack that takes tags.
	App *constructs.Prepared
	// Description is the stack's description; empty means a default one.
	Description string
}

// Stage is the synthesized stage stack.
type Stage struct {
	// Stack is the CDK stack, named <app>-<stage>.
	Stack awscdk.Stack
	// App is the construct inside it.
	App *constructs.App
}

// New adds the stage's stack to the CDK app scope. The stack's name is
// <app>-<stage> (names.StackName), the app's name coming from its route
// manifest.
func New(scope awsconstructs.Construct, props *Props) (s *Stage, err error) {
	if props == nil || props.App == nil || props.App.Manifest == nil {
		return nil, fmt.Errorf("stacks.New: no prepared app: build Props.App with constructs.Prepare")
	}
	prep := *props.App
	app, stage := prep.Manifest.App, prep.Stage
	name := names.StackName(app, stage)
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("CDK refused the stack %s: %v", name, r)
		}
	}()
	desc := props.Description
	if desc == "" {
		desc = fmt.Sprintf("%s, stage %s: %s, Lambda function and execution role (framework)", app, stage, frontDoorLabel(prep.Config))
	}
	// The configuration's tags are the stack's: CloudFormation propagates
	// them to the resources, so the construct does not tag them again.
	var tags *map[string]*string
	if prep.Config != nil && len(prep.Config.Tags) > 0 {
		m := map[string]*string{}
		for k, v := range prep.Config.Tags {
			m[k] = jsii.String(v)
		}
		tags = &m
		cfg := *prep.Config
		cfg.Tags = nil
		prep.Config = &cfg
	}
	stack := awscdk.NewStack(scope, jsii.String(name), &awscdk.StackProps{
		StackName:   jsii.String(name),
		Description: jsii.String(desc),
		Tags:        tags,
		Synthesizer: awscdk.NewCliCredentialsStackSynthesizer(&awscdk.CliCredentialsStackSynthesizerProps{
			FileAssetsBucketName: jsii.String(names.AssetsBucketName),
		}),
		SuppressTemplateIndentation: jsii.Bool(true),
		AnalyticsReporting:          jsii.Bool(false),
	})
	a, err := constructs.NewPreparedApp(stack, names.ConstructID, &prep)
	if err != nil {
		return nil, err
	}
	if tags != nil {
		a.Config.Tags = maps.Clone(props.App.Config.Tags)
	}
	output := func(id string, value *string, desc string) {
		awscdk.NewCfnOutput(stack, jsii.String(id), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(desc)})
	}
	if a.RestAPI != nil {
		// The REST API's own output (a logical ID with a hash) is replaced by EndpointURL.
		a.RestAPI.Node().TryRemoveChild(jsii.String("Endpoint"))
		output(names.OutputEndpointURL, a.RestAPI.Url(), "Base URL of the deployed API: route paths are relative to it")
		output(names.OutputRestAPIID, a.RestAPI.RestApiId(), "ID of the REST API")
	} else {
		frontDoorOutputs(a, output)
	}
	webSocketOutputs(a, output)
	output(names.OutputFunctionName, a.Function.FunctionName(), "Name of the Lambda function")
	output(names.OutputFunctionArn, a.Function.FunctionArn(), "ARN of the Lambda function")
	output(names.OutputRoleArn, a.Role.RoleArn(), "ARN of the execution role of the function serving the routes (each event handler's function has its own)")
	if a.APIKey != nil {
		output(names.OutputAPIKeyID, a.APIKey.KeyId(), "ID of the API key (read its value with `aws apigateway get-api-key --include-value --api-key <id>`)")
	}
	// One output per event handler or plain function: `framework invoke`
	// and `logs` find each by its handler name.
	for _, f := range prep.Manifest.Functions {
		output(names.FunctionOutput(f.Name), a.Functions[f.Name].FunctionName(), fmt.Sprintf("Name of the Lambda function of the %s handler %s", f.Kind, f.Name))
	}
	// The declared resources' attributes: `framework local --stage` and
	// other readers of a deployed stage find them by name.
	for _, d := range prep.Manifest.Resources {
		r := a.Resources[d.Name]
		for _, attr := range constructs.ResourceAttrs(r) {
			output(manifest.ResourceOutput(d.Name, attr), r.Attrs[attr], fmt.Sprintf("%s of the %s", attr, d.Label()))
		}
	}
	if a.DomainName != nil || a.HTTPDomain != nil {
		output(names.OutputCustomDomainURL, jsii.String(a.Config.CustomDomain.URL()), "Base URL of the API at its custom domain")
	}
	return &Stage{Stack: stack, App: a}, nil
}
