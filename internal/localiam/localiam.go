// Package localiam checks, under `framework local` and `framework invoke
// --local`, each function's AWS calls against the policy its deployed role
// will have, and refuses locally what the deployed role would refuse.
//
// # Design
//
// A signing proxy on 127.0.0.1 stands between the function processes and
// AWS (the emulator of --aws-endpoint, or the deployed stage's account):
//
//   - every function process gets AWS_ENDPOINT_URL pointing at the proxy
//     and credentials of its own, an access key id and a secret key the
//     proxy made for that function alone, new in every run and the same
//     throughout it (Proxy.Environ), so that warm processes are reused;
//   - the proxy verifies each call's SigV4 signature with the secret of
//     the function whose key id it names, as AWS does: the Authorization
//     header's canonical request (method, path, query, the headers it
//     lists, the payload hash X-Amz-Content-Sha256 declares, or the body's
//     own hash when it declares none) or a presigned URL's, a date within
//     15 minutes of now and a presigned URL within its expiry. A body whose
//     hash is signed is checked against it: read whole when the check
//     needs it, else (S3 uploads) as it streams upstream, the upload cut
//     off before its end when it does not match. UNSIGNED-PAYLOAD and
//     STREAMING-UNSIGNED-PAYLOAD-TRAILER are taken as declared, being
//     signed; chunk-signed bodies (STREAMING-AWS4-HMAC-SHA256-PAYLOAD,
//     which the AWS SDK for Go v2 does not send) are refused. A call
//     unsigned, badly signed, too old or signed with a key that is no
//     function's gets the service's own error (InvalidSignatureException,
//     SignatureDoesNotMatch, InvalidAccessKeyId...) and is not sent on;
//     so no other local process can act as a function;
//   - the proxy derives the IAM action and the resource ARNs from the
//     request (Classify): DynamoDB (PartiQL and Streams reads too), SQS
//     (JSON and query protocols), SNS, S3 (path and virtual-host style,
//     bucket and object sub-resources), Secrets Manager, SSM, the
//     services the declared resources use, and API Gateway's @connections
//     management API (execute-api), which the proxy sends on to the local
//     WebSocket API with a per-run token instead of a signature;
//   - it evaluates them against the function's policy as internal/perms
//     computes it for synth (Deployed, with the declared resources' ARNs
//     where the app runs), with IAM's matching: the wildcards * and ?,
//     actions without regard to case, resources with it, an implicit deny
//     when nothing allows, a Deny of a hand-written policy winning;
//   - a call nothing allows is answered by the proxy with the service's
//     own AccessDenied shape (the JSON services' AccessDeniedException,
//     SQS's AccessDenied, SNS's AuthorizationError, S3's AccessDenied XML),
//     and reported with the Allow that would grant it;
//   - an allowed call is signed again with the real credentials (the
//     emulator's, or the deployed stage's as the CLI has them) and sent
//     where it was going.
//
// Why a proxy rather than the emulators' own IAM: moto enforces IAM only
// when told to, for the users it knows, and LocalStack only in its paid
// tier; neither checks a deployed stage's account, where the user's own
// credentials (an administrator's, often) allow everything. The proxy
// checks the same statements at an emulator and against AWS, needs no
// IAM user per function anywhere, and keeps the runtime (package framework)
// free of any of it: the app's SDK calls are checked because the SDK reads
// AWS_ENDPOINT_URL and AWS_ACCESS_KEY_ID, as it does deployed.
//
// It fails closed: a call Classify cannot classify (a service or an
// operation it does not model, a request it cannot read one way only) is
// refused with the service's AccessDenied and an iam_unmodeled line,
// never sent on with the real credentials; so is every call of a function
// the policies do not know, and every call when there are no policies
// (the code not scanned yet, a hand-written policy that does not load).
// --no-iam-check turns the whole check off.
//
// What is checked is what is sent. A request that the check and the
// emulator or AWS could read in different ways is refused, not re-encoded:
// a JSON body that is not valid UTF-8 JSON (NaN), or holds a key twice or
// a key the check reads in another case (strict.go); for S3, an unknown or
// repeated query parameter, two sub-resources, a Host that is neither the
// proxy nor an S3 endpoint, dot segments, encoded slashes, XML that is not
// plain UTF-8 or holds a DOCTYPE; for SQS, a queue URL that is not exactly
// scheme://host/ACCOUNT/NAME; for the query protocol, a parameter given
// twice, in both the URL and the body, or in two cases; for SNS, a Publish
// naming more than one target. Refusing is the safe choice where a
// rewrite would have to guess what the sender meant. The one rewrite: a
// bucket named in the Host is forwarded path style (Call.Path), since S3
// itself reads such a request one way only.
//
// What it does not model: IAM conditions, resource policies and
// permission boundaries; a secret named by name rather than ARN that the
// app does not declare is matched without its random suffix. Calls made by
// the CLI itself (the deliverer's polling, resource creation) do not go
// through it: deployed, those are Lambda's and CloudFormation's, not the
// function's.
package localiam

