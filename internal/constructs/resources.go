package constructs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsssm"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
)

// Resource is one resource the app declares (manifest.Resource), as the
// construct created it: the CDK L2 construct of its kind, so that a host
// CDK app can grant, subscribe or read it, and the attributes the
// functions receive in their environment (manifest.ResourceEnv).
//
// Exactly one of Table, Queue, Topic, Bucket, Secret and Parameter is set,
// by Decl.Kind.
type Resource struct {
	// Decl is the declaration.
	Decl manifest.Resource

	Table awsdynamodb.Table
	Queue awssqs.Queue
	// DeadLetterQueue is the queue's dead-letter queue (nil unless
	// Decl.MaxReceiveCount is above 0).
	DeadLetterQueue awssqs.Queue
	Topic           awssns.Topic
	Bucket          awss3.Bucket
	Secret          awssecretsmanager.Secret
	Parameter       awsssm.StringParameter

	// Attrs are the attributes the stack hands to the functions and
	// publishes as outputs, by attribute (manifest.AttrName, AttrARN,
	// AttrURL, AttrStreamARN): CloudFormation tokens.
	Attrs map[string]*string
}

// Retained reports whether the stage keeps the app's declared resources
// when its stack is deleted or a resource is replaced: stages whose name
// looks like production (names.LooksLikeProduction) do.
func Retained(stage string) bool { return names.LooksLikeProduction(stage) }

// resourceID is the construct id of a declared resource: "Res" + its name,
// which no other construct of the app starts with.
func resourceID(name string) string { return "Res" + strings.ToUpper(name[:1]) + name[1:] }

// keyTypes maps a key attribute's type to CDK's.
var keyTypes = map[string]awsdynamodb.AttributeType{
	"S": awsdynamodb.AttributeType_STRING, "N": awsdynamodb.AttributeType_NUMBER, "B": awsdynamodb.AttributeType_BINARY,
}

var streamViewTypes = map[string]awsdynamodb.StreamViewType{
	"NEW_IMAGE": awsdynamodb.StreamViewType_NEW_IMAGE, "OLD_IMAGE": awsdynamodb.StreamViewType_OLD_IMAGE,
	"NEW_AND_OLD_IMAGES": awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES, "KEYS_ONLY": awsdynamodb.StreamViewType_KEYS_ONLY,
}

// declaredStage is what internal/declspec reads of cfg: the same values
// framework local reads of the stage's .framework/config.json.
func declaredStage(cfg *Config) declspec.Stage {
	st := declspec.Stage{TimeoutSeconds: cfg.TimeoutSeconds,
		FrontDoor: config.FrontDoor{APIType: cfg.APIType, FunctionURLAuth: cfg.FunctionURLAuth}}
	if len(cfg.Functions) > 0 {
		st.FunctionTimeouts = make(map[string]int, len(cfg.Functions))
		for name, fc := range cfg.Functions {
			st.FunctionTimeouts[name] = fc.TimeoutSeconds
		}
	}
	return st
}

