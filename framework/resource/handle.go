package resource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// handle is what every kind of resource has: its declaration, and the
// attributes the function's environment gives it.
type handle struct {
	app   apphook.App
	name  string
	kind  manifest.ResourceKind
	where string
	// noStream: a table declared without a stream has no STREAM_ARN.
	noStream bool
	// decl is the resource as declared.
	decl manifest.Resource

	warned sync.Once
}

// Table is a declared DynamoDB table.
type Table struct{ *handle }

// Queue is a declared SQS queue.
type Queue struct {
	*handle
	deadLetter bool // declared with a dead-letter queue
	dlq        DeadLetterQueue
}

// Topic is a declared SNS topic.
type Topic struct{ *handle }

// Bucket is a declared S3 bucket.
type Bucket struct{ *handle }

// Secret is a declared Secrets Manager secret.
type Secret struct{ valued }

// Parameter is a declared SSM Parameter Store parameter.
type Parameter struct{ valued }

// warnTo receives the line a handle writes when the environment lacks its
// attributes.
var warnTo io.Writer = os.Stderr

// attr returns attribute a of the deployed resource from the environment,
// or "" after writing once, on stderr, how to get it.
func (h *handle) attr(a string) string {
	if v := os.Getenv(manifest.ResourceEnv(h.name, a)); v != "" {
		return v
	}
	h.warned.Do(func() { fmt.Fprintln(warnTo, h.missing(a)) })
	return ""
}

// missing says that attribute a is not in the environment, and the two
// ways to get it.
func (h *handle) missing(a string) string {
	return fmt.Sprintf("framework: %s %q: %s is not set, so the app is not running in its stage's stack: "+
		"run `framework local --stage S` to use the deployed stage S's resources, or `framework local --aws-endpoint URL` to use an emulator's (moto, LocalStack)",
		h.kind, h.name, manifest.ResourceEnv(h.name, a))
}

// Name is the table's physical name, for the SDK's TableName; "" (and one
// line on stderr) when the environment does not give it.
func (t *Table) Name() string { return t.attr(manifest.AttrName) }

// ARN is the table's ARN.
func (t *Table) ARN() string { return t.attr(manifest.AttrARN) }

// StreamARN is the ARN of the table's stream ("" without a stream).
func (t *Table) StreamARN() string {
	if t.noStream {
		return ""
	}
	return t.attr(manifest.AttrStreamARN)
}

// Name is the queue's name.
func (q *Queue) Name() string { return q.attr(manifest.AttrName) }

// ARN is the queue's ARN.
func (q *Queue) ARN() string { return q.attr(manifest.AttrARN) }

// URL is the queue's URL, for the SDK's QueueUrl.
func (q *Queue) URL() string { return q.attr(manifest.AttrURL) }

// Name is the topic's name.
func (t *Topic) Name() string { return t.attr(manifest.AttrName) }

// ARN is the topic's ARN, for the SDK's TopicArn.
func (t *Topic) ARN() string { return t.attr(manifest.AttrARN) }

// Name is the bucket's name, for the SDK's Bucket.
func (b *Bucket) Name() string { return b.attr(manifest.AttrName) }

// ARN is the bucket's ARN.
func (b *Bucket) ARN() string { return b.attr(manifest.AttrARN) }

// valued is a secret or parameter: a value read from AWS and cached.
type valued struct {
	*handle

	mu    sync.Mutex
	value string
	read  time.Time // when value was read; zero when never
}

// cacheFor is how long a secret's or parameter's value is reused before it
// is read again.
const cacheFor = 2 * time.Minute

// now is the clock of the cache.
var now = time.Now

// Name is the secret's or parameter's name.
func (v *valued) Name() string { return v.attr(manifest.AttrName) }

// ARN is the secret's or parameter's ARN.
func (v *valued) ARN() string { return v.attr(manifest.AttrARN) }

// Value returns the secret's value (its SecretString), read from Secrets
// Manager with the function's credentials (the function needs
// Allow) and reused for up to two minutes. A secret whose value was never
// set is an error saying how to set it.
func (s *Secret) Value(ctx context.Context) (string, error) {
	return s.get(ctx, manifest.AttrARN, func(ctx context.Context, arn string) (string, error) {
		var out struct{ SecretString *string }
		err := awscall.Call(ctx, "secretsmanager", "GetSecretValue", map[string]string{"SecretId": arn}, &out)
		if err == nil && out.SecretString == nil {
			err = errors.New("the secret has a binary value: set a string")
		}
		if err != nil {
			return "", err
		}
		return *out.SecretString, nil
	})
}

// Value returns the parameter's value, decrypted when it is a
// SecureString, read from SSM Parameter Store with the function's
// credentials (the function needs Allow) and reused for up to two minutes.
// A parameter whose value was never set is an error saying how to set it.
func (p *Parameter) Value(ctx context.Context) (string, error) {
	return p.get(ctx, manifest.AttrName, func(ctx context.Context, name string) (string, error) {
		var out struct{ Parameter struct{ Value string } }
		err := awscall.Call(ctx, "ssm", "GetParameter", map[string]any{"Name": name, "WithDecryption": true}, &out)
		return out.Parameter.Value, err
	})
}

// setAdvice says how to give secret or parameter name its value where the
// app runs: at the emulator framework local points it at, in the stage
// framework local serves (FRAMEWORK_STAGE), or in a stage, deployed.
// Behind framework local's IAM check, AWS_ENDPOINT_URL is the check's
// proxy, not the emulator, and the function is not given the emulator's
// URL (it would take its calls past the check):
// FRAMEWORK_LOCAL_RESOURCES says the resources are at an emulator, and
// the advice names the flag to pass with the URL framework local was
// given.
func setAdvice(name string) string {
	stage := os.Getenv(names.EnvStage)
	switch os.Getenv(names.EnvLocalResources) {
	case names.LocalResourcesEmulator:
		cmd := fmt.Sprintf("framework secret set %s --aws-endpoint URL", name)
		if stage != "" {
			cmd = fmt.Sprintf("framework secret set %s --stage %s --aws-endpoint URL", name, stage)
		}
		return fmt.Sprintf("set it with `%s` (URL: the emulator framework local runs against, its --aws-endpoint or the stage's aws_endpoint)", cmd)
	case names.LocalResourcesStage:
	default:
		if u := os.Getenv("AWS_ENDPOINT_URL"); u != "" {
			return fmt.Sprintf("set it with `framework secret set %s --aws-endpoint %s` (the emulator the app uses)", name, u)
		}
	}
	if stage != "" {
		return fmt.Sprintf("set it with `framework secret set %s --stage %s`, or in the AWS console", name, stage)
	}
	return fmt.Sprintf("set it with `framework secret set %s --stage S` (S: the stage), or in the AWS console", name)
}

// get returns the cached value, or the one fetch reads given the
// resource's attribute attr.
func (v *valued) get(ctx context.Context, attr string, fetch func(ctx context.Context, id string) (string, error)) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.read.IsZero() && now().Sub(v.read) < cacheFor {
		return v.value, nil
	}
	id := v.attr(attr)
	if id == "" {
		return "", errors.New(v.missing(attr))
	}
	val, err := fetch(ctx, id)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", v.kind, v.name, err)
	}
	if val == manifest.UnsetValue {
		return "", fmt.Errorf("%s %q has no value yet: %s", v.kind, v.name, setAdvice(v.name))
	}
	v.value, v.read = val, now()
	return val, nil
}
