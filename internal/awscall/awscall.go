// Package awscall calls AWS services that speak the JSON protocols (JSON
// 1.0 and 1.1: DynamoDB, SQS, SSM, Secrets Manager, Kinesis, CloudWatch
// Logs, EventBridge) without the AWS SDK: one signed POST per call, its
// input and output plain JSON. The runtime package framework/resource uses
// it (the runtime must not link the SDK) and so can the CLI.
//
// Configuration comes from the environment as the AWS SDKs read it: the
// region from AWS_REGION or AWS_DEFAULT_REGION; the credentials from
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (what
// Lambda sets for the function's role), else from the container
// credentials endpoint at AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS,
// CodeBuild) or AWS_CONTAINER_CREDENTIALS_FULL_URI (what `framework local`
// gives the app, EKS Pod Identity; see ContainerCredentials), shared config
// files and profiles not being read; the endpoint from
// AWS_ENDPOINT_URL_<SERVICE> (for example AWS_ENDPOINT_URL_SECRETS_MANAGER),
// then AWS_ENDPOINT_URL, then the service's regional endpoint.
package awscall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// Service is how one AWS service is called.
type Service struct {
	// SigningName is the name in the signature's scope, and the first
	// label of the regional endpoint's host unless Host says otherwise.
	SigningName string
	// Host is the first labels of the regional endpoint's host, when they
	// differ from SigningName.
	Host string
	// EnvID is the service's part of AWS_ENDPOINT_URL_<EnvID>.
	EnvID string
	// TargetPrefix prefixes the operation in X-Amz-Target.
	TargetPrefix string
	// JSONVersion is "1.0" or "1.1", the protocol's content type version.
	JSONVersion string
}

// Services are the services Call knows, by the name it takes.
var Services = map[string]Service{
	"dynamodb":        {SigningName: "dynamodb", EnvID: "DYNAMODB", TargetPrefix: "DynamoDB_20120810", JSONVersion: "1.0"},
	"dynamodbstreams": {SigningName: "dynamodb", Host: "streams.dynamodb", EnvID: "DYNAMODB_STREAMS", TargetPrefix: "DynamoDBStreams_20120810", JSONVersion: "1.0"},
	"sqs":             {SigningName: "sqs", EnvID: "SQS", TargetPrefix: "AmazonSQS", JSONVersion: "1.0"},
	"ssm":             {SigningName: "ssm", EnvID: "SSM", TargetPrefix: "AmazonSSM", JSONVersion: "1.1"},
	"secretsmanager":  {SigningName: "secretsmanager", EnvID: "SECRETS_MANAGER", TargetPrefix: "secretsmanager", JSONVersion: "1.1"},
	"kinesis":         {SigningName: "kinesis", EnvID: "KINESIS", TargetPrefix: "Kinesis_20131202", JSONVersion: "1.1"},
	"logs":            {SigningName: "logs", EnvID: "CLOUDWATCH_LOGS", TargetPrefix: "Logs_20140328", JSONVersion: "1.1"},
	"events":          {SigningName: "events", EnvID: "EVENTBRIDGE", TargetPrefix: "AWSEvents", JSONVersion: "1.1"},
}

// Config is where and as whom calls are made.
type Config struct {
	// Region is the AWS region, for example us-east-1.
	Region string
	// Credentials sign the calls, unless Provider is set.
	Credentials Credentials
	// Provider, when set, gives the credentials of each call instead
	// (credentials that expire and are refreshed).
	Provider CredentialsFunc
	// Endpoint, when set, is the base URL of every service (an emulator
	// such as moto or LocalStack); Endpoints, by service name, win over it.
	Endpoint  string
	Endpoints map[string]string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Now is the signing time; nil means time.Now.
	Now func() time.Time
}

// FromEnv returns the configuration the environment gives (see the
// package's doc).
func FromEnv() Config {
	c := Config{
		Region:      firstEnv("AWS_REGION", "AWS_DEFAULT_REGION"),
		Credentials: Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: os.Getenv("AWS_SESSION_TOKEN")},
		Endpoint:    os.Getenv("AWS_ENDPOINT_URL"),
	}
	if c.Credentials.AccessKeyID == "" {
		c.Provider = containerFromEnv()
	}
	for name, s := range Services {
		if u := os.Getenv("AWS_ENDPOINT_URL_" + s.EnvID); u != "" {
			if c.Endpoints == nil {
				c.Endpoints = map[string]string{}
			}
			c.Endpoints[name] = u
		}
	}
	if u := os.Getenv("AWS_ENDPOINT_URL_S3"); u != "" { // for PresignS3
		if c.Endpoints == nil {
			c.Endpoints = map[string]string{}
		}
		c.Endpoints["s3"] = u
	}
	return c
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// Error is an error answer of an AWS service.
type Error struct {
	// Service and Operation are what was called (secretsmanager,
	// GetSecretValue).
	Service, Operation string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Code is AWS's error code without its namespace, for example
	// ResourceNotFoundException; Message is AWS's message.
	Code, Message string
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("%s %s: %s: %s", e.Service, e.Operation, e.Code, msg)
}

// Call calls operation target of service (a key of Services) with the
// configuration of the environment; see Config.Call.
func Call(ctx context.Context, service, target string, input, output any) error {
	return FromEnv().Call(ctx, service, target, input, output)
}

// Call calls operation target (GetSecretValue, or a whole X-Amz-Target
// such as secretsmanager.GetSecretValue) of service, a key of Services.
// input is encoded as JSON (nil sends {}; a []byte or json.RawMessage is
// sent as is) and the answer is decoded into output unless it is nil. An
// answer of the service that is an error is an *Error; a throttling or
// server error is retried twice.
func (c Config) Call(ctx context.Context, service, target string, input, output any) error {
	s, ok := Services[service]
	if !ok {
		names := make([]string, 0, len(Services))
		for n := range Services {
			names = append(names, n)
		}
		slices.Sort(names)
		return fmt.Errorf("awscall: unknown service %q: use one of %s", service, strings.Join(names, ", "))
	}
	op := target[strings.LastIndex(target, ".")+1:]
	if !strings.Contains(target, ".") {
		target = s.TargetPrefix + "." + target
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s %s: "+format, append([]any{service, op}, args...)...)
	}
	if c.Region == "" {
		return fail("no AWS region: set AWS_REGION")
	}
	creds, err := c.CurrentCredentials(ctx)
	if err != nil {
		return fail("%w", err)
	}
	var body []byte
	switch in := input.(type) {
	case nil:
		body = []byte("{}")
	case []byte:
		body = in
	case json.RawMessage:
		body = in
	default:
		var err error
		if body, err = json.Marshal(input); err != nil {
			return fail("encoding the input: %w", err)
		}
	}
	endpoint := c.endpoint(service, s)
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return fail("endpoint %q: %w", endpoint, err)
		}
		req.Header.Set("Content-Type", "application/x-amz-json-"+s.JSONVersion)
		req.Header.Set("X-Amz-Target", target)
		Sign(req, body, creds, c.Region, s.SigningName, c.now())
		setTraceHeader(ctx, req)
		resp, err := hc.Do(req)
		if err != nil {
			return fail("%w", err)
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return fail("reading the answer: %w", err)
		}
		if resp.StatusCode < 300 {
			if output == nil || len(bytes.TrimSpace(out)) == 0 {
				return nil
			}
			if err := json.Unmarshal(out, output); err != nil {
				return fail("decoding the answer: %w", err)
			}
			return nil
		}
		e := errorOf(service, op, resp, out)
		if attempt >= 2 || !retryable(e) {
			return e
		}
		select {
		case <-ctx.Done():
			return e
		case <-time.After(time.Duration(100<<attempt) * time.Millisecond):
		}
	}
}

