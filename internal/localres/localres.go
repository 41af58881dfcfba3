// Package localres gives an app run on this machine (`framework local`,
// `framework invoke --local`) the resources it declares, through the same
// FRAMEWORK_RES_<NAME>_<ATTR> variables the stage's stack hands its
// functions:
//
//   - against an AWS emulator (--aws-endpoint: LocalStack, DynamoDB Local,
//     moto), it creates each declared resource the emulator does not have,
//     under a name derived from the app, the stage and the resource's
//     name, and points the app's own AWS SDK calls there
//     (AWS_ENDPOINT_URL);
//   - otherwise, it reads the deployed stage's stack outputs with the
//     user's credentials; when those do not come from AWS_ACCESS_KEY_ID
//     (a profile, SSO, an assumed role), it serves them, refreshed, to the
//     app on 127.0.0.1 under the container credentials protocol
//     (AWS_CONTAINER_CREDENTIALS_FULL_URI), so that a long session outlives
//     their expiry.
//
// It also runs, against an emulator, what feeds the app's event handlers:
// it polls the declared queues, the local queues subscribed to the
// declared topics, notified by the declared buckets and targeted by the
// EventBridge handlers' rules, reads the declared tables' streams, and
// fires the schedules (see Deliverer).
package localres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/framework-dev/framework/internal/awscall"
	fwconfig "github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// Options say where the declared resources are.
type Options struct {
	// App and Stage name the stack (<app>-<stage>) whose outputs are read,
	// and the local names of the resources created at Endpoint.
	App, Stage string
	// Endpoint, when set, is an AWS emulator's URL: the resources are
	// created there when missing, and the app's AWS SDK calls go there.
	Endpoint string
	// Profile and Region select the AWS credentials and region (the
	// user's defaults when empty).
	Profile, Region string
	// Config is the stage's configuration, which the defaults of the
	// resources created at Endpoint depend on (declspec.QueueOf).
	Config declspec.Stage
	// RefreshFailed, when set, is told that the deployed stage's
	// credentials could not be refreshed (the error says what to run),
	// once until they are refreshed again.
	RefreshFailed func(error)
}

// Resources are the physical resources behind an app's declarations.
type Resources struct {
	// Env is what the app's environment gets: FRAMEWORK_RES_* variables,
	// and AWS_ENDPOINT_URL with an emulator.
	Env []string
	// Attrs are the attributes of each declared resource, by its logical
	// name, then by attribute (manifest.AttrName, ...).
	Attrs map[string]map[string]string
	// Client reaches the services where the resources are.
	Client *Client
	// Changes are what Resolve changed in, or found different from its
	// declaration in, the resources that were already at the emulator.
	Changes []Change

	creds *credentialsServer // serves the app its credentials, or nil
}

// Close stops serving the app its credentials; call it when the app that
// got Env no longer runs.
func (r *Resources) Close() {
	if r != nil && r.creds != nil {
		r.creds.close()
	}
}

// ErrNotDeployed wraps the error of a stage that has no stack.
var ErrNotDeployed = errors.New("stage not deployed")

// AppName is the name the stage's stack carries for the app m of the
// project in dir: app_name in .framework/config.json, else the app's own.
func AppName(dir string, m *manifest.Manifest) string {
	if f, err := fwconfig.Load(dir); err == nil && f.AppName != "" {
		return f.AppName
	}
	return m.App
}

// ErrNoneDeployed wraps the reason the deployed stage's resources could not
// be read; the app then runs without them.
var ErrNoneDeployed = errors.New("the declared resources are not reachable")

