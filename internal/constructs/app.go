// Package constructs is the framework's AWS CDK construct: one app's REST
// API (API Gateway), its Lambda functions and their execution roles (one
// per function, each holding exactly that function's policy, computed by
// package perms), ready to embed in any CDK app written in Go.
//
// The construct takes the app either as a project directory, which it
// builds (route manifest, Linux bootstrap zip, IAM policy from the source),
// or as a prebuilt route manifest and zip. Prepare does that work in plain
// Go, before any CDK call, and is the one way from a project to the
// construct's inputs: NewApp calls it, and so does `framework synth`, whose
// stage stack (package stacks) holds this construct. The whole REST API is
// one OpenAPI body with API Gateway's extensions, handed to CDK in one value
// (a SpecRestApi in overwrite mode): its size in CloudFormation resources
// does not grow with the number of routes.
//
// Embedding, in an existing CDK app:
//
//	api, err := constructs.NewApp(stack, "Shop", &constructs.AppProps{ProjectDir: "./shop", Stage: "prod"})
//	if err != nil { ... }
//	table.GrantReadWriteData(api.Function) // the API's function's role only
//	api.Function.AddEnvironment(jsii.String("TABLE"), table.TableName(), nil)
//
// Building from a project directory needs the Go toolchain; synthesis needs
// Node.js 20 or newer, as every CDK app written in Go does.
package constructs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3assets"
	awsconstructs "github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
)

// DefaultStage is the stage used when AppProps.Stage is empty.
const DefaultStage = names.DefaultStage

// BasicExecutionPolicy is the AWS managed policy that lets a Lambda
// function write its logs anywhere in CloudWatch Logs. The construct's
// roles do not attach it: each role gets the logging actions on its own
// function's log group only (App.functionLogging), hand-written policy
// or not.
const BasicExecutionPolicy = "service-role/AWSLambdaBasicExecutionRole"

// AppProps are the inputs of NewApp. Give either ProjectDir, or Manifest
// and PackageZip.
type AppProps struct {
	// ProjectDir is the app's project directory (the one holding
	// .framework/): the construct builds the route manifest and the Lambda
	// package from its source.
	ProjectDir string
	// Manifest is a prebuilt route manifest (the JSON the app prints in
	// manifest mode), used with PackageZip instead of ProjectDir.
	Manifest *manifest.Manifest
	// PackageZip is a prebuilt Lambda package: a zip holding the app
	// compiled for Linux as "bootstrap".
	PackageZip string
	// Stage is the stage name; empty means DefaultStage.
	Stage string
	// Config is the stage's configuration. Nil reads the project's
	// .framework/config.json for Stage when ProjectDir is set (LoadConfig:
	// tags included, so they reach the construct's resources as they reach
	// the stack of `framework deploy`), and uses every default otherwise.
	Config *Config
	// Policy is the execution role's own policy. Nil generates it from the
	// app's AWS SDK calls (or reads .framework/policy.json with
	// Config.NoAutogenPolicy) when ProjectDir is set; with a prebuilt
	// manifest, nil gives the role the basic execution policy only. Ignored
	// when Config.RoleID names an existing role.
	Policy *PolicyDocument
	// Name is the REST API's name and the OpenAPI title; empty means
	// "<app>-<stage>".
	Name string
	// Progress, when not nil, receives one line per slow step (building,
	// packaging).
	Progress io.Writer
}

