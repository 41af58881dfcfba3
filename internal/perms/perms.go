// Package perms computes, in one place, what each function of an app may do
// in AWS: its IAM policy. Each function's policy is made of
//
//   - the accesses declared on the app's resources (resource.Table.Allow
//     and the like, app-wide or for the handlers named), on those
//     resources' ARNs only;
//   - its trigger's needs (a queue or stream read through an event source
//     mapping);
//   - the AWS SDK calls found by the policy scan in the code it reaches
//     (package policy/scan), the handles' own calls (Secret.Value,
//     Parameter.Value) included, on declared resources only within what
//     is declared (a declaration is the ceiling, for each function and,
//     in the API's function, for each route reaching the call; code the
//     scan cannot place is held to every function's and route's), and on
//     what the app does not declare as the scan narrows them
//     (policy.Narrow's rule: "*" where the target is not known);
//   - writing its logs, and X-Ray when tracing is on.
//
// Compute returns one FunctionPolicy per function: the API's function
// (policy.APIFunction, serving every route, with the routes' handlers,
// middleware and authorizers), then each event handler, plain function
// and app authorizer, by name. Three readers use it: the construct (one IAM
// role per function, each holding exactly its statements), `framework
// diff` and `gen-policy --explain` (what changes, and why: each
// statement's Reasons), and `framework local` (which refuses locally what
// the deployed role would refuse: FunctionPolicy.Allows).
//
// A statement's resources may name a declared resource (Resource.Ref),
// whose ARN CloudFormation generates: the construct resolves it to a
// CloudFormation token, `framework local` to the emulator's or the
// deployed stage's ARN (Resource.Resolve).
//
// The package is plain Go: no CDK, no go/types, so the CLI and the
// runtime's local server can link it.
package perms

import (
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
)

// ReasonKind says why a statement is in a function's policy.
type ReasonKind string

// Reason kinds.
const (
	// ReasonDeclaration: an access declared on a declared resource
	// (Allow), for this function or for every function.
	ReasonDeclaration ReasonKind = "declaration"
	// ReasonTrigger: what the function's event source needs (an SQS queue
	// or a stream read through an event source mapping).
	ReasonTrigger ReasonKind = "trigger"
	// ReasonScan: an AWS call found in the code the function reaches, on
	// what the app does not declare.
	ReasonScan ReasonKind = "scan"
	// ReasonPolicy: a statement of the hand-written policy
	// (.framework/policy.json with no_autogen_policy, or the construct's
	// AppProps.Policy), which every function gets.
	ReasonPolicy ReasonKind = "policy"
	// ReasonLogging: writing the function's logs to CloudWatch Logs.
	ReasonLogging ReasonKind = "logging"
	// ReasonXRay: sending traces to X-Ray (tracing on). The construct
	// grants it with the managed policy AWSXRayDaemonWriteAccess.
	ReasonXRay ReasonKind = "xray"
)

// Reason is one reason for a statement.
type Reason struct {
	Kind ReasonKind `json:"kind"`
	// Pos is "file:line" of the call (scan); empty when not known.
	Pos string `json:"pos,omitempty"`
	// Resource is the declared resource's name (declaration, trigger, and
	// a scanned call on a declared resource).
	Resource string `json:"resource,omitempty"`
	// Access is the declared access (declaration, trigger).
	Access manifest.Access `json:"access,omitempty"`
	// Call is the scanned operation, "dynamodb.PutItem" or
	// "resource.Secret.Value" (scan).
	Call string `json:"call,omitempty"`
	// Detail says more for the user: who the declaration is for ("every
	// function", "handler add"), the trigger's source, why an action keeps
	// "*".
	Detail string `json:"detail,omitempty"`
}

// String is the reason in one line, as `gen-policy --explain` prints it.
func (r Reason) String() string {
	var b strings.Builder
	b.WriteString(string(r.Kind))
	if r.Call != "" {
		b.WriteString(" " + r.Call)
	}
	if r.Pos != "" {
		b.WriteString(" at " + r.Pos)
	}
	if r.Access != "" {
		fmt.Fprintf(&b, " %s", r.Access)
	}
	if r.Resource != "" {
		fmt.Fprintf(&b, " %q", r.Resource)
	}
	if r.Detail != "" {
		b.WriteString(" (" + r.Detail + ")")
	}
	return b.String()
}

// Resource is one resource of a statement: a literal ARN or pattern, or a
// declared resource's ARN (Ref) with a suffix.
type Resource struct {
	// ARN is a literal ARN or pattern ("*", an event source's ARN); empty
	// when Ref is set.
	ARN string `json:"arn,omitempty"`
	// Ref is the name of the declared resource whose ARN this is, or
	// LogGroupRef(function) for a function's own log group.
	Ref string `json:"ref,omitempty"`
	// Attr is the attribute of Ref: manifest.AttrARN,
	// manifest.AttrStreamARN for a table's stream, or manifest.AttrDLQARN
	// for a queue's dead-letter queue. Empty means AttrARN.
	Attr string `json:"attr,omitempty"`
	// Suffix is appended to Ref's ARN: "/*" (a bucket's objects),
	// "/index/*" (a table's indexes), or "".
	Suffix string `json:"suffix,omitempty"`
}

