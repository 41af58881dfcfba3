// Package deploy carries a synthesized cloud assembly to AWS with the AWS
// SDK for Go v2. It works in two steps. The planner (Engine.Plan) reads
// the cloud assembly and the deployed stack once and decides what a deploy
// does: create, update, nothing, recreate a stack whose first deployment
// rolled back, or refuse with the reason. The executors carry a plan out:
// Deploy publishes the stack's file assets to S3 as the asset manifest
// says, creates the assets bucket on the first deploy to an account and
// region (no separate bootstrap), deploys the template through a change
// set (CREATE the first time, UPDATE after) and follows the stack's events
// while it waits; Diff completes the plan's template diff with
// CloudFormation's replacement answers. Destroy deletes deployed stacks.
//
// The engine reads the standard cloud assembly files (manifest.json, the
// stack's <stack>.assets.json and template) as plain JSON: it imports no
// CDK package and compiles fast.
//
// The last deployed IAM policy is read back from the deployed template
// (GetTemplate): the statements of the execution role's inline policies
// and of AWS::IAM::Policy resources. Nothing else is stored in the account.
package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"

	"github.com/framework-dev/framework/internal/awscall"
)

// AssetsExpirationDays is the age after which the assets bucket's
// lifecycle rule deletes an object. Deploy uploads again any asset it needs
// that is missing.
const AssetsExpirationDays = 365

// LoadConfig loads the AWS configuration from the SDK's default chain
// (environment, shared config and credentials files, AWS_PROFILE, SSO, ...)
// with the profile and region given on the command line taking precedence,
// and checks that a region and credentials are there, so that a missing one
// is one clear error.
//
// The SDK's own log (warnings such as "falling back to IMDSv1" or "failed
// to discard remaining HTTP response body") is dropped, so that the user
// sees the CLI's lines only; more options come last, so
// config.WithLogger among them (the CLI's -v) brings it back.
func LoadConfig(ctx context.Context, profile, region string, more ...func(*config.LoadOptions) error) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, append(opts, more...)...)
	err = awscall.RedactError(err) // a shared file's line may quote a secret
	if err != nil {
		if profile != "" {
			return aws.Config{}, fmt.Errorf("load AWS configuration for profile %q (check ~/.aws/config and ~/.aws/credentials): %w", profile, err)
		}
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return aws.Config{}, errors.New("no AWS region: set AWS_REGION, pass --region, or set region in ~/.aws/config for your profile")
	}
	if cfg.Credentials == nil {
		return aws.Config{}, errNoCredentials(nil)
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		// A credential_process output the SDK cannot parse is quoted
		// whole in its error: the secrets are not printed.
		return aws.Config{}, errNoCredentials(awscall.RedactError(err))
	}
	return cfg, nil
}