// buildResources adds the declared resources: real L2 constructs with
// names CloudFormation generates, encrypted, kept on deletion in a
// production stage and deleted with the stack otherwise. Each function's
// role then grants the accesses declared for that function
// (functionRole).
func (a *App) buildResources(p *Prepared) error {
	m, cfg := p.Manifest, p.Config
	if len(m.Resources) == 0 {
		return nil
	}
	retain := Retained(p.Stage)
	policy := awscdk.RemovalPolicy_DESTROY
	if retain {
		policy = awscdk.RemovalPolicy_RETAIN
	}
	a.Resources = make(map[string]*Resource, len(m.Resources))
	for _, d := range m.Resources {
		id := jsii.String(resourceID(d.Name))
		desc := fmt.Sprintf("%s %s of %s", d.Kind, d.Name, p.Name)
		r := &Resource{Decl: d, Attrs: map[string]*string{}}
		switch d.Kind {
		case manifest.ResourceTable:
			props := &awsdynamodb.TableProps{
				PartitionKey:  &awsdynamodb.Attribute{Name: jsii.String(d.PartitionKey.Name), Type: keyTypes[d.PartitionKey.Type]},
				BillingMode:   awsdynamodb.BillingMode_PAY_PER_REQUEST,
				Encryption:    awsdynamodb.TableEncryption_AWS_MANAGED,
				RemovalPolicy: policy,
			}
			if d.SortKey != nil {
				props.SortKey = &awsdynamodb.Attribute{Name: jsii.String(d.SortKey.Name), Type: keyTypes[d.SortKey.Type]}
			}
			if d.TTLAttribute != "" {
				props.TimeToLiveAttribute = jsii.String(d.TTLAttribute)
			}
			if d.Stream != "" {
				props.Stream = streamViewTypes[d.Stream]
			}
			tableProtection(props, &d, p.Stage)
			r.Table = awsdynamodb.NewTable(a.Construct, id, props)
			addIndexes(r.Table, &d)
			r.Attrs[manifest.AttrName], r.Attrs[manifest.AttrARN] = r.Table.TableName(), r.Table.TableArn()
			if d.Stream != "" {
				r.Attrs[manifest.AttrStreamARN] = r.Table.TableStreamArn()
			}
		case manifest.ResourceQueue:
			props := &awssqs.QueueProps{
				Encryption:    awssqs.QueueEncryption_SQS_MANAGED,
				EnforceSSL:    jsii.Bool(true),
				RemovalPolicy: policy,
			}
			// The attributes framework local gives the emulator's queue.
			q := declspec.QueueOf(m, declaredStage(cfg), &d)
			if q.FIFO {
				props.Fifo = jsii.Bool(true)
			}
			queueOptions(props, &d)
			props.VisibilityTimeout = awscdk.Duration_Seconds(jsii.Number(float64(q.VisibilityTimeoutSeconds)))
			if q.MaxReceiveCount > 0 {
				dlq := &awssqs.QueueProps{
					Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
					EnforceSSL:      jsii.Bool(true),
					RetentionPeriod: awscdk.Duration_Seconds(jsii.Number(declspec.DeadLetterRetentionSeconds)),
					RemovalPolicy:   policy,
				}
				if q.FIFO {
					dlq.Fifo = jsii.Bool(true)
				}
				r.DeadLetterQueue = awssqs.NewQueue(a.Construct, jsii.String(*id+"DLQ"), dlq)
				props.DeadLetterQueue = &awssqs.DeadLetterQueue{Queue: r.DeadLetterQueue, MaxReceiveCount: jsii.Number(float64(q.MaxReceiveCount))}
			}
			r.Queue = awssqs.NewQueue(a.Construct, id, props)
			r.Attrs[manifest.AttrName], r.Attrs[manifest.AttrARN], r.Attrs[manifest.AttrURL] = r.Queue.QueueName(), r.Queue.QueueArn(), r.Queue.QueueUrl()
			if r.DeadLetterQueue != nil {
				r.Attrs[manifest.AttrDLQName], r.Attrs[manifest.AttrDLQARN], r.Attrs[manifest.AttrDLQURL] = r.DeadLetterQueue.QueueName(), r.DeadLetterQueue.QueueArn(), r.DeadLetterQueue.QueueUrl()
			}
		case manifest.ResourceTopic:
			// Encrypted with the account's AWS managed key for SNS: no key
			// to create or pay for, and Lambda subscribers need no grant.
			props := &awssns.TopicProps{
				MasterKey: awskms.Alias_FromAliasName(a.Construct, jsii.String(*id+"Key"), jsii.String("alias/aws/sns")),
			}
			topicFIFO(props, &d)
			r.Topic = awssns.NewTopic(a.Construct, id, props)
			r.Topic.ApplyRemovalPolicy(policy)
			r.Attrs[manifest.AttrName], r.Attrs[manifest.AttrARN] = r.Topic.TopicName(), r.Topic.TopicArn()
		case manifest.ResourceBucket:
			// CloudFormation cannot delete a bucket holding objects: one
			// the user did not let the stack empty is kept, so that
			// destroying the stage succeeds and says so.
			props := &awss3.BucketProps{
				Encryption:        awss3.BucketEncryption_S3_MANAGED,
				BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
				EnforceSSL:        jsii.Bool(true),
				RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
			}
			if d.EmptyOnDestroy && !retain {
				props.AutoDeleteObjects, props.RemovalPolicy = jsii.Bool(true), awscdk.RemovalPolicy_DESTROY
			}
			bucketRules(props, &d)
			r.Bucket = awss3.NewBucket(a.Construct, id, props)
			r.Attrs[manifest.AttrName], r.Attrs[manifest.AttrARN] = r.Bucket.BucketName(), r.Bucket.BucketArn()
		case manifest.ResourceSecret:
			// The value is set outside the code; the template holds a
			// placeholder that is no secret.
			r.Secret = awssecretsmanager.NewSecret(a.Construct, id, &awssecretsmanager.SecretProps{
				Description:       jsii.String(desc + " (set its value with `framework secret set`)"),
				SecretStringValue: awscdk.SecretValue_UnsafePlainText(jsii.String(manifest.UnsetValue)),
				RemovalPolicy:     policy,
			})
			arn := r.Secret.SecretArn()
			r.Attrs[manifest.AttrARN], r.Attrs[manifest.AttrName] = arn, secretName(arn)
		case manifest.ResourceParameter:
			r.Parameter = awsssm.NewStringParameter(a.Construct, id, &awsssm.StringParameterProps{
				Description: jsii.String(desc + " (set its value with `framework secret set`)"),
				StringValue: jsii.String(manifest.UnsetValue),
				SimpleName:  jsii.Bool(true), // CloudFormation's names have no slash
			})
			r.Parameter.ApplyRemovalPolicy(policy)
			r.Attrs[manifest.AttrName], r.Attrs[manifest.AttrARN] = r.Parameter.ParameterName(), r.Parameter.ParameterArn()
		default:
			return fmt.Errorf("%s: this version of the construct cannot create it: build the app and the CLI from the same framework version", d.Label())
		}
		a.Resources[d.Name] = r
	}
	return nil
}