// Attribute is r's attribute, manifest.AttrARN when Attr is empty.
func (r Resource) Attribute() string {
	if r.Attr == "" {
		return manifest.AttrARN
	}
	return r.Attr
}

// String is r as a policy document writes it before resolution: the ARN,
// or policy.ResourceRef(Ref) + Suffix ("${resource:todos}/index/*"; a
// stream is "${resource:todos}" + " stream").
func (r Resource) String() string {
	if r.Ref == "" {
		return r.ARN
	}
	if fn, ok := LogGroupOf(r.Ref); ok {
		return "arn:*:logs:*:*:log-group:/aws/lambda/${function:" + fn + "}" + r.Suffix
	}
	s := policy.ResourceRef(r.Ref) + r.Suffix
	switch r.Attribute() {
	case manifest.AttrStreamARN:
		s += " (stream)"
	case manifest.AttrDLQARN:
		s += " (dead-letter queue)"
	}
	return s
}

// Label names r for the user: `table "todos"`, `objects of bucket
// "files"`, or the ARN.
func (r Resource) Label(m *manifest.Manifest) string {
	if r.Ref == "" {
		return r.ARN
	}
	if r.Ref == WebSocketRef {
		return "the connections of the app's WebSocket API"
	}
	if fn, ok := LogGroupOf(r.Ref); ok {
		if r.Suffix != "" {
			return fmt.Sprintf("the log streams of function %s's log group", fn)
		}
		return fmt.Sprintf("function %s's log group", fn)
	}
	kind := "resource"
	if d := m.Resource(r.Ref); d != nil {
		kind = string(d.Kind)
	}
	switch {
	case r.Attribute() == manifest.AttrStreamARN:
		return fmt.Sprintf("stream of %s %q", kind, r.Ref)
	case r.Attribute() == manifest.AttrDLQARN:
		return fmt.Sprintf("dead-letter queue of %s %q", kind, r.Ref)
	case r.Suffix == "/*":
		return fmt.Sprintf("objects of %s %q", kind, r.Ref)
	case r.Suffix == "/index/*":
		return fmt.Sprintf("indexes of %s %q", kind, r.Ref)
	}
	return fmt.Sprintf("%s %q", kind, r.Ref)
}

// Resolve returns r's ARN: ARN (with the policy.ResourceRef references a
// hand-written ARN may hold replaced), or the ARN attr gives for Ref's
// attribute followed by Suffix. attr returns false for an attribute it does not know.
func (r Resource) Resolve(attr func(name, attr string) (string, bool)) (string, error) {
	if r.Ref == "" {
		if !strings.Contains(r.ARN, "${resource:") {
			return r.ARN, nil
		}
		return policy.ReplaceResourceRefs(r.ARN, func(name string) (string, bool) { return attr(name, manifest.AttrARN) })
	}
	v, ok := attr(r.Ref, r.Attribute())
	if fn, isLog := LogGroupOf(r.Ref); isLog && !ok {
		return "", fmt.Errorf("the policy names function %s's log group, whose name is not known here", fn)
	}
	if !ok {
		return "", fmt.Errorf("the policy names %s, but the app declares no resource %q with %s: declare it, or fix the name", policy.ResourceRef(r.Ref), r.Ref, r.Attribute())
	}
	return v + r.Suffix, nil
}

// logGroupPrefix starts the Refs of LogGroupRef.
const logGroupPrefix = "$loggroup:"

// LogGroupRef is the Ref of a Resource that stands for the CloudWatch Logs
// group of the function named function (policy.APIFunction for the
// API's): /aws/lambda/<its Lambda function's name>, which only the
// construct knows. Its attribute is manifest.AttrARN, the group's ARN
// without the ":*" CloudWatch Logs appends (Suffix adds it).
func LogGroupRef(function string) string { return logGroupPrefix + function }

// LogGroupOf returns the function whose log group ref stands for, and
// whether it is a LogGroupRef.
func LogGroupOf(ref string) (function string, ok bool) {
	return strings.CutPrefix(ref, logGroupPrefix)
}

// Statement is one Allow statement of a function's policy, with why it is
// there.
type Statement struct {
	// Sid identifies the statement in the function's policy.
	Sid string `json:"sid"`
	// Effect is "Allow" ("Deny" only in a hand-written policy's statements).
	Effect string `json:"effect"`
	// Actions are IAM actions, possibly with wildcards ("s3:GetObject*"),
	// sorted.
	Actions []string `json:"actions"`
	// Resources are what the actions apply to.
	Resources []Resource `json:"resources"`
	// Reasons say why, at least one.
	Reasons []Reason `json:"reasons"`
}

