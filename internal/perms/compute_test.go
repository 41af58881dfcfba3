package perms

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
)

const sdk = "github.com/aws/aws-sdk-go-v2/service/"

// shortener is a link shortener's manifest: routes (one of them behind an
// app authorizer), a queue with its consumer, a topic with its subscriber,
// a bucket with an importer, a secret the authorizer reads.
func shortener() *manifest.Manifest {
	return &manifest.Manifest{Version: manifest.Version, App: "links",
		Routes: []manifest.Route{
			{Path: "/{code}", Methods: []string{"GET"}, Handler: "redirect", Grants: []manifest.Grant{{Resource: "links", Access: manifest.AccessRead}, {Resource: "clicks", Access: manifest.AccessSend}}},
			{Path: "/links", Methods: []string{"POST"}, Handler: "create", Grants: []manifest.Grant{{Resource: "links", Access: manifest.AccessWrite}}},
		},
		Functions: []manifest.Function{
			{Name: "count", Kind: manifest.KindSQS, SourceResource: "clicks", Grants: []manifest.Grant{{Resource: "links", Access: manifest.AccessReadWrite}, {Resource: "events", Access: manifest.AccessPublish}}},
			{Name: "bearer", Kind: manifest.KindAuthorizer, Grants: []manifest.Grant{{Resource: "adminToken", Access: manifest.AccessRead}}},
			{Name: "importCsv", Kind: manifest.KindS3, SourceResource: "imports", Events: []string{"s3:ObjectCreated:*"}, Grants: []manifest.Grant{{Resource: "imports", Access: manifest.AccessRead}}},
			{Name: "notify", Kind: manifest.KindSNS, SourceResource: "events"},
		},
		Resources: []manifest.Resource{
			{Name: "adminToken", Kind: manifest.ResourceSecret},
			{Name: "clicks", Kind: manifest.ResourceQueue},
			{Name: "events", Kind: manifest.ResourceTopic},
			{Name: "imports", Kind: manifest.ResourceBucket},
			{Name: "links", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "code", Type: "S"}},
		},
	}
}