// Resolve finds or creates the resources m declares. Without an endpoint,
// an error wrapping ErrNoneDeployed says why the deployed stage could not
// be read, naming the two ways to give the app its resources. The
// Resources must be closed when the app no longer runs.
func Resolve(ctx context.Context, m *manifest.Manifest, o Options) (*Resources, error) {
	if o.Endpoint == "" && len(m.Resources) == 0 {
		return &Resources{}, nil
	}
	c, err := NewClient(ctx, o)
	if err != nil {
		if o.Endpoint != "" {
			return nil, err
		}
		return nil, noneDeployed(o, err)
	}
	r := &Resources{Client: c, Attrs: map[string]map[string]string{}, Env: c.environ()}
	if o.Endpoint != "" {
		// An emulator may serve some services only (DynamoDB Local): the
		// resources it has are given, the others named in the error.
		var errs []error
		ctx, changes := withChanges(ctx)
		defer func() { r.Changes = changes.list() }()
		for i := range m.Resources {
			d := &m.Resources[i]
			attrs, err := c.ensure(ctx, m, PhysicalName(o.App, o.Stage, d), d)
			if err != nil {
				errs = append(errs, fmt.Errorf("create %s at %s: %w", d.Label(), o.Endpoint, err))
				continue
			}
			r.Attrs[d.Name] = attrs
		}
		if len(errs) > 0 {
			return r.withEnv(m), errors.Join(errs...)
		}
	} else {
		outputs, err := c.stackOutputs(ctx, names.StackName(o.App, o.Stage))
		if err != nil {
			return nil, noneDeployed(o, err)
		}
		if os.Getenv("AWS_ACCESS_KEY_ID") == "" {
			// The app's resource handles read only AWS_* variables: they
			// get the credentials from the CLI, refreshed.
			if r.creds, err = serveCredentials(c.creds); err != nil {
				return nil, err
			}
			r.Env = append(r.Env, r.creds.environ()...)
		}
		var missing []string
		for i := range m.Resources {
			d := &m.Resources[i]
			attrs := map[string]string{}
			for _, a := range attrsOf(d) {
				if v, ok := outputs[manifest.ResourceOutput(d.Name, a)]; ok {
					attrs[a] = v
				}
			}
			if attrs[manifest.AttrName] == "" {
				missing = append(missing, d.Label())
			}
			r.Attrs[d.Name] = attrs
		}
		if len(missing) > 0 {
			return r.withEnv(m), tagged{fmt.Errorf("stage %s was deployed before %s was declared: the app runs without them; deploy it again (`framework deploy --stage %s`), or pass --aws-endpoint URL to create them in an emulator (LocalStack, moto)",
				o.Stage, strings.Join(missing, ", "), o.Stage), ErrNoneDeployed}
		}
	}
	return r.withEnv(m), nil
}

// SourceARN is the ARN of the declared resource that feeds handler f (a
// table's stream for a stream handler), or "" when none does or it is not
// known.
func (r *Resources) SourceARN(f *manifest.Function) string {
	if r == nil || f.SourceResource == "" {
		return ""
	}
	if f.Kind == manifest.KindDynamoDB {
		return r.Attrs[f.SourceResource][manifest.AttrStreamARN]
	}
	return r.Attrs[f.SourceResource][manifest.AttrARN]
}

// withEnv adds the FRAMEWORK_RES_* variables of r.Attrs to r.Env.
func (r *Resources) withEnv(m *manifest.Manifest) *Resources {
	for i := range m.Resources {
		d := &m.Resources[i]
		for _, a := range attrsOf(d) {
			if v := r.Attrs[d.Name][a]; v != "" {
				r.Env = append(r.Env, manifest.ResourceEnv(d.Name, a)+"="+v)
			}
		}
	}
	return r
}

// noneDeployed is the one line that says the app runs without its
// resources, why, and the two ways to give them.
func noneDeployed(o Options, err error) error {
	return tagged{fmt.Errorf("the resources of stage %s could not be read (%v): the app runs without them; deploy the stage (`framework deploy --stage %s`, with --profile for its account), or pass --aws-endpoint URL to create them in an emulator (LocalStack, moto)",
		o.Stage, err, o.Stage), ErrNoneDeployed}
}

// tagged is an error that is also tag for errors.Is.
type tagged struct {
	error
	tag error
}

func (t tagged) Is(target error) bool { return target == t.tag }
func (t tagged) Unwrap() error        { return t.error }

// attrsOf are the attributes the stack publishes for d.
func attrsOf(d *manifest.Resource) []string {
	var out []string
	for _, a := range manifest.ResourceKinds[d.Kind].Attrs {
		if a == manifest.AttrStreamARN && d.Stream == "" || isDLQAttr(a) && !d.HasDeadLetter() {
			continue
		}
		out = append(out, a)
	}
	return out
}

// PhysicalName is the name of declared resource d created at an emulator
// for app and stage: <app>-<stage>-<name>, in lower case, ".fifo" ended for
// a FIFO queue; a bucket's keeps only the characters S3 allows and at most
// 63 of them.
func PhysicalName(app, stage string, d *manifest.Resource) string {
	n := strings.ToLower(names.StackName(app, stage) + "-" + d.Name)
	switch d.Kind {
	case manifest.ResourceBucket:
		n = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
				return r
			}
			return '-'
		}, n)
		if len(n) > 63 {
			n = n[:63]
		}
		n = strings.Trim(n, "-")
	case manifest.ResourceQueue, manifest.ResourceTopic:
		if d.FIFO {
			n += ".fifo"
		}
	}
	return n
}

// Client calls the services where an app's resources are: the JSON
// protocol services through awscall, SNS's query protocol signed the same
// way, CloudFormation and S3 through the SDK clients the CLI already links.
type Client struct {
	call     awscall.Config
	sdk      aws.Config
	endpoint string
	creds    *credentialsSource // the deployed stage's; nil at an emulator
	stage    declspec.Stage     // Options.Config
}

// CheckEndpoint says what is wrong with an --aws-endpoint value, or nil.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--aws-endpoint %q is not an http(s) URL: give the emulator's, such as http://localhost:4566 (LocalStack) or http://127.0.0.1:5000 (moto)", endpoint)
	}
	return nil
}