// App is the construct: the REST API, the function and its role. Its
// fields let the host app add environment variables, grant access to its
// resources and attach domains.
type App struct {
	// Construct is the scope holding every resource below; its path is the
	// construct's id under the scope given to NewApp.
	Construct awsconstructs.Construct

	// RestAPI is the API Gateway REST API, deployed to the stage
	// Config.APIGatewayStage (RestAPI.DeploymentStage()); nil when
	// Config.APIType chooses another front door.
	RestAPI awsapigateway.SpecRestApi
	// HTTPAPI, HTTPStage and HTTPDomain are the API Gateway HTTP API, its
	// $default stage and its custom domain when Config.APIType is APIHTTP
	// (nil otherwise; HTTPDomain nil without Config.CustomDomain).
	HTTPAPI    awsapigatewayv2.CfnApi
	HTTPStage  awsapigatewayv2.CfnStage
	HTTPDomain awsapigatewayv2.CfnDomainName
	// WebSocketAPI and WebSocketStage are the app's WebSocket API and its
	// stage, when it declares WebSocket handlers (nil otherwise).
	WebSocketAPI   awsapigatewayv2.CfnApi
	WebSocketStage awsapigatewayv2.CfnStage
	// FunctionURL is Function's URL when Config.APIType is
	// APIFunctionURL (nil otherwise).
	FunctionURL awslambda.FunctionUrl
	// Function is the Lambda function serving every route.
	Function awslambda.Function
	// Role is the execution role of Function, the API's function: created
	// here with exactly that function's policy, or imported when
	// Config.RoleID is set (every function then uses it).
	Role awsiam.IRole
	// Roles are the execution roles of every function, by function name
	// (policy.APIFunction, "api", for Function): one each, each holding
	// exactly what its function may do (Prepared.Perms). A host CDK app
	// grants a function more through its role (Functions[name] grants to
	// it too).
	Roles map[string]awsiam.IRole
	// APIKey is the API key created when a route requires one (nil
	// otherwise), already in UsagePlan so that it works at once.
	APIKey awsapigateway.IApiKey
	// UsagePlan is the usage plan binding APIKey to the API's stage (nil
	// when no route requires a key).
	UsagePlan awsapigateway.UsagePlan
	// DomainName is the stage's custom domain, mapped to the API's stage
	// (nil without Config.CustomDomain).
	DomainName awsapigateway.DomainName

	// Manifest is the app's route table.
	Manifest *manifest.Manifest
	// Config is the configuration used, defaults filled in.
	Config *Config
	// Policy is the app's policy from its source or the hand-written one,
	// all functions' calls together (what `framework deploy` writes to
	// .framework/policy.json), or nil when the role is imported. Each
	// role holds its function's part only: see Perms.
	Policy *PolicyDocument
	// Perms are each function's policy (perms.Compute), which its role
	// holds; with an imported role they are what the functions are meant
	// to need.
	Perms *perms.Policies
	// PackageSHA256 is the hex SHA-256 of the Lambda package, which is
	// also the function code's asset hash.
	PackageSHA256 string
	// Functions are the Lambda functions of the app's event handlers and
	// plain functions, by handler name (nil when it has none): each runs
	// the same package as Function and shares Role.
	Functions map[string]awslambda.Function
	// Resources are the resources the app declares, by their declared
	// name (nil when it declares none): a host CDK app can grant,
	// subscribe or read them.
	Resources map[string]*Resource

	imported        bool                                     // Role is imported (Config.RoleID) and serves every function
	appAuthURIs     map[string]string                        // invocation URIs of the app authorizers' functions, by name
	httpAuthorizers map[string]awsapigatewayv2.CfnAuthorizer // an HTTP API's authorizers, by name
}

// NewApp adds the app's REST API, function and role under scope. Building,
// configuration and route errors are returned before anything is added.
func NewApp(scope awsconstructs.Construct, id string, props *AppProps) (*App, error) {
	return NewAppContext(context.Background(), scope, id, props)
}

// NewAppContext is NewApp with a context for the build steps.
func NewAppContext(ctx context.Context, scope awsconstructs.Construct, id string, props *AppProps) (*App, error) {
	p, err := Prepare(ctx, props, nil)
	if err != nil {
		return nil, err
	}
	return NewPreparedApp(scope, id, p)
}

// NewPreparedApp adds the app's REST API, function and role under scope
// from inputs made by Prepare. A policy whose generation Prepare deferred
// is generated first.
func NewPreparedApp(scope awsconstructs.Construct, id string, p *Prepared) (a *App, err error) {
	if p == nil {
		return nil, errors.New("constructs.NewPreparedApp: no prepared inputs: build them with constructs.Prepare")
	}
	if p.checked == nil {
		if p.checked, err = p.derive(); err != nil {
			return nil, err
		}
	}
	if err := p.ResolvePolicy(); err != nil {
		return nil, err
	}
	if err := p.computePerms(); err != nil {
		return nil, err
	}
	// CDK reports a refused value by a panic from jsii: return it as an error.
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("CDK refused construct %q: %v", id, r)
		}
	}()
	a = &App{Manifest: p.Manifest, Config: p.Config, Policy: p.Policy, Perms: p.Perms, PackageSHA256: p.PackageSHA256}
	a.Construct = awsconstructs.NewConstruct(scope, jsii.String(id))
	if err := a.build(p); err != nil {
		return nil, err
	}
	return a, nil
}

// authorizerTarget is a custom authorizer's Lambda function.
type authorizerTarget struct {
	name, functionArn string
}