// secretName is the name of a secret whose name CloudFormation generated,
// from its ARN (arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-SUFFIX):
// CloudFormation's names are "<logical id>-<random>", and Secrets Manager
// adds "-<6 characters>".
func secretName(arn *string) *string {
	full := awscdk.Fn_Select(jsii.Number(6), awscdk.Fn_Split(jsii.String(":"), arn, nil))
	parts := awscdk.Fn_Split(jsii.String("-"), full, nil)
	return awscdk.Fn_Join(jsii.String("-"), &[]*string{awscdk.Fn_Select(jsii.Number(0), parts), awscdk.Fn_Select(jsii.Number(1), parts)})
}

// functionRole adds the execution role of the function named name
// (policy.APIFunction for the API's) with exactly that function's policy
// (Prepared.Perms) as its inline policy, its declared resources named by
// their ARNs' tokens; it returns the imported role when Config.RoleID
// names one, which the construct adds nothing to. X-Ray's statement is
// left to the managed policy ApplyFunctionSettings attaches.
func (a *App) functionRole(p *Prepared, id, name, desc string) (awsiam.IRole, error) {
	if a.imported {
		return a.Role, nil
	}
	fp := p.Perms.Function(name)
	if fp == nil {
		return nil, fmt.Errorf("function %q has no computed policy: build the app and the CLI from the same framework version", name)
	}
	// Logging names the function's own log group, which needs the
	// function's name: functionLogging adds it once the function exists.
	doc, err := fp.Document(a.resourceAttr, perms.ReasonXRay, perms.ReasonLogging)
	if err != nil {
		return nil, err
	}
	props := &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
		Description: jsii.String(desc),
	}
	if len(doc.Statement) > 0 {
		js, err := a.policyJSON(doc)
		if err != nil {
			return nil, err
		}
		props.InlinePolicies = &map[string]awsiam.PolicyDocument{"AppPolicy": awsiam.PolicyDocument_FromJson(js)}
	}
	return awsiam.NewRole(a.Construct, jsii.String(id), props), nil
}