// NewClient loads the AWS configuration of o. With an emulator endpoint,
// missing credentials and region are not an error: the emulator gets
// placeholder ones, which never expire; otherwise the client's calls ask
// the configuration's provider, which refreshes them.
func NewClient(ctx context.Context, o Options) (*Client, error) {
	var more []func(*config.LoadOptions) error
	if o.Endpoint != "" {
		if err := CheckEndpoint(o.Endpoint); err != nil {
			return nil, err
		}
		more = append(more, config.WithBaseEndpoint(o.Endpoint))
	} else {
		more = append(more, config.WithCredentialsCacheOptions(func(co *aws.CredentialsCacheOptions) { co.ExpiryWindow = refreshAhead }))
	}
	cfg, err := deploy.LoadConfig(ctx, o.Profile, o.Region, more...)
	if err != nil {
		if o.Endpoint == "" {
			return nil, err
		}
		region := o.Region
		if region == "" {
			region = "us-east-1"
		}
		cfg = aws.Config{Region: region, Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test", Source: "emulator placeholder"}, nil
		}), BaseEndpoint: aws.String(o.Endpoint)}
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, awscall.RedactError(err)
	}
	// The endpoints the SDK would use: --aws-endpoint, else the
	// environment's AWS_ENDPOINT_URL(_<SERVICE>) or the profile's.
	call := awscall.FromEnv()
	call.Region = cfg.Region
	var src *credentialsSource
	if o.Endpoint == "" {
		src = &credentialsSource{provider: cfg.Credentials, profile: profileName(o.Profile), source: creds.Source, failed: o.RefreshFailed}
		call.Provider = src.awscall
	} else {
		call.Provider = nil
		call.Credentials = awscall.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, SessionToken: creds.SessionToken}
	}
	switch {
	case o.Endpoint != "":
		call.Endpoint, call.Endpoints = o.Endpoint, nil
	case call.Endpoint == "" && cfg.BaseEndpoint != nil:
		call.Endpoint = *cfg.BaseEndpoint
	}
	return &Client{call: call, sdk: cfg, endpoint: o.Endpoint, creds: src, stage: o.Config}, nil
}

// environ is what the app needs to reach the same place as c: the
// emulator's endpoint, the region, and the emulator's credentials when the
// app would not find them in its environment (the runtime's handles read
// only AWS_* variables; a deployed stage's are served, see Resolve).
func (c *Client) environ() []string {
	env := []string{"AWS_REGION=" + c.call.Region}
	if c.endpoint != "" {
		env = append(env, "AWS_ENDPOINT_URL="+c.endpoint)
	}
	if c.endpoint != "" && os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		cr := c.call.Credentials
		env = append(env, "AWS_ACCESS_KEY_ID="+cr.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+cr.SecretAccessKey)
		if cr.SessionToken != "" {
			env = append(env, "AWS_SESSION_TOKEN="+cr.SessionToken)
		}
	}
	return env
}

// Credentials are the credentials the client's calls are signed with now
// (the emulator's, or the deployed stage's, refreshed).
func (c *Client) Credentials(ctx context.Context) (awscall.Credentials, error) {
	return c.call.CurrentCredentials(ctx)
}

// BaseEndpoint is the endpoint every service is called at (an emulator's,
// AWS_ENDPOINT_URL, or the profile's endpoint_url); "" for AWS's regional
// endpoints.
func (c *Client) BaseEndpoint() string { return c.call.Endpoint }

// Region is the region the client calls.
func (c *Client) Region() string { return c.call.Region }

// Call calls a JSON protocol operation (see awscall.Config.Call).
func (c *Client) Call(ctx context.Context, service, target string, in, out any) error {
	return c.call.Call(ctx, service, target, in, out)
}

// stackOutputs returns the outputs of the live stack named stack.
func (c *Client) stackOutputs(ctx context.Context, stack string) (map[string]string, error) {
	st, err := deploy.New(c.sdk, nil).DescribeStack(ctx, stack)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, tagged{fmt.Errorf("no stack %s in %s", stack, c.call.Region), ErrNotDeployed}
	}
	return st.Outputs, nil
}

// StackOutputs returns the outputs of the stage's deployed stack, or an
// error saying it is not deployed.
func (c *Client) StackOutputs(ctx context.Context, app, stage string) (map[string]string, error) {
	return c.stackOutputs(ctx, names.StackName(app, stage))
}

// Declared lists the declared resources of the given kinds, for messages.
func Declared(m *manifest.Manifest, kinds ...manifest.ResourceKind) []string {
	var out []string
	for _, r := range m.Resources {
		if slices.Contains(kinds, r.Kind) {
			out = append(out, r.Name)
		}
	}
	return out
}
