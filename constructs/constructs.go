// Package constructs is the framework's AWS CDK construct, to embed an app
// in a CDK app of your own written in Go: its front door (API Gateway REST
// or HTTP API, or a function URL), its Lambda functions, their execution
// roles (one per function, each holding exactly that function's policy)
// and the resources it declares.
//
// NewApp builds the app from its project directory (route manifest, Linux
// package, IAM policy from the source) and reads the stage's settings from
// the project's .framework/config.json, exactly as `framework synth` does,
// so a stage deployed either way is the same:
//
//	api, err := constructs.NewApp(stack, "Shop", &constructs.AppProps{ProjectDir: "./shop", Stage: "prod"})
//	if err != nil { ... }
//	table.GrantReadWriteData(api.Function) // the API's function's role only
//	api.Function.AddEnvironment(jsii.String("TABLE"), table.TableName(), nil)
//
// Building needs the Go toolchain; synthesis needs Node.js 20 or newer, as
// every CDK app written in Go does. Your app keeps its own synthesizer.
package constructs

import (
	"io"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsssm"
	awsconstructs "github.com/aws/constructs-go/constructs/v10"

	inner "github.com/framework-dev/framework/internal/constructs"
)

// AppProps are the inputs of NewApp.
type AppProps struct {
	// ProjectDir is the app's project directory (the one holding
	// .framework/): the construct builds the app from its source and reads
	// the stage's settings, tags included, from .framework/config.json.
	ProjectDir string
	// Stage is the stage name; empty means "dev".
	Stage string
	// Name is the API's name and the OpenAPI title; empty means
	// "<app>-<stage>".
	Name string
	// Progress, when not nil, receives one line per slow step (building,
	// packaging).
	Progress io.Writer
}

// App is the construct as NewApp added it: ordinary CDK constructs, to
// which a host app adds environment variables, grants access to its
// resources or attaches domains. Fields of a front door the stage does not
// use are nil.
type App struct {
	// Construct is the scope holding every resource below; its path is
	// the id given to NewApp under its scope.
	Construct awsconstructs.Construct
	// RestAPI is the API Gateway REST API (the default front door).
	RestAPI awsapigateway.SpecRestApi
	// HTTPAPI, HTTPStage and HTTPDomain are the API Gateway HTTP API, its
	// $default stage and its custom domain (config.json: api_type "http").
	HTTPAPI    awsapigatewayv2.CfnApi
	HTTPStage  awsapigatewayv2.CfnStage
	HTTPDomain awsapigatewayv2.CfnDomainName
	// WebSocketAPI and WebSocketStage are the app's WebSocket API and its
	// stage, when it declares WebSocket handlers.
	WebSocketAPI   awsapigatewayv2.CfnApi
	WebSocketStage awsapigatewayv2.CfnStage
	// FunctionURL is Function's URL (config.json: api_type "function_url").
	FunctionURL awslambda.FunctionUrl
	// Function is the Lambda function serving every route.
	Function awslambda.Function
	// Role is Function's execution role.
	Role awsiam.IRole
	// Roles are the execution roles of every function, by function name
	// ("api" for Function, and the handlers' names): a grant to one
	// reaches that function only.
	Roles map[string]awsiam.IRole
	// APIKey and UsagePlan are the API key created when a route requires
	// one and the usage plan binding it to the API's stage.
	APIKey    awsapigateway.IApiKey
	UsagePlan awsapigateway.UsagePlan
	// DomainName is the REST API's custom domain.
	DomainName awsapigateway.DomainName
	// Functions are the Lambda functions of the app's event handlers and
	// plain functions, by handler name.
	Functions map[string]awslambda.Function
	// Resources are the resources the app declares, by declared name.
	Resources map[string]*Resource

	endpoint, websocket func() *string
}

// Resource is one resource the app declares, as the construct created it:
// exactly one of Table, Queue, Topic, Bucket, Secret and Parameter is set,
// by Kind.
type Resource struct {
	// Kind is "table", "queue", "topic", "bucket", "secret" or "parameter".
	Kind            string
	Table           awsdynamodb.Table
	Queue           awssqs.Queue
	DeadLetterQueue awssqs.Queue // the queue's dead-letter queue, if any
	Topic           awssns.Topic
	Bucket          awss3.Bucket
	Secret          awssecretsmanager.Secret
	Parameter       awsssm.StringParameter
	// Attrs are the attributes the functions receive in their environment
	// ("NAME", "ARN", "URL" of a queue, "STREAM_ARN" of a table with a stream): CloudFormation tokens.
	Attrs map[string]*string
}

// NewApp adds the app's front door, functions, roles and resources under
// scope. Building, configuration and route errors are returned before
// anything is added.
func NewApp(scope awsconstructs.Construct, id string, props *AppProps) (*App, error) {
	if props == nil {
		props = &AppProps{}
	}
	a, err := inner.NewApp(scope, id, &inner.AppProps{ProjectDir: props.ProjectDir, Stage: props.Stage, Name: props.Name, Progress: props.Progress})
	if err != nil {
		return nil, err
	}
	out := &App{
		Construct: a.Construct, RestAPI: a.RestAPI,
		HTTPAPI: a.HTTPAPI, HTTPStage: a.HTTPStage, HTTPDomain: a.HTTPDomain,
		WebSocketAPI: a.WebSocketAPI, WebSocketStage: a.WebSocketStage,
		FunctionURL: a.FunctionURL, Function: a.Function, Role: a.Role, Roles: a.Roles,
		APIKey: a.APIKey, UsagePlan: a.UsagePlan, DomainName: a.DomainName,
		Functions: a.Functions,
		endpoint:  a.EndpointURL, websocket: a.WebSocketURL,
	}
	if a.Resources != nil {
		out.Resources = make(map[string]*Resource, len(a.Resources))
		for name, r := range a.Resources {
			out.Resources[name] = &Resource{
				Kind: string(r.Decl.Kind), Table: r.Table, Queue: r.Queue, DeadLetterQueue: r.DeadLetterQueue,
				Topic: r.Topic, Bucket: r.Bucket, Secret: r.Secret, Parameter: r.Parameter, Attrs: r.Attrs,
			}
		}
	}
	return out, nil
}

// EndpointURL returns the base URL of the stage's front door, whatever its
// type: route paths are relative to it.
func (a *App) EndpointURL() *string { return a.endpoint() }

// WebSocketURL is the wss:// URL clients connect to; nil without a
// WebSocket API.
func (a *App) WebSocketURL() *string { return a.websocket() }