// CurrentCredentials are the credentials a call made now is signed with:
// Provider's when it is set, else Credentials. Without any, the error says
// which variables to set.
func (c Config) CurrentCredentials(ctx context.Context) (Credentials, error) {
	creds := c.Credentials
	if c.Provider != nil {
		var err error
		if creds, err = c.Provider(ctx, c.now()); err != nil {
			return Credentials{}, err
		}
	}
	if creds.AccessKeyID == "" || creds.SecretAccessKey == "" {
		return Credentials{}, errors.New("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or " + EnvContainerURI + " or " + EnvContainerRelativeURI)
	}
	return creds, nil
}

// now is the configuration's clock.
func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// endpoint is the URL the service is called at.
func (c Config) endpoint(name string, s Service) string {
	if u := c.Endpoints[name]; u != "" {
		return u
	}
	if c.Endpoint != "" {
		return c.Endpoint
	}
	host := s.Host
	if host == "" {
		host = s.SigningName
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(c.Region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://" + host + "." + c.Region + "." + suffix + "/"
}

// errorOf reads AWS's error answer: its code from the body's __type (or
// code) or the X-Amzn-ErrorType header, without the namespace before '#'
// nor the detail after ':'.
func errorOf(service, op string, resp *http.Response, body []byte) *Error {
	var b struct {
		Type     string `json:"__type"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	_ = json.Unmarshal(body, &b)
	code := b.Type
	if code == "" {
		code = b.Code
	}
	if code == "" {
		code = resp.Header.Get("X-Amzn-ErrorType")
	}
	if i := strings.LastIndex(code, "#"); i >= 0 {
		code = code[i+1:]
	}
	if i := strings.Index(code, ":"); i >= 0 {
		code = code[:i]
	}
	if code == "" {
		code = http.StatusText(resp.StatusCode)
	}
	msg := b.Message
	if msg == "" {
		msg = b.MessageU
	}
	if msg == "" && b.Type == "" && len(body) > 0 && !json.Valid(body) {
		msg = strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
	}
	return &Error{Service: service, Operation: op, StatusCode: resp.StatusCode, Code: code, Message: msg}
}

// retryable reports whether a call that failed with e may succeed again.
func retryable(e *Error) bool {
	return e.StatusCode >= 500 || e.StatusCode == 429 || strings.Contains(e.Code, "Throttl") ||
		e.Code == "ProvisionedThroughputExceededException" || e.Code == "RequestLimitExceeded"
}

// IsCode reports whether err is an AWS error answer with code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