// granted lists "action on resource" for every Allow of f, sorted.
func granted(f *FunctionPolicy) []string {
	var out []string
	for _, s := range f.Statements {
		for _, a := range s.Actions {
			for _, r := range s.Resources {
				out = append(out, a+" on "+r.String())
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestComputeOneRolePerFunction(t *testing.T) {
	m := shortener()
	calls := []policy.Call{
		{Pos: "main.go:40:3", Package: sdk + "dynamodb", Operation: "GetItem", Actions: []string{"dynamodb:GetItem"}, Functions: []string{policy.RoutePrefix + "redirect"}, Target: &policy.Target{Kind: "table", Name: "links"}},
		{Pos: "main.go:41:3", Package: sdk + "sqs", Operation: "SendMessage", Actions: []string{"sqs:SendMessage"}, Functions: []string{policy.RoutePrefix + "redirect"}},
		{Pos: "main.go:50:3", Package: policy.HandlePackage, Operation: "Secret.Value", Via: "handle", Actions: []string{"secretsmanager:GetSecretValue"}, Functions: []string{"bearer"}, Target: &policy.Target{Kind: "secret", Name: "adminToken"}},
		{Pos: "main.go:60:3", Package: sdk + "sns", Operation: "Publish", Actions: []string{"sns:Publish"}, Functions: []string{"count"}},
		{Pos: "main.go:70:3", Package: sdk + "rekognition", Operation: "DetectLabels", Actions: []string{"rekognition:DetectLabels"}, Functions: []string{"importCsv"}},
	}
	p, err := Compute(Input{Manifest: m, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range p.Functions {
		names = append(names, f.Function)
	}
	if want := []string{"api", "bearer", "count", "importCsv", "notify"}; !slices.Equal(names, want) {
		t.Fatalf("functions %v, want %v", names, want)
	}
	const log = "logs:PutLogEvents on arn:*:logs:*:*:log-group:/aws/lambda/${function:FN}:*"
	for _, tc := range []struct {
		fn        string
		has, lack []string
		resources []string
	}{
		{"api", []string{"dynamodb:GetItem on ${resource:links}", "dynamodb:PutItem on ${resource:links}", "sqs:SendMessage on ${resource:clicks}", log},
			[]string{"secretsmanager:GetSecretValue on ${resource:adminToken}", "sns:Publish on ${resource:events}", "rekognition:DetectLabels on *"}, []string{"clicks", "links"}},
		{"bearer", []string{"secretsmanager:GetSecretValue on ${resource:adminToken}", log}, []string{"dynamodb:GetItem on ${resource:links}", "sqs:SendMessage on ${resource:clicks}"}, []string{"adminToken"}},
		{"count", []string{"sqs:ReceiveMessage on ${resource:clicks}", "sns:Publish on ${resource:events}", "dynamodb:UpdateItem on ${resource:links}"},
			[]string{"sqs:SendMessage on ${resource:clicks}", "secretsmanager:GetSecretValue on ${resource:adminToken}"}, []string{"clicks", "events", "links"}},
		{"importCsv", []string{"s3:GetObject* on ${resource:imports}/*", "rekognition:DetectLabels on *"}, []string{"s3:PutObject on ${resource:imports}/*"}, []string{"imports"}},
		{"notify", []string{log}, []string{"sns:Publish on ${resource:events}"}, []string{"events"}},
	} {
		f := p.Function(tc.fn)
		g := granted(f)
		for i := range tc.has {
			tc.has[i] = strings.ReplaceAll(tc.has[i], "FN", tc.fn)
		}
		for _, h := range tc.has {
			if !slices.Contains(g, h) {
				t.Errorf("%s: lacks %s; has %v", tc.fn, h, g)
			}
		}
		for _, l := range tc.lack {
			if slices.Contains(g, l) {
				t.Errorf("%s: has %s, which it does not declare", tc.fn, l)
			}
		}
		if !slices.Equal(f.Resources, tc.resources) {
			t.Errorf("%s: resources %v, want %v", tc.fn, f.Resources, tc.resources)
		}
	}
	// A scanned call on a declared resource is a reason of the declaration.
	bearer := p.Function("bearer")
	var why []string
	for _, s := range bearer.Statements {
		for _, r := range s.Reasons {
			why = append(why, r.String())
		}
	}
	if !slices.Contains(why, "scan resource.Secret.Value at main.go:50") {
		t.Errorf("bearer's reasons %q lack the handle's call", why)
	}
	// Local enforcement's question.
	arn := func(name, attr string) (string, bool) {
		return "arn:aws:secretsmanager:us-east-1:1:secret:" + name + "-abc", true
	}
	if !bearer.Allows("secretsmanager:GetSecretValue", "arn:aws:secretsmanager:us-east-1:1:secret:adminToken-abc", arn) {
		t.Error("bearer may not read its secret")
	}
	if p.Function("api").Allows("secretsmanager:GetSecretValue", "arn:aws:secretsmanager:us-east-1:1:secret:adminToken-abc", arn) {
		t.Error("the API's function may read the authorizer's secret")
	}
}

func TestComputeCeiling(t *testing.T) {
	m := shortener()
	m.Functions[1].Grants = nil // bearer: no adminToken.Allow("bearer")
	calls := []policy.Call{
		{Pos: "importer.go:12:9", Package: sdk + "s3", Operation: "PutObject", Actions: []string{"s3:PutObject"}, Functions: []string{"importCsv"}, Target: &policy.Target{Kind: "bucket", Name: "imports"}},
		{Pos: "auth.go:8:20", Package: policy.HandlePackage, Operation: "Secret.Value", Via: "handle", Actions: []string{"secretsmanager:GetSecretValue"}, Functions: []string{"bearer"}, Target: &policy.Target{Kind: "secret"}},
		{Pos: "main.go:30:4", Package: sdk + "dynamodb", Operation: "DeleteItem", Actions: []string{"dynamodb:DeleteItem"}, Functions: []string{policy.RoutePrefix + "redirect"}},
	}
	p, err := Compute(Input{Manifest: m, Calls: calls})
	if p == nil || err == nil {
		t.Fatalf("Compute = %v, %v; want the policies and ceiling errors", p, err)
	}
	var ces []*CeilingError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *CeilingError
		if !errors.As(e, &ce) {
			t.Fatalf("error %v is no *CeilingError", e)
		}
		ces = append(ces, ce)
	}
	msg := err.Error()
	for _, want := range []string{
		`auth.go:8: handler "bearer" calls resource.Secret.Value (secretsmanager:GetSecretValue) on secret "adminToken", but the handler has no access to it`,
		`add adminToken.Allow("bearer")`,
		`importer.go:12: handler "importCsv" calls s3.PutObject (s3:PutObject) on bucket "imports", beyond the declared read`,
		`add imports.Allow(resource.ReadWrite, "importCsv")`,
		`main.go:30: handler "redirect" calls dynamodb.DeleteItem (dynamodb:DeleteItem) on table "links", beyond the declared read`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("errors lack %q:\n%s", want, msg)
		}
	}
	if len(ces) != 3 {
		t.Errorf("%d ceiling errors, want 3:\n%s", len(ces), msg)
	}
	// The ceiling holds: nothing beyond the declarations is granted.
	if g := granted(p.Function("importCsv")); slices.Contains(g, "s3:PutObject on ${resource:imports}/*") {
		t.Errorf("importCsv was granted PutObject: %v", g)
	}
}

func TestComputeUndeclaredKeepsScan(t *testing.T) {
	// No declared table: the scan's dynamodb calls keep "*"; code every
	// function runs (no Functions) counts for each.
	m := &manifest.Manifest{Version: manifest.Version, App: "x", Routes: []manifest.Route{{Path: "/", Methods: []string{"GET"}, Handler: "index"}},
		Functions: []manifest.Function{{Name: "tick", Kind: manifest.KindSchedule, Schedule: "rate(1 minute)"}}}
	calls := []policy.Call{{Pos: "main.go:3:1", Package: sdk + "dynamodb", Operation: "GetItem", Actions: []string{"dynamodb:GetItem"}}}
	p, err := Compute(Input{Manifest: m, Calls: calls, XRay: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Functions {
		g := granted(&f)
		if !slices.Contains(g, "dynamodb:GetItem on *") || !slices.Contains(g, "xray:PutTraceSegments on *") {
			t.Errorf("%s: %v, want dynamodb:GetItem and X-Ray on *", f.Function, g)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"s3:GetObject*", "s3:getobjectversion", true},
		{"s3:List*", "s3:ListBucket", true},
		{"s3:List*", "s3:GetObject", false},
		{"*", "sqs:SendMessage", true},
		{"sqs:Send?essage", "sqs:SendMessage", true},
	} {
		if got := MatchAction(tc.p, tc.s); got != tc.want {
			t.Errorf("MatchAction(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
	if !MatchARN("arn:aws:s3:::b/*", "arn:aws:s3:::b/k/x.csv") || MatchARN("arn:aws:s3:::b", "arn:aws:s3:::b2") {
		t.Error("MatchARN")
	}
}

// TestComputeUnplacedCalls: a call the scan could not place
// (policy.UnknownFunction) grants its undeclared service to every function
// and, on a declared resource, nothing beyond the declarations; as it may
// run in any function, every function and route whose declarations do not
// cover it is named (fail closed), each with its Allow.
func TestComputeUnplacedCalls(t *testing.T) {
	calls := []policy.Call{
		{Pos: "reg.go:3:1", Package: sdk + "s3", Operation: "PutObject", Actions: []string{"s3:PutObject"}, Functions: []string{policy.UnknownFunction}},
		{Pos: "reg.go:4:1", Package: sdk + "rekognition", Operation: "DetectLabels", Actions: []string{"rekognition:DetectLabels"}, Functions: []string{policy.UnknownFunction}},
	}
	p, err := Compute(Input{Manifest: shortener(), Calls: calls})
	if p == nil {
		t.Fatal("no policies")
	}
	for _, f := range p.Functions {
		g := granted(&f)
		if !slices.Contains(g, "rekognition:DetectLabels on *") || slices.Contains(g, "s3:PutObject on ${resource:imports}/*") {
			t.Errorf("%s: %v", f.Function, g)
		}
	}
	if got, want := ceilingHandlers(t, err), []string{"bearer", "count", "create", "importCsv", "notify", "redirect"}; !slices.Equal(got, want) {
		t.Errorf("unplaced PutObject: ceiling errors for %q, want %q:\n%v", got, want, err)
	}
	for _, want := range []string{
		`reg.go:3: code the policy scan cannot place`,
		`which may run in handler "create", calls s3.PutObject (s3:PutObject) on bucket "imports"`,
		`add imports.Allow(resource.Write, "create")`,
		`add imports.Allow(resource.ReadWrite, "importCsv")`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

// ceilingHandlers returns the handlers err's *CeilingErrors name, sorted;
// it fails the test on any other error.
func ceilingHandlers(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	var out []string
	for _, e := range errs {
		var ce *CeilingError
		if !errors.As(e, &ce) {
			t.Fatalf("error %v is no *CeilingError", e)
		}
		out = append(out, ce.Handler)
	}
	slices.Sort(out)
	return out
}

// TestComputeCeilingEveryRoute: a call reached from several routes of the
// API's function is held to each route's declarations, not to the first
// route's: every route beyond its own is named with the Allow it needs,
// and code of the API's function as a whole (middleware) is held to
// every route's.
func TestComputeCeilingEveryRoute(t *testing.T) {
	send := func(fns ...string) []policy.Call {
		return []policy.Call{{Pos: "shared.go:9:3", Package: sdk + "sqs", Operation: "SendMessage", Actions: []string{"sqs:SendMessage"},
			Functions: fns, Target: &policy.Target{Kind: "queue", Name: "clicks"}}}
	}
	for _, tc := range []struct {
		name  string
		calls []policy.Call
		want  []string
	}{
		// redirect may send to clicks, create may not.
		{"shared by an allowed route and one that is not", send(policy.RoutePrefix+"redirect", policy.RoutePrefix+"create"), []string{"create"}},
		{"the other way round", send(policy.RoutePrefix+"create", policy.RoutePrefix+"redirect"), []string{"create"}},
		{"from the API's function as a whole", send(policy.APIFunction), []string{"create"}},
		{"from a route and an event handler", send(policy.RoutePrefix+"redirect", "notify"), []string{"notify"}},
		{"allowed route alone", send(policy.RoutePrefix + "redirect"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compute(Input{Manifest: shortener(), Calls: tc.calls})
			if got := ceilingHandlers(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("ceiling errors for %q, want %q:\n%v", got, tc.want, err)
			}
			for _, h := range tc.want {
				want := `handler "` + h + `" calls sqs.SendMessage (sqs:SendMessage) on queue "clicks"`
				hint := `add clicks.Allow(resource.Send, "` + h + `")`
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), hint) {
					t.Errorf("errors lack %q and %q:\n%v", want, hint, err)
				}
			}
		})
	}

	// No route may: each is named.
	m := shortener()
	m.Routes[0].Grants = m.Routes[0].Grants[:1] // redirect: links only
	_, err := Compute(Input{Manifest: m, Calls: send(policy.RoutePrefix+"redirect", policy.RoutePrefix+"create")})
	if got, want := ceilingHandlers(t, err), []string{"create", "redirect"}; !slices.Equal(got, want) {
		t.Errorf("none allowed: ceiling errors for %q, want %q:\n%v", got, want, err)
	}
	for _, hint := range []string{`add clicks.Allow(resource.Send, "create")`, `add clicks.Allow(resource.Send, "redirect")`} {
		if err == nil || !strings.Contains(err.Error(), hint) {
			t.Errorf("none allowed: errors lack %q:\n%v", hint, err)
		}
	}
}

// TestComputeLoggingOwnGroup: each function may write its logs to its own
// log group only, not to every function's (/aws/lambda/*).
func TestComputeLoggingOwnGroup(t *testing.T) {
	p, err := Compute(Input{Manifest: shortener()})
	if err != nil {
		t.Fatal(err)
	}
	group := func(fn string) string {
		return "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/links-dev-" + fn
	}
	attr := func(name, a string) (string, bool) {
		fn, ok := LogGroupOf(name)
		return group(fn), ok && a == manifest.AttrARN
	}
	for _, f := range p.Functions {
		for _, other := range p.Functions {
			stream := group(other.Function) + ":log-stream:2026/01/01/[$LATEST]abc"
			for _, action := range []string{"logs:CreateLogStream", "logs:PutLogEvents"} {
				if got, want := f.Allows(action, stream, attr), f.Function == other.Function; got != want {
					t.Errorf("%s: %s on %s's log stream allowed %v, want %v", f.Function, action, other.Function, got, want)
				}
			}
			if got, want := f.Allows("logs:CreateLogGroup", group(other.Function), attr), f.Function == other.Function; got != want {
				t.Errorf("%s: logs:CreateLogGroup of %s's group allowed %v, want %v", f.Function, other.Function, got, want)
			}
		}
		if f.Allows("logs:PutLogEvents", "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/other:log-stream:x", attr) {
			t.Errorf("%s may write to another log group", f.Function)
		}
	}
}