// functionLogging gives the role of the function named name, fn, the
// logging statement of its policy (Prepared.Perms) on fn's own log group,
// /aws/lambda/<fn's name>, and its streams, as a policy of its own
// (AWS::IAM::Policy id, attached to the role): the role's inline policy
// cannot name the function, whose Role property names the role (a
// dependency cycle). Lambda creates the group on the first invocation,
// or the stack owns it (Config.LogRetentionDays), under that name either
// way, which `framework logs` reads. Nothing is added to an imported role.
func (a *App) functionLogging(p *Prepared, id, name string, fn awslambda.Function, role awsiam.IRole) error {
	if a.imported {
		return nil
	}
	fp := p.Perms.Function(name)
	if fp == nil {
		return fmt.Errorf("function %q has no computed policy: build the app and the CLI from the same framework version", name)
	}
	group := awscdk.Fn_Sub(jsii.String("arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:"+LogGroupPrefix+"${Name}"),
		&map[string]*string{"Name": fn.FunctionName()})
	attr := func(ref, attr string) (string, bool) {
		if f, ok := perms.LogGroupOf(ref); ok && f == name && attr == manifest.AttrARN {
			return *group, true
		}
		return "", false
	}
	doc, err := fp.Document(attr, perms.ReasonDeclaration, perms.ReasonTrigger, perms.ReasonScan, perms.ReasonPolicy, perms.ReasonXRay)
	if err != nil {
		return err
	}
	if len(doc.Statement) == 0 {
		return nil
	}
	js, err := a.policyJSON(doc)
	if err != nil {
		return err
	}
	awsiam.NewCfnPolicy(a.Construct, jsii.String(id), &awsiam.CfnPolicyProps{
		PolicyName:     jsii.String("Logging"),
		PolicyDocument: js,
		Roles:          &[]*string{role.RoleName()},
	})
	return nil
}

// resourceAttr returns the CloudFormation token of attribute attr of the
// declared resource named name.
func (a *App) resourceAttr(name, attr string) (string, bool) {
	if name == manifest.WebSocketRef {
		return a.webSocketAttr(attr)
	}
	for n, r := range a.Resources {
		if strings.EqualFold(n, name) {
			if v, ok := r.Attrs[attr]; ok && v != nil {
				return *v, true
			}
		}
	}
	return "", false
}

// usedResources returns the declared resources the function named name
// may use (perms.FunctionPolicy.Resources).
func (a *App) usedResources(p *Prepared, name string) []string {
	if p.Perms == nil {
		return nil
	}
	if fp := p.Perms.Function(name); fp != nil {
		return fp.Resources
	}
	return nil
}

// resourceEnv returns the environment variables that hand the attributes
// of the declared resources named (manifest.ResourceEnv) to a function,
// added to env.
func (a *App) resourceEnv(env map[string]*string, names []string) map[string]*string {
	if len(a.Resources) == 0 || len(names) == 0 {
		return env
	}
	if env == nil {
		env = map[string]*string{}
	}
	for name, r := range a.Resources {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) }) {
			continue
		}
		for attr, v := range r.Attrs {
			env[manifest.ResourceEnv(name, attr)] = v
		}
	}
	return env
}

// ResourceAttrs returns the attributes of the declared resource r in the
// order of manifest.ResourceKinds, those it has only.
func ResourceAttrs(r *Resource) []string {
	var out []string
	for _, attr := range manifest.ResourceKinds[r.Decl.Kind].Attrs {
		if _, ok := r.Attrs[attr]; ok {
			out = append(out, attr)
		}
	}
	return out
}

// declaredSource returns the declared resource that feeds the function
// spec, or nil when its source is given by name or ARN.
func (a *App) declaredSource(spec *manifest.Function) *Resource {
	if spec.SourceResource == "" {
		return nil
	}
	for name, r := range a.Resources {
		if strings.EqualFold(name, spec.SourceResource) {
			return r
		}
	}
	return nil
}

// queueOptions sets, on the props of queue d, the options SQS defaults
// otherwise: content-based deduplication, the message retention period
// and the delivery delay.
func queueOptions(props *awssqs.QueueProps, d *manifest.Resource) {
	if d.ContentBasedDeduplication {
		props.ContentBasedDeduplication = jsii.Bool(true)
	}
	if d.MessageRetentionSeconds != 0 {
		props.RetentionPeriod = awscdk.Duration_Seconds(jsii.Number(float64(d.MessageRetentionSeconds)))
	}
	if d.DeliveryDelaySeconds != 0 {
		props.DeliveryDelay = awscdk.Duration_Seconds(jsii.Number(float64(d.DeliveryDelaySeconds)))
	}
}