// customAuthorizers returns the Lambda functions of the manifest's custom
// authorizers, one per function, sorted by authorizer name.
func customAuthorizers(m *manifest.Manifest) ([]authorizerTarget, error) {
	byArn := map[string]string{}
	for _, r := range m.Routes {
		a := r.Authorizer
		if a == nil || a.Type != manifest.AuthorizerCustom {
			continue
		}
		arn, err := AuthorizerFunctionArn(a.AuthorizerURI)
		if err != nil {
			return nil, fmt.Errorf("route %s (%s): custom authorizer %q: %w", r.Path, r.Handler, a.Name, err)
		}
		if prev, ok := byArn[arn]; !ok || a.Name < prev {
			byArn[arn] = a.Name
		}
	}
	out := make([]authorizerTarget, 0, len(byArn))
	for arn, name := range byArn {
		out = append(out, authorizerTarget{name: name, functionArn: arn})
	}
	slices.SortFunc(out, func(a, b authorizerTarget) int {
		return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.functionArn, b.functionArn))
	})
	return out, nil
}

// AuthorizerFunctionArn returns the Lambda function ARN inside a custom
// authorizer's invocation URI,
// "arn:aws:apigateway:<region>:lambda:path/2015-03-31/functions/<function arn>/invocations".
func AuthorizerFunctionArn(uri string) (string, error) {
	const marker, suffix = ":lambda:path/2015-03-31/functions/", "/invocations"
	i := strings.Index(uri, marker)
	if !strings.HasPrefix(uri, "arn:") || i < 0 || !strings.HasSuffix(uri, suffix) {
		return "", fmt.Errorf("authorizer URI %q is not a Lambda invocation URI (arn:aws:apigateway:<region>:lambda:path/2015-03-31/functions/<function arn>/invocations)", uri)
	}
	arn := uri[i+len(marker) : len(uri)-len(suffix)]
	if !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":lambda:") || !strings.Contains(arn, ":function:") {
		return "", fmt.Errorf("authorizer URI %q does not hold a Lambda function ARN", uri)
	}
	return arn, nil
}

// build adds the role, the function and the REST API.
func (a *App) build(p *Prepared) error {
	stack := awscdk.Stack_Of(a.Construct)
	cfg, d := p.Config, p.checked

	// The declared resources, which the role's policy may name.
	if err := a.buildResources(p); err != nil {
		return err
	}
	a.buildWebSocketAPI(p)

	// The execution roles: one per function, each with exactly its
	// policy (perms.Compute), or the imported role for every function.
	if cfg.RoleID != "" {
		if strings.HasPrefix(cfg.RoleID, "arn:") {
			a.Role = awsiam.Role_FromRoleArn(a.Construct, jsii.String("Role"), jsii.String(cfg.RoleID), &awsiam.FromRoleArnOptions{Mutable: jsii.Bool(false)})
		} else {
			a.Role = awsiam.Role_FromRoleName(a.Construct, jsii.String("Role"), jsii.String(cfg.RoleID), &awsiam.FromRoleNameOptions{Mutable: jsii.Bool(false)})
		}
		a.imported = true
	} else {
		role, err := a.functionRole(p, "Role", policy.APIFunction, "Execution role of "+p.Name)
		if err != nil {
			return err
		}
		a.Role = role
	}
	a.Roles = map[string]awsiam.IRole{policy.APIFunction: a.Role}

	// The function.
	arch := awslambda.Architecture_ARM_64()
	if cfg.Architecture == ArchX8664 {
		arch = awslambda.Architecture_X86_64()
	}
	// FRAMEWORK_STAGE tells the runtime its stage (its logs and metrics
	// carry it), as framework local does.
	env := &map[string]*string{names.EnvStage: jsii.String(p.Stage)}
	for k, v := range cfg.EnvironmentVariables {
		(*env)[k] = jsii.String(v)
	}
	if res := a.usedResources(p, policy.APIFunction); len(res) > 0 {
		m := a.resourceEnv(*env, res)
		env = &m
	}
	if a.WebSocketAPI != nil {
		m := a.webSocketEnv(deref(env))
		env = &m
	}
	code := awslambda.Code_FromAsset(jsii.String(p.PackageZip), &awss3assets.AssetOptions{
		AssetHash:     jsii.String(p.PackageSHA256),
		AssetHashType: awscdk.AssetHashType_CUSTOM,
	})
	a.Function = awslambda.NewFunction(a.Construct, jsii.String("Function"), &awslambda.FunctionProps{
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Handler:      jsii.String(build.BootstrapName),
		Code:         code,
		Role:         a.Role,
		Architecture: arch,
		MemorySize:   jsii.Number(float64(cfg.MemorySize)),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(float64(cfg.TimeoutSeconds))),
		Environment:  env,
		Description:  jsii.String("Serves every route of " + p.Name),
	})
	ApplyFunctionSettings(a.Function, cfg)
	dropRoleDependency(a.Function, a.Role)
	if err := a.functionLogging(p, "RoleLogging", policy.APIFunction, a.Function, a.Role); err != nil {
		return err
	}

	// The app authorizers' functions: the front door names them.
	var err error
	if a.appAuthURIs, err = a.buildAppAuthorizers(p, code, arch); err != nil {
		return err
	}

	// The front door: a REST API unless the stage chooses another.
	if cfg.APIType != "" && cfg.APIType != APIRest {
		if err := a.buildFrontDoor(p); err != nil {
			return err
		}
	} else if err := a.buildRESTAPI(p, stack, d); err != nil {
		return err
	}

	// Event handlers and plain functions: one function each, same package.
	if err := a.buildFunctions(p, code, arch); err != nil {
		return err
	}
	if err := a.buildWebSocketRoutes(p); err != nil {
		return err
	}

	for _, k := range slices.Sorted(maps.Keys(cfg.Tags)) {
		awscdk.Tags_Of(a.Construct).Add(jsii.String(k), jsii.String(cfg.Tags[k]), nil)
	}
	return nil
}

