package constructs

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3notifications"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// FunctionConfig is the memory and timeout of one event handler's or plain
// function's Lambda function (config.json: lambda_functions.<name>); a
// zero field means the stage's value.
type FunctionConfig struct {
	MemorySize     int
	TimeoutSeconds int
}

// s3EventTypes maps the S3 event types of the manifest to CDK's names.
var s3EventTypes = map[string]awss3.EventType{
	"s3:ObjectCreated:*":                       awss3.EventType_OBJECT_CREATED,
	"s3:ObjectCreated:Put":                     awss3.EventType_OBJECT_CREATED_PUT,
	"s3:ObjectCreated:Post":                    awss3.EventType_OBJECT_CREATED_POST,
	"s3:ObjectCreated:Copy":                    awss3.EventType_OBJECT_CREATED_COPY,
	"s3:ObjectCreated:CompleteMultipartUpload": awss3.EventType_OBJECT_CREATED_COMPLETE_MULTIPART_UPLOAD,
	"s3:ObjectRemoved:*":                       awss3.EventType_OBJECT_REMOVED,
	"s3:ObjectRemoved:Delete":                  awss3.EventType_OBJECT_REMOVED_DELETE,
	"s3:ObjectRemoved:DeleteMarkerCreated":     awss3.EventType_OBJECT_REMOVED_DELETE_MARKER_CREATED,
	"s3:ObjectRestore:*":                       awss3.EventType_OBJECT_RESTORE,
	"s3:ObjectRestore:Post":                    awss3.EventType_OBJECT_RESTORE_POST,
	"s3:ObjectRestore:Completed":               awss3.EventType_OBJECT_RESTORE_COMPLETED,
	"s3:ObjectRestore:Delete":                  awss3.EventType_OBJECT_RESTORE_DELETE,
	"s3:ReducedRedundancyLostObject":           awss3.EventType_REDUCED_REDUNDANCY_LOST_OBJECT,
	"s3:Replication:*":                         awss3.EventType_REPLICATION,
	"s3:LifecycleExpiration:*":                 awss3.EventType_LIFECYCLE_EXPIRATION,
	"s3:LifecycleTransition":                   awss3.EventType_LIFECYCLE_TRANSITION,
	"s3:IntelligentTiering":                    awss3.EventType_INTELLIGENT_TIERING,
	"s3:ObjectTagging:*":                       awss3.EventType_OBJECT_TAGGING,
	"s3:ObjectAcl:Put":                         awss3.EventType_OBJECT_ACL_PUT,
}