func errNoCredentials(err error) error {
	msg := "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, add them to ~/.aws/credentials (section [default]), or pass --profile (run `aws sso login --profile P` for SSO profiles)"
	if err == nil {
		return errors.New(msg)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// Unreachable explains an error of a call to AWS in region whose host
// does not resolve (a misspelt region, no network), which the SDK reports
// as "dial tcp: lookup <host>": it names the host, the region and what to
// check. Other errors are returned as they are. Every command that calls
// AWS says it so (deploy, diff and url through Engine, invoke and logs).
func Unreachable(region string, err error) error {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return fmt.Errorf("cannot reach AWS at %s (%s): check the region, %q (--region, AWS_REGION or your profile's region), and your network connection: %w", dns.Name, dns.Err, region, err)
	}
	return err
}

// explain adds what to do to an error of a first call to AWS that says
// nothing the user can act on: AWS refusing the request's credentials (an
// access key AWS does not know or a secret that does not match it, a
// session that has expired), or a service's host that does not resolve
// (a misspelt region, no network). Other errors are returned as they are.
func (e *Engine) explain(err error) error {
	if u := Unreachable(e.Region, err); u != err {
		return u
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch ae.ErrorCode() {
	case "InvalidClientTokenId", "UnrecognizedClientException", "SignatureDoesNotMatch", "InvalidAccessKeyId":
		return fmt.Errorf("AWS refused your credentials: the access key is unknown to AWS (deleted, or of another partition) or its secret key is wrong; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ~/.aws/credentials, or the profile you pass with --profile: %w", err)
	case "ExpiredToken", "ExpiredTokenException":
		return fmt.Errorf("your AWS session credentials have expired: get new ones (`aws sso login --profile P` for an SSO profile; a new AWS_SESSION_TOKEN with its keys otherwise) and run the command again: %w", err)
	}
	return err
}

// Engine deploys, reads, diffs and deletes stacks in one account and region.
type Engine struct {
	// CFN, S3 and STS are the service clients.
	CFN *cloudformation.Client
	S3  *s3.Client
	STS *sts.Client
	// Region is the configured region.
	Region string
	// Out receives progress and status lines.
	Out io.Writer
	// Terminal makes progress one line rewritten in place (resources done
	// of total, elapsed time) rather than one line per event.
	Terminal bool
	// Width is the terminal's width in columns, which the status line is
	// kept within; 0 means 80.
	Width int
	// PollInterval is the time between two looks at a stack or change set
	// being worked on (default 2 s).
	PollInterval time.Duration
	// Stage is the stage whose stack the engine works on: the framework
	// commands its messages tell the user to run name it (`framework
	// destroy --stage prod`), so that following them never reaches
	// another stage. Empty leaves --stage out.
	Stage string

	env *Env

	// Lambda is the Lambda client hotswaps update function code with.
	Lambda *lambda.Client
}

// New returns an engine using cfg. S3 uses path-style addressing when its
// endpoint is a custom one that is not AWS's (MinIO, LocalStack, a test
// fake), as S3-compatible servers need.
func New(cfg aws.Config, out io.Writer) *Engine {
	if out == nil {
		out = io.Discard
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient()
	}
	small := bufferedBodies{next: cfg.HTTPClient}
	return &Engine{
		CFN: cloudformation.NewFromConfig(cfg, func(o *cloudformation.Options) { o.HTTPClient = small }),
		S3: s3.NewFromConfig(cfg, func(o *s3.Options) {
			if o.BaseEndpoint != nil && !awsHost(*o.BaseEndpoint) {
				o.UsePathStyle = true
			}
		}),
		STS:          sts.NewFromConfig(cfg, func(o *sts.Options) { o.HTTPClient = small }),
		Region:       cfg.Region,
		Out:          out,
		PollInterval: 2 * time.Second,
		Lambda:       lambda.NewFromConfig(cfg),
	}
}

// awsHost reports whether an endpoint URL is one of AWS's own hosts.
func awsHost(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return strings.HasSuffix(h, ".amazonaws.com") || strings.HasSuffix(h, ".amazonaws.com.cn") || strings.HasSuffix(h, ".api.aws")
}

// Environment returns the account (from STS GetCallerIdentity), region and
// partition the engine works in.
func (e *Engine) Environment(ctx context.Context) (Env, error) {
	if e.env != nil {
		return *e.env, nil
	}
	out, err := e.STS.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Env{}, fmt.Errorf("find the AWS account of your credentials (sts:GetCallerIdentity): %w", e.explain(err))
	}
	env := Env{Account: aws.ToString(out.Account), Region: e.Region, Partition: partitionOf(e.Region)}
	e.env = &env
	return env, nil
}

func (e *Engine) printf(format string, args ...any) {
	fmt.Fprintf(e.Out, format, args...)
}

func (e *Engine) poll(ctx context.Context) error {
	d := e.PollInterval
	if d <= 0 {
		d = 2 * time.Second
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// command returns the framework command verb (deploy, destroy) as the
// user runs it for the engine's stage, quoted with backticks.
func (e *Engine) command(verb string) string {
	if e.Stage == "" {
		return "`framework " + verb + "`"
	}
	return "`framework " + verb + " --stage " + e.Stage + "`"
}

// InterruptedError is returned when the context ends (Ctrl-C) while the
// engine waits for CloudFormation: the operation goes on in AWS.
type InterruptedError struct {
	StackName, Region, Operation, Status string
	// Hint is the command to run afterwards.
	Hint string
	// NotStarted is true when the interruption came before CloudFormation
	// was asked to change anything.
	NotStarted bool
}

func (e *InterruptedError) Error() string {
	if e.NotStarted {
		return fmt.Sprintf("interrupted before stack %s was changed: nothing was deployed; %s", e.StackName, e.Hint)
	}
	status := ""
	if e.Status != "" {
		status = " (" + e.Status + ")"
	}
	return fmt.Sprintf("stopped waiting for stack %s%s: CloudFormation goes on with the %s; follow it with `aws cloudformation describe-stack-events --stack-name %s --region %s` or in the CloudFormation console, then %s",
		e.StackName, status, e.Operation, e.StackName, e.Region, e.Hint)
}

// ErrDeclined is returned when the user answers no to a confirmation.
var ErrDeclined = errors.New("declined: nothing was changed")
