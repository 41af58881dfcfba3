package policy

import (
	"fmt"
	"sort"
	"strings"
)

// LoggingActions are the CloudWatch Logs actions every function needs to
// write its logs; FromCalls always grants them.
var LoggingActions = []string{"logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"}

// LoggingResource is the resource of the logging statement of the one
// document FromCalls makes for the whole app (gen-policy's): the log
// groups of Lambda functions (/aws/lambda/<function>) and their streams,
// not the account's other log groups. The functions' names are generated
// by CloudFormation, so their groups cannot be named one by one here; the
// construct's roles each name their own function's group
// (perms.LogGroupRef).
const LoggingResource = "arn:*:logs:*:*:log-group:/aws/lambda/*"

// Call is one use of an AWS SDK for Go v2 operation found in the app's
// source: a client method called or taken as a value, a paginator or waiter
// constructed, a presigned request, or an interface call a visible client
// satisfies.
type Call struct {
	// Pos is "file:line:column", the file relative to the project directory
	// when it lies inside it.
	Pos string
	// Package is the SDK service package, e.g. github.com/aws/aws-sdk-go-v2/service/s3.
	Package string
	// Operation is the SDK operation, e.g. ListObjectsV2.
	Operation string
	// Actions are the IAM actions the operation needs, e.g. s3:ListBucket.
	Actions []string
	// Via says how the operation is reached: "call", "method value",
	// "method expression", "paginator", "waiter", "presign", "interface",
	// "type parameter", "helper" (an SDK feature package such as
	// feature/s3/manager) or "handle" (a declared resource's handle
	// calling AWS itself: Secret.Value, Parameter.Value).
	Via string
	// Functions are the app's functions whose code reaches the call, as
	// the scan attributes it: RoutePrefix+handler for code reached from
	// one route whose handler's name the scan knows, APIFunction for code
	// reached from other routes, route and app middleware and route
	// options; an event
	// handler's or plain function's (or app authorizer's) name for code
	// reached from its registration; KindPrefix+kind for middleware
	// registered for one kind of handler (UseFor); EveryFunction for code
	// every function runs (main and what it calls outside any handler,
	// package initialisation); UnknownFunction for code the scan cannot
	// place. Empty means EveryFunction.
	Functions []string `json:",omitempty"`
	// Target is the declared resource the call targets when the scan can
	// tell: the handle whose Name, ARN or URL the call's input names
	// (TableName: aws.String(todos.Name())), or the handle a handle call is
	// made on. Nil when unknown.
	Target *Target `json:",omitempty"`
}

// Target is the declared resource a Call targets.
type Target struct {
	// Kind is the resource kind of the handle (table, queue, topic,
	// bucket, secret, parameter).
	Kind string
	// Name is the declared name ("todos"); empty when the handle is known
	// by its type only (a parameter of type *resource.Secret).
	Name string `json:",omitempty"`
	// DeadLetter is true when the call names the queue's dead-letter queue
	// (q.DeadLetter().URL()), which only the Redrive access reaches.
	DeadLetter bool `json:",omitempty"`
}

// Names a Call's Functions may hold besides function names.
const (
	// APIFunction is the function serving every route (the manifest
	// refuses "api" as a function name).
	APIFunction = "api"
	// RoutePrefix + a route handler's name stands for the API's function,
	// reached from that route.
	RoutePrefix = "route:"
	// EveryFunction stands for every function of the app: code each runs
	// (main, init, package variables' initialisers).
	EveryFunction = "*"
	// UnknownFunction stands for code the scan reaches from no
	// registration, main or init (a function value kept in a package
	// variable, code called through reflection), or from a registration
	// whose handler name is not a constant: it may run in any function.
	// Its calls on what the app does not declare are granted to every
	// function; on a declared resource they are granted nothing beyond
	// the declarations, and every function and route whose declarations
	// do not cover them is reported (fail closed).
	UnknownFunction = "?"
	// KindPrefix + a manifest.Kind stands for every function of that kind.
	KindPrefix = "kind:"
)

// HandlePackage is the import path of the resource handles, whose own AWS
// calls (Secret.Value, Parameter.Value) the scan reports with Via "handle".
const HandlePackage = "github.com/framework-dev/framework/framework/resource"

// Report is what scan.Scan found in an app.
type Report struct {
	// Module is the app's module path.
	Module string
	// Packages are the import paths of the module's packages the main
	// package reaches (itself included), sorted.
	Packages []string
	// Calls are the SDK operations found, sorted by position.
	Calls []Call
	// UsesFramework is true when the main package imports the framework's
	// runtime (FrameworkPackage): only such an app has a route manifest,
	// whose declared resources narrow the policy.
	UsesFramework bool
}

// FrameworkPackage is the import path of the framework's runtime, which
// apps import.
const FrameworkPackage = "github.com/framework-dev/framework/framework"

// CompileError reports that the app's packages do not load or type-check;
// scan.Generate refuses to produce a partial policy from them.
type CompileError struct {
	// Dir is the project directory.
	Dir string
	// Errors are the compiler's messages, "file:line:col: message", in
	// order and de-duplicated.
	Errors []string
}

// Error lists every compiler message.
func (e *CompileError) Error() string {
	return fmt.Sprintf("the app in %s does not compile, so no policy was generated (fix these and run again):\n%s",
		e.Dir, strings.Join(e.Errors, "\n"))
}

// FromCalls builds the policy document for the given calls: the logging
// statement first (Sid AllowLogging), then one statement per IAM service
// prefix in alphabetical order (Sid "Allow" + the prefix in CamelCase, for
// example AllowS3, AllowDynamodb, AllowS3ObjectLambda).
func FromCalls(calls []Call) *Document {
	doc := &Document{Version: PolicyVersion, Statement: []Statement{{
		Sid:      "AllowLogging",
		Effect:   "Allow",
		Action:   append([]string(nil), LoggingActions...),
		Resource: []string{LoggingResource},
	}}}
	byPrefix := map[string]map[string]bool{}
	for _, c := range calls {
		for _, a := range c.Actions {
			prefix, _, _ := strings.Cut(a, ":")
			if byPrefix[prefix] == nil {
				byPrefix[prefix] = map[string]bool{}
			}
			byPrefix[prefix][a] = true
		}
	}
	prefixes := make([]string, 0, len(byPrefix))
	for p := range byPrefix {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)
	for _, p := range prefixes {
		actions := make([]string, 0, len(byPrefix[p]))
		for a := range byPrefix[p] {
			actions = append(actions, a)
		}
		sort.Strings(actions)
		doc.Statement = append(doc.Statement, Statement{
			Sid:      "Allow" + camel(p),
			Effect:   "Allow",
			Action:   actions,
			Resource: []string{"*"},
		})
	}
	return doc
}

// camel turns an IAM prefix such as "s3-object-lambda" into "S3ObjectLambda".
func camel(prefix string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(prefix, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// ManageConnections is the IAM action of the WebSocket connections
// handle (framework.Connections: Send, SendJSON, Close, Describe), which
// the scan reports with Via "handle".
const ManageConnections = "execute-api:ManageConnections"
