// Package stacks is the CloudFormation stack of one stage of an app, as the
// framework's CLI synthesizes and deploys it: the stack `<app>-<stage>`
// holding the constructs.App construct and the outputs the CLI reads
// (EndpointURL, RestAPIId, FunctionName, FunctionArn, RoleArn and, when a
// route requires an API key, APIKeyId).
//
// # Deploying without `cdk bootstrap`
//
// The stack uses CDK's CliCredentialsStackSynthesizer with its file assets
// bucket set to AssetsBucketName, "framework-assets-${AWS::AccountId}-${AWS::Region}":
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
	"context"
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	awsconstructs "github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/constructs"
)

// AssetsBucketName is the S3 bucket of the stage stacks' file assets, with
// CloudFormation-style placeholders for the target account and region. The
// deploy engine creates it when it is missing.
const AssetsBucketName = "framework-assets-${AWS::AccountId}-${AWS::Region}"

// Output names of every stage stack (the same as internal/synth's Output* constants).
const (
	OutputEndpointURL  = "EndpointURL"
	OutputRestAPIID    = "RestAPIId"
	OutputFunctionName = "FunctionName"
	OutputFunctionArn  = "FunctionArn"
	OutputRoleArn      = "RoleArn"
	OutputAPIKeyID     = "APIKeyId"
)

// ConstructID is the id of the constructs.App inside the stage stack; the
// logical IDs of its resources start with it.
const ConstructID = "App"

// Props are the inputs of New.
type Props struct {
	// App is the construct's input: the project or the prebuilt manifest
	// and package, the stage and its configuration.
	App constructs.AppProps
	// Tags are the stack's tags, which CloudFormation also puts on every
	// resource of the stack that takes tags.
	Tags map[string]string
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

// Name returns the stack name of app's stage: "<app>-<stage>".
func Name(app, stage string) string { return app + "-" + stage }

// New adds the stage's stack to the CDK app scope. The stack's name is
// <app>-<stage>, the app's name coming from its route manifest.
func New(ctx context.Context, scope awsconstructs.Construct, props *Props) (s *Stage, err error) {
	if props == nil {
		return nil, fmt.Errorf("stacks.New: no props")
	}
	stage := props.App.Stage
	if stage == "" {
		stage = constructs.DefaultStage
	}
	appProps := props.App
	if appProps.Manifest == nil && appProps.ProjectDir != "" {
		// The stack's name holds the app's name, known once the project is
		// built: build first (no CDK involved), then hand the construct the
		// result.
		built, err := constructs.Prebuild(ctx, &appProps)
		if err != nil {
			return nil, err
		}
		appProps = *built
	}
	if appProps.Manifest == nil {
		return nil, fmt.Errorf("stacks.New: set App.ProjectDir, or App.Manifest and App.PackageZip")
	}
	app := appProps.Manifest.App
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("CDK refused the stack %s: %v", Name(app, stage), r)
		}
	}()
	name := Name(app, stage)
	desc := props.Description
	if desc == "" {
		desc = fmt.Sprintf("%s, stage %s: REST API, Lambda function and execution role (framework)", app, stage)
	}
	var tags *map[string]*string
	if len(props.Tags) > 0 {
		m := map[string]*string{}
		for k, v := range props.Tags {
			m[k] = jsii.String(v)
		}
		tags = &m
	}
	stack := awscdk.NewStack(scope, jsii.String(name), &awscdk.StackProps{
		StackName:   jsii.String(name),
		Description: jsii.String(desc),
		Tags:        tags,
		Synthesizer: awscdk.NewCliCredentialsStackSynthesizer(&awscdk.CliCredentialsStackSynthesizerProps{
			FileAssetsBucketName: jsii.String(AssetsBucketName),
		}),
		SuppressTemplateIndentation: jsii.Bool(true),
		AnalyticsReporting:          jsii.Bool(false),
	})
	a, err := constructs.NewAppContext(ctx, stack, ConstructID, &appProps)
	if err != nil {
		return nil, err
	}
	// The REST API's own output (a logical ID with a hash) is replaced by EndpointURL.
	a.RestAPI.Node().TryRemoveChild(jsii.String("Endpoint"))

	output := func(id string, value *string, desc string) {
		awscdk.NewCfnOutput(stack, jsii.String(id), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(desc)})
	}
	output(OutputEndpointURL, a.RestAPI.Url(), "Base URL of the deployed API: route paths are relative to it")
	output(OutputRestAPIID, a.RestAPI.RestApiId(), "ID of the REST API")
	output(OutputFunctionName, a.Function.FunctionName(), "Name of the Lambda function")
	output(OutputFunctionArn, a.Function.FunctionArn(), "ARN of the Lambda function")
	output(OutputRoleArn, a.Role.RoleArn(), "ARN of the function's execution role")
	if a.APIKey != nil {
		output(OutputAPIKeyID, a.APIKey.KeyId(), "ID of the API key (read its value with `aws apigateway get-api-key --include-value --api-key <id>`)")
	}
	return &Stage{Stack: stack, App: a}, nil
}
