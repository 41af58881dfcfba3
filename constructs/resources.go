package constructs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsssm"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/manifest"
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

// checkResources checks what the construct needs of the declared
// resources beyond manifest.Validate, which Lambda would otherwise refuse
// at deploy time: a queue feeding a handler must keep a message hidden at
// least as long as the handler may run, and a FIFO queue gives batches of
// 10 messages at most.
func checkResources(m *manifest.Manifest, cfg *Config) error {
	for _, f := range m.Functions {
		r := m.Resource(f.SourceResource)
		if r == nil || r.Kind != manifest.ResourceQueue {
			continue
		}
		if r.FIFO && f.BatchSize > 10 {
			return fmt.Errorf("%s: batch size %d is too large for the FIFO %s it reads: use 1 to 10", f.Label(), f.BatchSize, r.Label())
		}
		if r.VisibilityTimeoutSeconds == 0 {
			continue
		}
		if t := functionTimeout(cfg, f.Name); r.VisibilityTimeoutSeconds < t {
			return fmt.Errorf("%s: visibility timeout %d s is shorter than the %d s timeout of the %s it feeds, so Lambda would refuse the event source mapping: raise it to at least %d s (AWS advises 6 times the timeout, %d s), or leave it unset to get that",
				r.Label(), r.VisibilityTimeoutSeconds, t, f.Label(), t, min(6*t, 43200))
		}
	}
	return nil
}

// functionTimeout is the timeout of the function of handler name.
func functionTimeout(cfg *Config, name string) int {
	if fc, ok := cfg.Functions[name]; ok && fc.TimeoutSeconds != 0 {
		return fc.TimeoutSeconds
	}
	return cfg.TimeoutSeconds
}

// visibilityTimeout is a queue's visibility timeout: the declared one, or,
// for a queue feeding handlers, 6 times the longest handler timeout plus
// its batching window (what AWS advises), at least SQS's default of 30 s;
// 0 leaves SQS's default.
func visibilityTimeout(m *manifest.Manifest, cfg *Config, r *manifest.Resource) int {
	if r.VisibilityTimeoutSeconds != 0 {
		return r.VisibilityTimeoutSeconds
	}
	vis := 0
	for _, f := range m.Functions {
		if strings.EqualFold(f.SourceResource, r.Name) {
			vis = max(vis, 30, 6*functionTimeout(cfg, f.Name)+f.MaxBatchingWindowSeconds)
		}
	}
	return min(vis, 43200)
}

// buildResources adds the declared resources: real L2 constructs with
// names CloudFormation generates, encrypted, kept on deletion in a
// production stage and deleted with the stack otherwise. grantResources
// then grants the role every declared access.
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
			if retain {
				props.PointInTimeRecoverySpecification = &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)}
			}
			r.Table = awsdynamodb.NewTable(a.Construct, id, props)
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
			if d.FIFO {
				props.Fifo = jsii.Bool(true)
			}
			if vis := visibilityTimeout(m, cfg, &d); vis != 0 {
				props.VisibilityTimeout = awscdk.Duration_Seconds(jsii.Number(float64(vis)))
			}
			if d.MaxReceiveCount > 0 {
				dlq := &awssqs.QueueProps{
					Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
					EnforceSSL:      jsii.Bool(true),
					RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
					RemovalPolicy:   policy,
				}
				if d.FIFO {
					dlq.Fifo = jsii.Bool(true)
				}
				r.DeadLetterQueue = awssqs.NewQueue(a.Construct, jsii.String(*id+"DLQ"), dlq)
				props.DeadLetterQueue = &awssqs.DeadLetterQueue{Queue: r.DeadLetterQueue, MaxReceiveCount: jsii.Number(float64(d.MaxReceiveCount))}
			}
			r.Queue = awssqs.NewQueue(a.Construct, id, props)
			r.Attrs[manifest.AttrName], r.Attrs[manifest.AttrARN], r.Attrs[manifest.AttrURL] = r.Queue.QueueName(), r.Queue.QueueArn(), r.Queue.QueueUrl()
		case manifest.ResourceTopic:
			// Encrypted with the account's AWS managed key for SNS: no key
			// to create or pay for, and Lambda subscribers need no grant.
			r.Topic = awssns.NewTopic(a.Construct, id, &awssns.TopicProps{
				MasterKey: awskms.Alias_FromAliasName(a.Construct, jsii.String(*id+"Key"), jsii.String("alias/aws/sns")),
			})
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

// grantResources grants the role every declared access, once each: one
// role serves every function, so it holds the union of the app's, the
// routes' and the functions' grants. An imported role (Config.RoleID) is
// the user's to grant: CDK adds nothing to it.
func (a *App) grantResources(m *manifest.Manifest) error {
	type key struct {
		name   string
		access manifest.Access
	}
	var all []key
	add := func(gs []manifest.Grant) {
		for _, g := range gs {
			if r := m.Resource(g.Resource); r != nil {
				all = append(all, key{r.Name, g.Access})
			}
		}
	}
	add(m.Grants)
	for _, r := range m.Routes {
		add(r.Grants)
	}
	for _, f := range m.Functions {
		add(f.Grants)
	}
	slices.SortFunc(all, func(x, y key) int {
		if c := strings.Compare(x.name, y.name); c != 0 {
			return c
		}
		return strings.Compare(string(x.access), string(y.access))
	})
	all = slices.Compact(all)
	role := a.Role
	for _, g := range all {
		r := a.Resources[g.name]
		switch {
		case r.Table != nil && g.access == manifest.AccessRead:
			r.Table.GrantReadData(role)
		case r.Table != nil && g.access == manifest.AccessWrite:
			r.Table.GrantWriteData(role)
		case r.Table != nil && g.access == manifest.AccessReadWrite:
			r.Table.GrantReadWriteData(role)
		case r.Queue != nil && g.access == manifest.AccessSend:
			r.Queue.GrantSendMessages(role)
		case r.Queue != nil && g.access == manifest.AccessConsume:
			r.Queue.GrantConsumeMessages(role)
		case r.Topic != nil && g.access == manifest.AccessPublish:
			r.Topic.GrantPublish(role)
		case r.Bucket != nil && g.access == manifest.AccessRead:
			r.Bucket.GrantRead(role, nil)
		case r.Bucket != nil && g.access == manifest.AccessWrite:
			r.Bucket.GrantWrite(role, nil, nil)
		case r.Bucket != nil && g.access == manifest.AccessReadWrite:
			r.Bucket.GrantReadWrite(role, nil)
		case r.Secret != nil && g.access == manifest.AccessRead:
			r.Secret.GrantRead(role, nil)
		case r.Parameter != nil && g.access == manifest.AccessRead:
			r.Parameter.GrantRead(role)
		default:
			return fmt.Errorf("access %q on %s: a %s allows %v", g.access, r.Decl.Label(), r.Decl.Kind, manifest.ResourceKinds[r.Decl.Kind].Accesses)
		}
	}
	return nil
}

// resourceEnv returns the environment variables that hand every declared
// resource's attributes to a function (manifest.ResourceEnv), added to env.
func (a *App) resourceEnv(env map[string]*string) map[string]*string {
	if len(a.Resources) == 0 {
		return env
	}
	if env == nil {
		env = map[string]*string{}
	}
	for name, r := range a.Resources {
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