// buildRESTAPI adds the REST API, its invoke permissions, custom domain
// and API keys.
func (a *App) buildRESTAPI(p *Prepared, stack awscdk.Stack, d *derived) error {
	cfg := p.Config
	// The REST API: one OpenAPI body, generated in Go, handed over whole.
	uri := awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("arn:"), stack.Partition(), jsii.String(":apigateway:"), stack.Region(),
		jsii.String(":lambda:path/2015-03-31/functions/"), a.Function.FunctionArn(), jsii.String("/invocations"),
	})
	if p.streams() {
		d.streamURI = *a.streamingURI(stack)
	}
	body, err := d.body(*uri, a.appAuthURIs)
	if err != nil {
		return fmt.Errorf("REST API of %s: %w", p.Manifest.App, err)
	}
	apiProps := &awsapigateway.SpecRestApiProps{
		ApiDefinition:  awsapigateway.ApiDefinition_FromInline(body),
		RestApiName:    jsii.String(p.Name),
		Description:    jsii.String("REST API of " + p.Name),
		Mode:           awsapigateway.RestApiMode_OVERWRITE,
		CloudWatchRole: jsii.Bool(false),
		Deploy:         jsii.Bool(true),
		DeployOptions:  &awsapigateway.StageOptions{StageName: jsii.String(cfg.APIGatewayStage)},
	}
	apiSettings(apiProps, cfg)
	a.RestAPI = awsapigateway.NewSpecRestApi(a.Construct, jsii.String("API"), apiProps)
	a.DomainName = a.addCustomDomain(cfg)

	// One invoke permission for the whole API, scoped to it.
	a.Function.AddPermission(jsii.String("APIInvoke"), &awslambda.Permission{
		Principal: awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
		Action:    jsii.String("lambda:InvokeFunction"),
		SourceArn: a.RestAPI.ArnForExecuteApi(jsii.String("*"), jsii.String("/*"), jsii.String("*")),
	})

	// App authorizers and custom TOKEN authorizers: API Gateway must be
	// allowed to call them.
	a.permitAppAuthorizers(p)
	for i, t := range d.authz {
		awslambda.NewCfnPermission(a.Construct, jsii.String(fmt.Sprintf("AuthorizerInvoke%d", i+1)), &awslambda.CfnPermissionProps{
			Action:       jsii.String("lambda:InvokeFunction"),
			FunctionName: jsii.String(t.functionArn),
			Principal:    jsii.String("apigateway.amazonaws.com"),
			SourceArn: stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("execute-api"), Resource: a.RestAPI.RestApiId(), ResourceName: jsii.String("authorizers/*"),
			}),
		})
	}

	// API keys: a usage plan on the stage and one key in it.
	if d.apiKey {
		a.UsagePlan = a.RestAPI.AddUsagePlan(jsii.String("UsagePlan"), &awsapigateway.UsagePlanProps{
			Name:        jsii.String(p.Name),
			Description: jsii.String("API keys of " + p.Name),
			ApiStages:   &[]*awsapigateway.UsagePlanPerApiStage{{Api: a.RestAPI, Stage: a.RestAPI.DeploymentStage()}},
		})
		a.APIKey = a.RestAPI.AddApiKey(jsii.String("APIKey"), &awsapigateway.ApiKeyOptions{
			Description: jsii.String("API key of " + p.Name),
		})
		a.UsagePlan.AddApiKey(a.APIKey, nil)
	}
	return nil
}
