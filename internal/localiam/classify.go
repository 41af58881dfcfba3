package localiam

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Env is what Classify needs to name resources that a request gives by
// name rather than by ARN.
type Env struct {
	// Region and Account are the calling function's (the emulator's
	// account, or the deployed stage's).
	Region, Account string
	// SecretARNs are the declared secrets' ARNs by physical name: a
	// secret's ARN ends in 6 random characters that its name lacks.
	SecretARNs map[string]string
	// WebSocketAPI is the id of the app's local WebSocket API ("" when
	// none runs): its @connections calls' ARNs name it.
	WebSocketAPI string
}

// partition is the ARN partition of the region.
func (e Env) partition() string {
	switch {
	case strings.HasPrefix(e.Region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(e.Region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// arn is an ARN of service in e's partition, region and account.
func (e Env) arn(service, resource string) string {
	return "arn:" + e.partition() + ":" + service + ":" + e.Region + ":" + e.Account + ":" + resource
}

// Check is one action on one resource that IAM evaluates.
type Check struct {
	Action   string
	Resource string
}

// Unmodeled is why the check cannot classify a call: the service, the
// operation or the request is one it does not model, or reads in more
// than one way. The proxy refuses such a call (it fails closed).
type Unmodeled struct {
	// Service is the SigV4 signing name; Operation the API operation
	// when it could be read ("" when not).
	Service, Operation string
	// Why says what the check could not read, for the log line.
	Why string
}

func (u *Unmodeled) Error() string {
	op := u.Operation
	if op == "" {
		op = "(operation unknown)"
	}
	return u.Service + " " + op + ": " + u.Why
}

// errUnmodeled is what a service's classifier returns when the request is
// not one it models; Classify completes it with the service and operation.
// A classifier that knows more says it with unmodeled.
var errUnmodeled = errors.New("the operation, or a parameter it names its resource by, is not one the check models")

// unmodeled is an error of a service's classifier that says why.
func unmodeled(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// Classify derives from a request signed for service (the signing name in
// its SigV4 scope) the IAM checks it needs. body is the request's payload.
// A service, operation or request it does not model, or cannot read in
// one way only, is an *Unmodeled error: the call is refused.
func Classify(r *http.Request, body []byte, service string, e Env) (Call, error) {
	c := Call{Service: service}
	var err error
	switch service {
	case "dynamodb":
		c.protocol = protoJSON
		err = classifyDynamoDB(&c, r, body, e)
	case "sqs":
		err = classifySQS(&c, r, body, e)
	case "sns":
		c.protocol = protoSNS
		err = classifySNS(&c, r, body, e)
	case "s3":
		c.protocol = protoS3
		err = classifyS3(&c, r, body)
	case "secretsmanager":
		c.protocol = protoJSON
		err = classifySecrets(&c, r, body, e)
	case "ssm":
		c.protocol = protoJSON
		err = classifySSM(&c, r, body, e)
	case "execute-api":
		c.protocol = protoExecAPI
		err = classifyExecAPI(&c, r, e)
	default:
		err = fmt.Errorf("the check models DynamoDB, SQS, SNS, S3, Secrets Manager and SSM calls, not %s", service)
	}
	if err == nil && len(c.Checks) == 0 {
		err = errUnmodeled
	}
	if err != nil {
		op := c.Operation
		if _, t := target(r); op == "" && t != "" {
			op = t
		} else if op == "" {
			op = r.URL.Query().Get("Action")
		}
		return Call{Service: service, Operation: op, protocol: c.protocol}, &Unmodeled{Service: service, Operation: op, Why: err.Error()}
	}
	return c, nil
}

// target is the operation of a JSON protocol request: X-Amz-Target's part
// after the dot, and the part before it.
func target(r *http.Request) (prefix, op string) {
	t := r.Header.Get("X-Amz-Target")
	i := strings.LastIndex(t, ".")
	if i < 0 {
		return "", ""
	}
	return t[:i], t[i+1:]
}

func (c *Call) add(action, resource string) {
	c.Checks = append(c.Checks, Check{Action: action, Resource: resource})
}
