package policy

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"

	"github.com/framework-dev/framework/internal/wording"
)

// ResourceRef returns the placeholder that stands for the ARN of the
// declared resource named name in a policy document: "${resource:name}".
// The construct replaces it with the resource's ARN when it builds the
// role's policy, so a generated policy (and a hand-written
// .framework/policy.json) can name the app's resources, whose names
// CloudFormation generates.
func ResourceRef(name string) string { return "${resource:" + name + "}" }

// resourceRefRe matches a ResourceRef inside a Resource string.
var resourceRefRe = regexp.MustCompile(`\$\{resource:([A-Za-z][A-Za-z0-9]*)\}`)

// ResourceRefs returns the names of the declared resources that the
// document's statements name with ResourceRef, sorted and de-duplicated.
func ResourceRefs(d *Document) []string {
	var out []string
	if d == nil {
		return nil
	}
	for _, s := range d.Statement {
		for _, r := range s.Resource {
			for _, m := range resourceRefRe.FindAllStringSubmatch(r, -1) {
				out = append(out, m[1])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ReplaceResourceRefs returns r with every ResourceRef replaced by
// arn(name); an error names a reference arn does not know (it returns
// false).
func ReplaceResourceRefs(r string, arn func(name string) (string, bool)) (string, error) {
	var bad error
	out := resourceRefRe.ReplaceAllStringFunc(r, func(ref string) string {
		name := resourceRefRe.FindStringSubmatch(ref)[1]
		v, ok := arn(name)
		if !ok && bad == nil {
			bad = fmt.Errorf("the policy names %s, but the app declares no resource %q: declare it, or fix the name", ref, name)
		}
		return v
	})
	return out, bad
}

// scope says how the SDK calls of one service are narrowed to the app's
// declared resources of one kind.
type scope struct {
	// pkg is the SDK service package whose calls target the kind (calls
	// of other packages with the same IAM prefix, s3control's for s3,
	// keep "*").
	pkg  string
	kind manifest.ResourceKind
	// only, when not nil, are the actions that target the kind; else
	// every action but those in not.
	only, not []string
	// suffixes are appended to the resource's ARN ("" for the ARN itself).
	suffixes []string
}

// scopes are the services whose calls can target a declared resource, by
// IAM prefix.
var scopes = map[string]scope{
	"dynamodb": {pkg: "dynamodb", kind: manifest.ResourceTable, suffixes: []string{"", "/index/*"},
		not: []string{"dynamodb:ListTables", "dynamodb:DescribeLimits", "dynamodb:DescribeEndpoints", "dynamodb:ListBackups",
			"dynamodb:ListGlobalTables", "dynamodb:ListExports", "dynamodb:ListImports", "dynamodb:ListContributorInsights",
			"dynamodb:DescribeReservedCapacity", "dynamodb:DescribeReservedCapacityOfferings", "dynamodb:PurchaseReservedCapacityOfferings",
			"dynamodb:ListStreams"}},
	"sqs": {pkg: "sqs", kind: manifest.ResourceQueue, suffixes: []string{""}, not: []string{"sqs:ListQueues"}},
	"sns": {pkg: "sns", kind: manifest.ResourceTopic, suffixes: []string{""},
		only: []string{"sns:Publish", "sns:GetTopicAttributes", "sns:SetTopicAttributes", "sns:Subscribe", "sns:ListSubscriptionsByTopic",
			"sns:DeleteTopic", "sns:TagResource", "sns:UntagResource", "sns:ListTagsForResource", "sns:AddPermission", "sns:RemovePermission",
			"sns:GetDataProtectionPolicy", "sns:PutDataProtectionPolicy"}},
	"s3": {pkg: "s3", kind: manifest.ResourceBucket, suffixes: []string{"", "/*"},
		not: []string{"s3:ListAllMyBuckets", "s3:CreateBucket"}},
	"secretsmanager": {pkg: "secretsmanager", kind: manifest.ResourceSecret, suffixes: []string{""},
		not: []string{"secretsmanager:ListSecrets", "secretsmanager:GetRandomPassword", "secretsmanager:BatchGetSecretValue"}},
	"ssm": {pkg: "ssm", kind: manifest.ResourceParameter, suffixes: []string{""},
		only: []string{"ssm:GetParameter", "ssm:GetParameters", "ssm:GetParameterHistory", "ssm:PutParameter", "ssm:DeleteParameter",
			"ssm:DeleteParameters", "ssm:LabelParameterVersion", "ssm:UnlabelParameterVersion"}},
}

// Unscoped is an action of a service whose declared resources the policy
// is narrowed to, that keeps Resource "*" because what it targets is not
// known to be one of them.
type Unscoped struct {
	Action string
	// Why says why, for the user.
	Why string
}

// Narrow returns the policy for calls (as FromCalls makes it) with the
// actions of every service whose declared resources the app reaches
// granted on those resources only (ResourceRef, with the sub-resources
// the actions need: a table's indexes, a bucket's objects), and the
// actions that keep "*", saying why.
//
// The rule: a service's calls target the app's declared resources of its
// kind (dynamodb: tables, sqs: queues, sns: topics, s3: buckets,
// secretsmanager: secrets, ssm: parameters) when the app declares at
// least one of that kind and names none of that service by name or ARN
// (a handler's Source). Account-level actions (ListTables, ListQueues,
// ...), the calls of other packages with the same IAM prefix (s3control)
// and, for ssm and sns, the actions that target no parameter or topic keep
// "*". An app whose code reaches a resource it does not declare gives the
// role that access with a hand-written policy (`--no-autogen-policy`).
func Narrow(calls []Call, m *manifest.Manifest) (*Document, []Unscoped) {
	doc := FromCalls(calls)
	if m == nil || len(m.Resources) == 0 {
		return doc, nil
	}
	external := map[string]string{}
	for _, f := range m.Functions {
		if spec, ok := manifest.SpecOf(f.Kind); ok && f.Source != "" && f.SourceResource == "" {
			external[spec.Service] = f.Label()
		}
	}
	// The actions only other packages of a prefix need (s3control's).
	fromPkg := map[string]map[string]bool{}
	for _, c := range calls {
		svc := strings.TrimPrefix(c.Package, sdkServicePrefix)
		for _, a := range c.Actions {
			if c.Via == "handle" { // a resource handle's own call: the service's
				prefix, _, _ := strings.Cut(a, ":")
				svc = scopes[prefix].pkg
			}
			if fromPkg[a] == nil {
				fromPkg[a] = map[string]bool{}
			}
			fromPkg[a][svc] = true
		}
	}
	var unscoped []Unscoped
	out := &Document{Version: doc.Version}
	for _, s := range doc.Statement {
		var prefix string
		if len(s.Action) > 0 && s.Resource[0] == "*" {
			prefix, _, _ = strings.Cut(s.Action[0], ":")
		}
		sc, ok := scopes[prefix]
		if !ok {
			out.Statement = append(out.Statement, s)
			continue
		}
		var targets []string
		for _, r := range m.Resources {
			if r.Kind == sc.kind {
				targets = append(targets, r.Name)
			}
		}
		sort.Strings(targets)
		if len(targets) == 0 {
			out.Statement = append(out.Statement, s)
			continue
		}
		if who, ok := external[prefix]; ok {
			for _, a := range s.Action {
				unscoped = append(unscoped, Unscoped{a, fmt.Sprintf("the %s names %s resource outside the app, so the calls may target it", who, wording.A(prefix))})
			}
			out.Statement = append(out.Statement, s)
			continue
		}
		var scoped, wide []string
		for _, a := range s.Action {
			switch {
			case !fromPkg[a][sc.pkg]:
				wide = append(wide, a)
				unscoped = append(unscoped, Unscoped{a, "called through another SDK package than service/" + sc.pkg})
			case sc.only != nil && !slices.Contains(sc.only, a), slices.Contains(sc.not, a):
				wide = append(wide, a)
				unscoped = append(unscoped, Unscoped{a, fmt.Sprintf("targets no %s: the account, or another kind of resource", sc.kind)})
			default:
				scoped = append(scoped, a)
			}
		}
		if len(scoped) > 0 {
			var res []string
			for _, t := range targets {
				for _, suf := range sc.suffixes {
					res = append(res, ResourceRef(t)+suf)
				}
			}
			out.Statement = append(out.Statement, Statement{Sid: s.Sid + "Declared", Effect: "Allow", Action: scoped, Resource: res})
		}
		if len(wide) > 0 {
			out.Statement = append(out.Statement, Statement{Sid: s.Sid, Effect: "Allow", Action: wide, Resource: []string{"*"}})
		}
	}
	return out, unscoped
}

// DeclaredKind says whether action, needed by call c, targets a declared
// resource of some kind when the app declares resources of it: kind is the
// resource kind of the action's service (dynamodb: table, sqs: queue, sns:
// topic, s3: bucket, secretsmanager: secret, ssm: parameter) and
// suffixes the sub-resources the service's actions need besides the
// resource's ARN; ok is false for any other service. why is not empty when
// the action keeps Resource "*" all the same: it targets the account or
// another kind of resource (ListTables), or c is made through another SDK
// package with the same IAM prefix (s3control). A resource handle's own
// call (Via "handle") counts as the service's package.
func DeclaredKind(c Call, action string) (kind manifest.ResourceKind, suffixes []string, why string, ok bool) {
	prefix, _, _ := strings.Cut(action, ":")
	sc, ok := scopes[prefix]
	if !ok {
		return "", nil, "", false
	}
	switch {
	case c.Via != "handle" && strings.TrimPrefix(c.Package, sdkServicePrefix) != sc.pkg:
		why = "called through another SDK package than service/" + sc.pkg
	case sc.only != nil && !slices.Contains(sc.only, action), slices.Contains(sc.not, action):
		why = fmt.Sprintf("targets no %s: the account, or another kind of resource", sc.kind)
	}
	return sc.kind, slices.Clone(sc.suffixes), why, true
}