// FunctionPolicy is what one Lambda function of the app may do.
type FunctionPolicy struct {
	// Function is policy.APIFunction for the function serving every
	// route, else the event handler's, plain function's or app
	// authorizer's name (manifest.Function.Name).
	Function string `json:"function"`
	// Kind is manifest.KindHTTP for the API's function, else the
	// function's kind.
	Kind manifest.Kind `json:"kind"`
	// Handlers are the route handlers the API's function serves; empty for
	// the others.
	Handlers []string `json:"handlers,omitempty"`
	// Resources are the declared resources the function may use, sorted:
	// those it has an access to and the one feeding it. It receives their
	// FRAMEWORK_RES_* variables, and no others.
	Resources []string `json:"resources,omitempty"`
	// Statements are its policy, in a stable order: logging first, then
	// the declarations by resource, the trigger, the scan's by service,
	// the hand-written policy's, X-Ray.
	Statements []Statement `json:"statements"`
}

// Accesses returns the accesses f has on the declared resource name
// (declarations and trigger), sorted.
func (f *FunctionPolicy) Accesses(name string) []manifest.Access {
	var out []manifest.Access
	for _, s := range f.Statements {
		for _, r := range s.Reasons {
			if (r.Kind == ReasonDeclaration || r.Kind == ReasonTrigger) && strings.EqualFold(r.Resource, name) && r.Access != "" {
				out = append(out, r.Access)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Allows reports whether f's statements allow action on the resource
// whose ARN is arn ("*" for an action that targets no resource), with
// attr resolving declared resources' ARNs as in Resource.Resolve. It
// follows IAM's matching: actions case-insensitively, both with * and ?
// wildcards; a matching Deny statement wins. A resource of f that attr
// cannot resolve matches nothing.
func (f *FunctionPolicy) Allows(action, arn string, attr func(name, attr string) (string, bool)) bool {
	matches := func(s Statement) bool {
		if !slices.ContainsFunc(s.Actions, func(p string) bool { return MatchAction(p, action) }) {
			return false
		}
		for _, r := range s.Resources {
			if v, err := r.Resolve(attr); err == nil && MatchARN(v, arn) {
				return true
			}
		}
		return false
	}
	allowed := false
	for _, s := range f.Statements {
		if matches(s) {
			if s.Effect == "Deny" {
				return false
			}
			allowed = true
		}
	}
	return allowed
}

// Document returns f's statements as an IAM policy document, each
// resource resolved by attr (Resource.Resolve); statements whose reasons
// are all of a kind in skip are left out (the construct leaves X-Ray to
// its managed policy).
func (f *FunctionPolicy) Document(attr func(name, attr string) (string, bool), skip ...ReasonKind) (*policy.Document, error) {
	doc := &policy.Document{Version: policy.PolicyVersion}
	for _, s := range f.Statements {
		if !slices.ContainsFunc(s.Reasons, func(r Reason) bool { return !slices.Contains(skip, r.Kind) }) {
			continue
		}
		st := policy.Statement{Sid: s.Sid, Effect: s.Effect, Action: slices.Clone(s.Actions)}
		for _, r := range s.Resources {
			v, err := r.Resolve(attr)
			if err != nil {
				return nil, fmt.Errorf("function %s: %w", f.Function, err)
			}
			st.Resource = append(st.Resource, v)
		}
		doc.Statement = append(doc.Statement, st)
	}
	return doc, nil
}

// Policies are the policies of every function of an app.
type Policies struct {
	// Functions are the API's function first, then the others by name.
	Functions []FunctionPolicy `json:"functions"`
	// Undeclared are the scan's calls granted on "*", by call site and
	// action: what they target is nothing the app declares.
	Undeclared []UndeclaredGrant `json:"undeclared,omitempty"`
}

// Function returns the policy of the function named name (policy.APIFunction
// for the API's), or nil.
func (p *Policies) Function(name string) *FunctionPolicy {
	for i := range p.Functions {
		if p.Functions[i].Function == name {
			return &p.Functions[i]
		}
	}
	return nil
}

// MatchAction reports whether the IAM action pattern (with * and ?
// wildcards) matches action, case-insensitively, as IAM compares actions.
func MatchAction(pattern, action string) bool {
	return wildcard(strings.ToLower(pattern), strings.ToLower(action))
}

// MatchARN reports whether the resource pattern (with * and ? wildcards)
// matches arn, case-sensitively, as IAM compares resources.
func MatchARN(pattern, arn string) bool { return wildcard(pattern, arn) }

// wildcard matches s against p, where * matches any run of characters and
// ? any one character.
func wildcard(p, s string) bool {
	// Iterative matching with backtracking to the last star.
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