import "strings"

// Statement is one Allow statement of a function's deployed policy, with
// concrete ARNs (placeholders already replaced); actions and resources may
// hold IAM's * and ? wildcards.
type Statement struct {
	Actions   []string
	Resources []string
	// Reason says why the function has it (a declaration, a trigger, the
	// scan of a call site), for messages.
	Reason string
}

// Policies say what each function's deployed role will allow.
type Policies interface {
	// Allows reports whether the role of the function named function
	// ("api" for the API's function, else the handler's name) allows
	// action on resource; known is false for a function the policies do
	// not know, whose calls the proxy then refuses.
	Allows(function, action, resource string) (allowed, known bool)
}

// StaticPolicies are Policies of fixed Allow statements by function.
type StaticPolicies map[string][]Statement

// Allows implements Policies.
func (p StaticPolicies) Allows(function, action, resource string) (bool, bool) {
	stmts, known := p[function]
	if !known {
		return false, false
	}
	_, ok := Allowed(stmts, action, resource)
	return ok, true
}

// Call is one AWS call as IAM sees it: the checks it needs, each of which
// must be allowed (a batch names several resources, a copy two actions).
type Call struct {
	// Service is the SigV4 signing name (dynamodb, sqs, s3, ...).
	Service string
	// Operation is the API operation (SendMessageBatch, CopyObject).
	Operation string
	// Checks are the IAM actions and resources ("*" for actions that
	// take none) the call is evaluated on.
	Checks []Check
	// Path, when set, is the escaped path the call is forwarded with
	// instead of the request's (S3's path-style form of a virtual-host
	// request): what is sent upstream is what was checked.
	Path string

	protocol protocol
}

// protocol is how the service answers, for the AccessDenied shape.
type protocol int

const (
	protoJSON protocol = iota // awsJson: DynamoDB, Secrets Manager, SSM
	protoSQSJSON
	protoSQSQuery
	protoSNS
	protoS3
	protoExecAPI  // API Gateway's management API (@connections)
	protoQuery    // the query protocol of services the check does not know (IAM, STS)
	protoRESTJSON // REST-JSON services the check does not know (Lambda)
	protoXML      // any other service: S3's XML error
)

// Denied reports a refused call.
type Denied struct {
	// Function is the function that called; Action and Resource what the
	// deployed role would refuse.
	Function, Action, Resource string
	// Hint is the declaration that would grant it, or what to do when no
	// declaration can ("" when the proxy has none to give).
	Hint string
}

// Line is the log line of d.
func (d Denied) Line() string {
	s := "IAM: function " + d.Function + " may not " + d.Action + " on " + d.Resource + ": its deployed role would refuse it, so the call got AccessDenied"
	if d.Hint != "" {
		s += "; " + d.Hint
	}
	return s
}

// UnmodeledLine is the line that says a call of function that the check
// cannot classify (u says which and why) was refused.
func UnmodeledLine(function string, u *Unmodeled) string {
	op := u.Operation
	if op == "" {
		op = "(operation unknown)"
	}
	what := "the check models DynamoDB, SQS, SNS, S3, Secrets Manager and SSM calls, and refuses any other"
	if knownServices[u.Service] {
		what = "the check refuses the calls it cannot read one way only, and the operations it does not model"
	}
	return "IAM: function " + function + "'s " + u.Service + " " + op + " call was refused, not checked: " + u.Why + "; " + what +
		" (it fails closed): call an operation the check models, or pass --no-iam-check to let every call through unchecked"
}

// NoPolicyLine is the line that says the calls of function are refused
// for want of a policy to check them against, why saying why.
func NoPolicyLine(function, why string) string {
	return "IAM: function " + function + "'s AWS calls are refused: " + why +
		"; the check refuses the calls it has no policy for (it fails closed): --no-iam-check lets every call through unchecked"
}

var knownServices = map[string]bool{"dynamodb": true, "sqs": true, "sns": true, "s3": true, "secretsmanager": true, "ssm": true}

// Allowed reports whether stmts allow action on resource, and the
// statement that does (nil when none does).
func Allowed(stmts []Statement, action, resource string) (*Statement, bool) {
	for i := range stmts {
		s := &stmts[i]
		if !anyMatch(s.Actions, action, true) {
			continue
		}
		if anyMatch(s.Resources, resource, false) {
			return s, true
		}
	}
	return nil, false
}

func anyMatch(patterns []string, v string, fold bool) bool {
	for _, p := range patterns {
		if fold {
			if Match(strings.ToLower(p), strings.ToLower(v)) {
				return true
			}
		} else if Match(p, v) {
			return true
		}
	}
	return false
}

// Match reports whether value matches pattern under IAM's wildcards: *
// matches any run of characters (including none, and across : and /), ?
// exactly one.
func Match(pattern, value string) bool {
	p, v := 0, 0
	star, mark := -1, 0
	for v < len(value) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == value[v]):
			p++
			v++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, v
			p++
		case star >= 0:
			p = star + 1
			mark++
			v = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