// checkFunctions checks what the construct needs of the manifest's
// functions and of their configuration: every value of a lambda_functions
// entry is in Lambda's range (declspec.Check refuses an entry naming no
// function of the app).
func checkFunctions(m *manifest.Manifest, cfg *Config) error {
	known := map[string]bool{}
	for _, f := range m.Functions {
		known[f.Name] = true
		for _, e := range f.Events {
			if _, ok := s3EventTypes[e]; f.Kind == manifest.KindS3 && !ok {
				return fmt.Errorf("s3 handler %q: event type %q has no CDK counterpart", f.Name, e)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Functions)) {
		if !known[name] {
			continue // declspec.Check names it
		}
		fc := cfg.Functions[name]
		if err := (config.Lambda{MemorySize: fc.MemorySize, Timeout: fc.TimeoutSeconds}).WithDefaults().Check(); err != nil {
			return fmt.Errorf("lambda_functions.%s: %w", name, err)
		}
	}
	return nil
}

// buildFunctions adds one Lambda function per event handler and plain
// function, from the same package as the REST API's function, each with
// its own role, its trigger and the trigger's invoke permission.
func (a *App) buildFunctions(p *Prepared, code awslambda.Code, arch awslambda.Architecture) error {
	if len(p.Manifest.Functions) == 0 {
		return nil
	}
	stack := awscdk.Stack_Of(a.Construct)
	if a.Functions == nil {
		a.Functions = make(map[string]awslambda.Function, len(p.Manifest.Functions))
	}
	buckets := map[string]awss3.IBucket{}
	for _, spec := range p.Manifest.Functions {
		if _, built := a.Functions[spec.Name]; built {
			continue // an app authorizer's, built before the REST API
		}
		fn, err := a.handlerFunction(p, code, arch, spec)
		if err != nil {
			return err
		}

		kind, ok := manifest.SpecOf(spec.Kind)
		if !ok {
			return fmt.Errorf("function %q: kind %q is unknown to this version of the construct: build the app and the CLI from the same framework version", spec.Name, spec.Kind)
		}
		switch kind.Trigger {
		case manifest.TriggerRule:
			props := &awsevents.CfnRuleProps{
				Description: jsii.String(fmt.Sprintf("Triggers the %s handler %s of %s", spec.Kind, spec.Name, p.Name)),
				State:       jsii.String("ENABLED"),
				Targets:     &[]any{&awsevents.CfnRule_TargetProperty{Arn: fn.FunctionArn(), Id: jsii.String("Handler")}},
			}
			id := "Schedule"
			if spec.Schedule != "" {
				props.ScheduleExpression = jsii.String(spec.Schedule)
			} else {
				var pattern map[string]any
				if err := json.Unmarshal(spec.EventPattern, &pattern); err != nil {
					return fmt.Errorf("eventbridge handler %q: event pattern: %w", spec.Name, err)
				}
				props.EventPattern, id = pattern, "Rule"
			}
			rule := awsevents.NewCfnRule(fn, jsii.String(id), props)
			fn.AddPermission(jsii.String(id+"Invoke"), &awslambda.Permission{
				Principal: awsiam.NewServicePrincipal(jsii.String("events.amazonaws.com"), nil),
				SourceArn: rule.AttrArn(),
			})
		case manifest.TriggerSubscription:
			topic := a.sourceArn(stack, kind, &spec)
			sub := &awssns.CfnSubscriptionProps{
				Protocol: jsii.String("lambda"), TopicArn: topic, Endpoint: fn.FunctionArn(),
			}
			if err := subscriptionFilter(sub, &spec); err != nil {
				return err
			}
			awssns.NewCfnSubscription(fn, jsii.String("Subscription"), sub)
			fn.AddPermission(jsii.String("TopicInvoke"), &awslambda.Permission{
				Principal: awsiam.NewServicePrincipal(jsii.String("sns.amazonaws.com"), nil),
				SourceArn: topic,
			})
		case manifest.TriggerBucketNotification:
			name := strings.TrimPrefix(spec.Source, "arn:aws:s3:::")
			if i := strings.LastIndex(name, ":::"); i >= 0 { // another partition
				name = name[i+3:]
			}
			bucket, ok := buckets[name]
			if r := a.declaredSource(&spec); r != nil && r.Bucket != nil {
				bucket, ok = r.Bucket, true
			}
			if !ok {
				bucket = awss3.Bucket_FromBucketName(a.Construct, jsii.String("Bucket"+bucketID(name)), jsii.String(name))
				buckets[name] = bucket
			}
			var filter *awss3.NotificationKeyFilter
			if spec.Prefix != "" || spec.Suffix != "" {
				filter = &awss3.NotificationKeyFilter{}
				if spec.Prefix != "" {
					filter.Prefix = jsii.String(spec.Prefix)
				}
				if spec.Suffix != "" {
					filter.Suffix = jsii.String(spec.Suffix)
				}
			}
			for _, e := range spec.Events {
				if filter != nil {
					bucket.AddEventNotification(s3EventTypes[e], awss3notifications.NewLambdaDestination(fn), filter)
				} else {
					bucket.AddEventNotification(s3EventTypes[e], awss3notifications.NewLambdaDestination(fn))
				}
			}
		case manifest.TriggerMapping:
			// The role's policy reads the source already (a trigger
			// statement of perms.Compute).
			arn := a.sourceArn(stack, kind, &spec)
			opts := &awslambda.EventSourceMappingOptions{EventSourceArn: arn, Enabled: jsii.Bool(true)}
			if spec.BatchSize > 0 {
				opts.BatchSize = jsii.Number(float64(spec.BatchSize))
			}
			if spec.MaxBatchingWindowSeconds > 0 {
				opts.MaxBatchingWindow = awscdk.Duration_Seconds(jsii.Number(float64(spec.MaxBatchingWindowSeconds)))
			}
			if spec.ReportBatchItemFailures {
				opts.ReportBatchItemFailures = jsii.Bool(true)
			}
			switch spec.StartingPosition {
			case manifest.StartLatest:
				opts.StartingPosition = awslambda.StartingPosition_LATEST
			case manifest.StartTrimHorizon:
				opts.StartingPosition = awslambda.StartingPosition_TRIM_HORIZON
			}
			fn.AddEventSourceMapping(jsii.String("Source"), opts)
		case manifest.TriggerWebSocket:
			// A route of the WebSocket API (buildWebSocketRoutes).
		case manifest.TriggerNone:
			// Invoked directly.
		}
	}
	return nil
}

// handlerFunction adds the Lambda function of one event handler, plain
// function or app authorizer and its role: the app's package,
// FRAMEWORK_HANDLER naming it, FRAMEWORK_STAGE its stage, the variables of the declared resources it
// may use, the stage's settings, and lambda_functions' memory and timeout.
func (a *App) handlerFunction(p *Prepared, code awslambda.Code, arch awslambda.Architecture, spec manifest.Function) (awslambda.Function, error) {
	cfg := p.Config
	env := map[string]*string{names.EnvHandler: jsii.String(spec.Name), names.EnvStage: jsii.String(p.Stage)}
	for k, v := range cfg.EnvironmentVariables {
		env[k] = jsii.String(v)
	}
	env = a.resourceEnv(env, a.usedResources(p, spec.Name))
	env = a.webSocketEnv(env)
	memory, timeout := cfg.MemorySize, cfg.TimeoutSeconds
	if fc, ok := cfg.Functions[spec.Name]; ok {
		memory, timeout = cmpOr(fc.MemorySize, memory), cmpOr(fc.TimeoutSeconds, timeout)
	}
	desc := spec.Description
	if desc == "" {
		desc = fmt.Sprintf("%s handler %s of %s", spec.Kind, spec.Name, p.Name)
	}
	id := names.OutputFunctionPrefix + names.FunctionID(spec.Name)
	role, err := a.functionRole(p, id+"Role", spec.Name, fmt.Sprintf("Execution role of the %s function %s of %s", spec.Kind, spec.Name, p.Name))
	if err != nil {
		return nil, err
	}
	a.Roles[spec.Name] = role
	fn := awslambda.NewFunction(a.Construct, jsii.String(id), &awslambda.FunctionProps{
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Handler:      jsii.String(build.BootstrapName),
		Code:         code,
		Role:         role,
		Architecture: arch,
		MemorySize:   jsii.Number(float64(memory)),
		Timeout:      awscdk.Duration_Seconds(jsii.Number(float64(timeout))),
		Environment:  &env,
		Description:  jsii.String(desc),
	})
	if a.Functions == nil {
		a.Functions = map[string]awslambda.Function{}
	}
	a.Functions[spec.Name] = fn
	// The production settings apply to every function of the app:
	// concurrency, layers, VPC, tracing, an owned log group.
	ApplyFunctionSettings(fn, cfg)
	dropRoleDependency(fn, role)
	if err := a.functionLogging(p, id+"RoleLogging", spec.Name, fn, role); err != nil {
		return nil, err
	}
	return fn, nil
}

// sourceArn returns the ARN of the queue, topic or stream that feeds the
// function spec: a declared resource's (its stream for a table), or one
// given by name (in the stack's account and region) or ARN.
func (a *App) sourceArn(stack awscdk.Stack, kind manifest.KindSpec, spec *manifest.Function) *string {
	if r := a.declaredSource(spec); r != nil {
		switch {
		case r.Queue != nil:
			return r.Queue.QueueArn()
		case r.Topic != nil:
			return r.Topic.TopicArn()
		case r.Table != nil:
			return r.Attrs[manifest.AttrStreamARN]
		}
	}
	source := spec.Source
	if strings.HasPrefix(source, "arn:") {
		return jsii.String(source)
	}
	return stack.FormatArn(&awscdk.ArnComponents{Service: jsii.String(kind.Service), Resource: jsii.String(kind.ARNResource + source)})
}

// bucketID makes a bucket name a construct id of letters and digits.
func bucketID(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteString("0")
		}
	}
	return b.String()
}

func cmpOr(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}

// functionConfigs converts config.json's lambda_functions.
func functionConfigs(in map[string]config.FunctionConfig) map[string]FunctionConfig {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]FunctionConfig, len(in))
	for k, v := range in {
		out[k] = FunctionConfig{MemorySize: v.LambdaMemorySize, TimeoutSeconds: v.LambdaTimeout}
	}
	return out
}
