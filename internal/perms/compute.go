package perms

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/policy"
)

// Input is what Compute needs.
type Input struct {
	// Manifest is the app's route manifest: its routes, functions,
	// declared resources and accesses (Grants on the app, the routes and
	// the functions).
	Manifest *manifest.Manifest
	// Calls are the AWS calls the policy scan found (policy.Report.Calls),
	// each attributed to the functions reaching it (policy.Call.Functions);
	// nil when the policy is not generated from the source.
	Calls []policy.Call
	// HandWritten is a hand-written policy (.framework/policy.json with
	// no_autogen_policy, or the construct's AppProps.Policy): every
	// function gets its statements, and Calls are not used. Nil for none.
	HandWritten *policy.Document
	// XRay is true when the stage turns X-Ray tracing on.
	XRay bool
}

// XRayActions are what a traced function needs to send its traces: those
// of the managed policy AWSXRayDaemonWriteAccess.
var XRayActions = []string{"xray:GetSamplingRules", "xray:GetSamplingStatisticSummaries", "xray:GetSamplingTargets", "xray:PutTelemetryRecords", "xray:PutTraceSegments"}

// grantSpec is what one access on one kind of resource grants: the
// actions, on the resource's ARN followed by each suffix. The actions are
// those of the CDK grant methods of the same name (Table.grantReadData,
// Bucket.grantRead, Queue.grantSendMessages, ...), which the construct
// used to call.
type grantSpec struct {
	actions  []string
	suffixes []string
}

var (
	tableRead  = []string{"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DescribeTable", "dynamodb:GetItem", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:Query", "dynamodb:Scan"}
	tableWrite = []string{"dynamodb:BatchWriteItem", "dynamodb:DeleteItem", "dynamodb:DescribeTable", "dynamodb:PutItem", "dynamodb:UpdateItem"}
	bucketRead = []string{"s3:GetBucket*", "s3:GetObject*", "s3:List*"}
	bucketWrt  = []string{"s3:Abort*", "s3:DeleteObject*", "s3:PutObject", "s3:PutObjectLegalHold", "s3:PutObjectRetention", "s3:PutObjectTagging", "s3:PutObjectVersionTagging"}
)

// grants maps each kind and access to what it grants.
var grants = map[manifest.ResourceKind]map[manifest.Access]grantSpec{
	manifest.ResourceTable: {
		manifest.AccessRead:      {tableRead, []string{"", "/index/*"}},
		manifest.AccessWrite:     {tableWrite, []string{"", "/index/*"}},
		manifest.AccessReadWrite: {union(tableRead, tableWrite), []string{"", "/index/*"}},
		// Exactly the calls of the idempotency records (framework/resource).
		manifest.AccessIdempotency: {[]string{"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem"}, []string{""}},
	},
	manifest.ResourceQueue: {
		manifest.AccessSend:    {[]string{"sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:SendMessage"}, []string{""}},
		manifest.AccessConsume: {[]string{"sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl", "sqs:ReceiveMessage"}, []string{""}},
		manifest.AccessRedrive: {union(redriveDLQActions, redriveQueueActions), []string{""}}, // two statements: see declareRedrive
	},
	manifest.ResourceTopic: {
		manifest.AccessPublish: {[]string{"sns:Publish"}, []string{""}},
	},
	manifest.ResourceBucket: {
		manifest.AccessRead:      {bucketRead, []string{"", "/*"}},
		manifest.AccessWrite:     {bucketWrt, []string{"", "/*"}},
		manifest.AccessReadWrite: {union(bucketRead, bucketWrt), []string{"", "/*"}},
	},
	manifest.ResourceSecret: {
		manifest.AccessRead: {[]string{"secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"}, []string{""}},
	},
	manifest.ResourceParameter: {
		manifest.AccessRead: {[]string{"ssm:DescribeParameters", "ssm:GetParameter", "ssm:GetParameterHistory", "ssm:GetParameters"}, []string{""}},
	},
}

func union(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// AccessActions returns the IAM actions access grants on a resource of
// kind (with wildcards, as CDK's grants write them), and the suffixes of
// the resource's ARN they apply to; nil for an access the kind does not
// have.
func AccessActions(kind manifest.ResourceKind, access manifest.Access) (actions, suffixes []string) {
	g, ok := grants[kind][access]
	if !ok {
		return nil, nil
	}
	return slices.Clone(g.actions), slices.Clone(g.suffixes)
}

// Covers reports whether access on a resource of kind grants action.
func Covers(kind manifest.ResourceKind, access manifest.Access, action string) bool {
	return slices.ContainsFunc(grants[kind][access].actions, func(p string) bool { return MatchAction(p, action) })
}

// LeastAccess returns the narrowest access on a resource of kind that
// grants action ("" when none does): read before write before read_write.
func LeastAccess(kind manifest.ResourceKind, action string) manifest.Access {
	for _, a := range manifest.ResourceKinds[kind].Accesses {
		if Covers(kind, a, action) {
			return a
		}
	}
	return ""
}

// AllowHint is the Go statement that declares access for handler on the
// declared resource r, with its handle named after the resource:
// `todos.Allow(resource.Write, "add")`, `adminToken.Allow("bearer")`.
func AllowHint(r *manifest.Resource, access manifest.Access, handler string) string {
	switch r.Kind {
	case manifest.ResourceTopic, manifest.ResourceSecret, manifest.ResourceParameter:
		return fmt.Sprintf("%s.Allow(%q)", r.Name, handler)
	}
	return fmt.Sprintf("%s.Allow(resource.%s, %q)", r.Name, accessName(access), handler)
}

// accessName is access as the resource package names it.
func accessName(a manifest.Access) string {
	switch a {
	case manifest.AccessReadWrite:
		return "ReadWrite"
	case "":
		return "?"
	}
	return strings.ToUpper(string(a[:1])) + string(a[1:])
}

// CeilingError is a call, found in a function's code, that its
// declarations do not allow on the declared resource it targets: a
// declaration is the ceiling of what the function may do with the
// resource, so the function would be refused deployed.
type CeilingError struct {
	// Function is the function (policy.APIFunction for the API's).
	Function string
	// Handler is the handler to name in the Allow: the route handler
	// reaching the call when known, else Function ("HANDLER" for the API's
	// function when no route is known).
	Handler string
	// Pos is the call's "file:line".
	Pos string
	// Call is the operation ("s3.PutObject", "resource.Secret.Value").
	Call string
	// Action is the IAM action it needs.
	Action string
	// Resource is the declared resource it targets; Kind its kind. When
	// the call's target is not known and the app declares several of the
	// kind, Resource is empty.
	Resource string
	Kind     manifest.ResourceKind
	// DeadLetter: the call targets Resource's dead-letter queue.
	DeadLetter bool
	// Has are the accesses the function has on Resource (empty: none).
	Has []manifest.Access
	// Hint is the Allow to add.
	Hint string
	// Unplaced: the scan could not tell which functions reach the call
	// (policy.UnknownFunction), so it may run in this one.
	Unplaced bool
}

// Error names the call site, the handler, the resource and the Allow to
// add.
func (e *CeilingError) Error() string {
	who := fmt.Sprintf("handler %q", e.Handler)
	if e.Function == policy.APIFunction && e.Handler == "HANDLER" {
		who = "a route of the API's function"
	}
	if e.Unplaced {
		// The scan cannot tell who runs the code: every function may.
		who = "code the policy scan cannot place (a function value it cannot follow, or code no registration reaches), which may run in " + who + ","
	}
	res := fmt.Sprintf("%s %q", e.Kind, e.Resource)
	if e.Resource == "" {
		res = "a declared " + string(e.Kind)
	}
	if e.DeadLetter {
		res = "the dead-letter queue of " + res
	}
	has := "but the handler has no access to it"
	if len(e.Has) > 0 {
		var hs []string
		for _, a := range e.Has {
			hs = append(hs, string(a))
		}
		has = "beyond the declared " + strings.Join(hs, ", ")
	}
	return fmt.Sprintf("%s: %s calls %s (%s) on %s, %s; a declaration is the ceiling, so it would be refused deployed: add %s, or remove the call",
		e.Pos, who, e.Call, e.Action, res, has, e.Hint)
}

// fnState is one function's policy while Compute builds it.
type fnState struct {
	pol    FunctionPolicy
	routes map[string]bool
	// access holds the declared accesses by resource name, each with its
	// statement index.
	access map[string]map[manifest.Access]int
	// scan holds the "*" statements of the scan by IAM prefix.
	scan map[string]int
	// routeAccess holds, for the API's function, each route handler's
	// accesses by resource name (its own and the app's): a call reached
	// from one route is held to that route's declarations.
	routeAccess map[string]map[string][]manifest.Access
	// wideGrants are the scan's actions granted on "*" (undeclared).
	wideGrants []UndeclaredGrant
}

// Compute returns each function's policy, and every call that breaks a
// declaration's ceiling as a *CeilingError (joined with errors.Join, the
// policies still returned).
func Compute(in Input) (*Policies, error) {
	m := in.Manifest
	if m == nil {
		m = &manifest.Manifest{}
	}
	var fns []*fnState
	api := &fnState{pol: FunctionPolicy{Function: policy.APIFunction, Kind: manifest.KindHTTP}, routes: map[string]bool{}}
	for _, r := range m.Routes {
		if !api.routes[r.Handler] {
			api.routes[r.Handler] = true
			api.pol.Handlers = append(api.pol.Handlers, r.Handler)
		}
	}
	slices.Sort(api.pol.Handlers)
	fns = append(fns, api)
	others := slices.Clone(m.Functions)
	slices.SortFunc(others, func(a, b manifest.Function) int { return cmp.Compare(a.Name, b.Name) })
	for _, f := range others {
		fns = append(fns, &fnState{pol: FunctionPolicy{Function: f.Name, Kind: f.Kind}})
	}
	byName := map[string]*fnState{}
	for _, f := range fns {
		f.access = map[string]map[manifest.Access]int{}
		f.scan = map[string]int{}
		byName[f.pol.Function] = f
		// Its own log group only (the group, which Lambda creates on the
		// first invocation unless the stack owns it, and its streams),
		// not every function's.
		group := LogGroupRef(f.pol.Function)
		f.add(Statement{Sid: "AllowLogging", Actions: slices.Clone(policy.LoggingActions), Resources: []Resource{{Ref: group}, {Ref: group, Suffix: ":*"}},
			Reasons: []Reason{{Kind: ReasonLogging, Detail: "its own log group in CloudWatch Logs"}}})
	}

	// Declarations, by resource and access, each once.
	type decl struct {
		fn     *fnState
		grant  manifest.Grant
		detail string
	}
	var decls []decl
	for _, g := range m.Grants {
		for _, f := range fns {
			decls = append(decls, decl{f, g, "every function"})
		}
	}
	api.routeAccess = map[string]map[string][]manifest.Access{}
	for _, r := range m.Routes {
		ra := api.routeAccess[r.Handler]
		if ra == nil {
			ra = map[string][]manifest.Access{}
			api.routeAccess[r.Handler] = ra
		}
		for _, g := range slices.Concat(r.Grants, m.Grants) {
			if d := m.Resource(g.Resource); d != nil {
				ra[d.Name] = append(ra[d.Name], g.Access)
			}
		}
		for _, g := range r.Grants {
			decls = append(decls, decl{api, g, fmt.Sprintf("route handler %q", r.Handler)})
		}
	}
	for _, f := range m.Functions {
		for _, g := range f.Grants {
			decls = append(decls, decl{byName[f.Name], g, fmt.Sprintf("handler %q", f.Name)})
		}
	}
	slices.SortStableFunc(decls, func(a, b decl) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.grant.Resource), strings.ToLower(b.grant.Resource)), cmp.Compare(a.grant.Access, b.grant.Access))
	})
	for _, d := range decls {
		r := m.Resource(d.grant.Resource)
		if r == nil {
			continue // manifest.Validate reports it
		}
		d.fn.declare(r, d.grant.Access, Reason{Kind: ReasonDeclaration, Resource: r.Name, Access: d.grant.Access, Detail: d.detail})
	}

	// Triggers.
	for _, f := range others {
		st := byName[f.Name]
		spec, _ := manifest.SpecOf(f.Kind)
		if r := m.Resource(f.SourceResource); r != nil {
			st.use(r.Name)
			switch {
			case r.Kind == manifest.ResourceQueue && spec.Trigger == manifest.TriggerMapping:
				st.declare(r, manifest.AccessConsume, Reason{Kind: ReasonTrigger, Resource: r.Name, Access: manifest.AccessConsume, Detail: "the queue feeds the handler"})
			case r.Kind == manifest.ResourceTable && spec.Trigger == manifest.TriggerMapping:
				st.add(Statement{Sid: "Trigger", Actions: sorted(spec.ReadActions), Resources: []Resource{{Ref: r.Name, Attr: manifest.AttrStreamARN}},
					Reasons: []Reason{{Kind: ReasonTrigger, Resource: r.Name, Detail: "the table's stream feeds the handler"}}})
			}
			continue
		}
		if spec.Trigger == manifest.TriggerMapping && f.Source != "" {
			arn := f.Source
			if !strings.HasPrefix(arn, "arn:") {
				arn = "arn:*:" + spec.Service + ":*:*:" + spec.ARNResource + f.Source
			}
			st.add(Statement{Sid: "Trigger", Actions: sorted(spec.ReadActions), Resources: []Resource{{ARN: arn}},
				Reasons: []Reason{{Kind: ReasonTrigger, Detail: fmt.Sprintf("the %s %s feeds the handler", spec.Label, f.Source)}}})
		}
	}

	// The scan's calls, or the hand-written policy.
	var errs []error
	if in.HandWritten != nil {
		for _, f := range fns {
			for i, s := range in.HandWritten.Statement {
				if s.Sid == "AllowLogging" && slices.Equal(s.Resource, []string{policy.LoggingResource}) {
					// gen-policy's logging statement (every function's
					// log group): each function has its own instead.
					continue
				}
				st := Statement{Sid: cmp.Or(s.Sid, fmt.Sprintf("Policy%d", i+1)), Effect: s.Effect, Actions: slices.Clone(s.Action),
					Reasons: []Reason{{Kind: ReasonPolicy, Detail: "the hand-written policy, which every function gets"}}}
				for _, r := range s.Resource {
					st.Resources = append(st.Resources, handWrittenResource(r))
				}
				f.add(st)
			}
		}
	} else {
		errs = scanCalls(m, in.Calls, fns, byName, api)
	}

	if in.XRay {
		for _, f := range fns {
			f.add(Statement{Sid: "XRay", Actions: slices.Clone(XRayActions), Resources: []Resource{{ARN: "*"}},
				Reasons: []Reason{{Kind: ReasonXRay, Detail: "tracing is on (managed policy AWSXRayDaemonWriteAccess)"}}})
		}
	}
	out := &Policies{}
	for _, f := range fns {
		slices.Sort(f.pol.Resources)
		f.pol.Resources = slices.Compact(f.pol.Resources)
		out.Functions = append(out.Functions, f.pol)
	}
	out.Undeclared = undeclaredGrants(fns)
	return out, errors.Join(errs...)
}

// handWrittenResource is a hand-written resource string: a declared
// resource's reference with a suffix ("${resource:files}/*"), or a literal
// ARN, which may hold references Resolve replaces.
func handWrittenResource(s string) Resource {
	for _, name := range policy.ResourceRefs(&policy.Document{Statement: []policy.Statement{{Resource: []string{s}}}}) {
		if rest, ok := strings.CutPrefix(s, policy.ResourceRef(name)); ok && !strings.Contains(rest, "${") {
			return Resource{Ref: name, Suffix: rest}
		}
	}
	return Resource{ARN: s}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// add appends s, an Allow statement unless it says otherwise, and returns
// its index.
func (f *fnState) add(s Statement) int {
	s.Effect = cmp.Or(s.Effect, "Allow")
	f.pol.Statements = append(f.pol.Statements, s)
	return len(f.pol.Statements) - 1
}

// use records that f may use the declared resource name.
func (f *fnState) use(name string) { f.pol.Resources = append(f.pol.Resources, name) }

// declare gives f access on r, once, with reason why.
func (f *fnState) declare(r *manifest.Resource, access manifest.Access, why Reason) {
	f.use(r.Name)
	if f.access[r.Name] == nil {
		f.access[r.Name] = map[manifest.Access]int{}
	}
	if i, ok := f.access[r.Name][access]; ok {
		f.pol.Statements[i].Reasons = append(f.pol.Statements[i].Reasons, why)
		return
	}
	if r.Kind == manifest.ResourceQueue && access == manifest.AccessRedrive {
		f.access[r.Name][access] = f.declareRedrive(r, why)
		return
	}
	actions, suffixes := AccessActions(r.Kind, access)
	if actions == nil {
		return // manifest.Validate reports it
	}
	var res []Resource
	for _, s := range suffixes {
		res = append(res, Resource{Ref: r.Name, Suffix: s})
	}
	f.access[r.Name][access] = f.add(Statement{Sid: sid("Res", r.Name, string(access)), Actions: actions, Resources: res, Reasons: []Reason{why}})
}

// covering returns the statements of f's accesses on r that grant
// action; for a call reached from one route of the API's function
// (handler), those of that route's accesses.
func (f *fnState) covering(r *manifest.Resource, action, handler string) []int {
	var out []int
	ra, perRoute := f.routeAccess[handler]
	for a, i := range f.access[r.Name] {
		if perRoute && !slices.Contains(ra[r.Name], a) {
			continue
		}
		if Covers(r.Kind, a, action) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// has returns f's accesses on r (the route handler's, for a call reached
// from one route), sorted.
func (f *fnState) has(r *manifest.Resource, handler string) []manifest.Access {
	var out []manifest.Access
	if ra, ok := f.routeAccess[handler]; ok {
		out = slices.Clone(ra[r.Name])
	} else {
		for a := range f.access[r.Name] {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sid makes a statement id of letters and digits from parts.
func sid(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		for w := range strings.FieldsFuncSeq(p, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// shortPos is "file:line" of a "file:line:col" position.
func shortPos(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i >= 0 && strings.Count(pos, ":") >= 2 {
		return pos[:i]
	}
	return pos
}

// callName is how a reason names a call: "dynamodb.PutItem",
// "resource.Secret.Value".
func callName(c policy.Call) string {
	pkg := c.Package
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		pkg = pkg[i+1:]
	}
	return pkg + "." + c.Operation
}

// scanCalls adds the scan's calls to the functions reaching them, and
// returns the calls beyond a declaration as *CeilingError.
func scanCalls(m *manifest.Manifest, calls []policy.Call, fns []*fnState, byName map[string]*fnState, api *fnState) []error {
	// A service some handler reads from outside the app (its Source by
	// name or ARN): calls whose target is not known may target that.
	external := map[string]string{}
	for _, f := range m.Functions {
		if spec, ok := manifest.SpecOf(f.Kind); ok && f.Source != "" && f.SourceResource == "" {
			external[spec.Service] = f.Label()
		}
	}
	var errs []error
	seen := map[string]bool{}
	for _, c := range calls {
		for _, target := range reached(c, fns, byName, api) {
			f, handler := target.fn, target.handler
			for _, action := range c.Actions {
				why := Reason{Kind: ReasonScan, Pos: shortPos(c.Pos), Call: callName(c)}
				if action == policy.ManageConnections && m.WebSocket != nil {
					f.manageConnections(why)
					continue
				}
				prefix, _, _ := strings.Cut(action, ":")
				kind, _, unscoped, ok := policy.DeclaredKind(c, action)
				var candidates []*manifest.Resource
				if ok {
					for i := range m.Resources {
						if m.Resources[i].Kind == kind {
							candidates = append(candidates, &m.Resources[i])
						}
					}
				}
				var named *manifest.Resource
				if c.Target != nil && c.Target.Name != "" {
					named = m.Resource(c.Target.Name)
				}
				if c.Target != nil && c.Target.Name == "" && c.Target.Kind != "" && len(candidates) == 1 && string(candidates[0].Kind) == c.Target.Kind {
					named = candidates[0]
				}
				switch {
				case !ok || len(candidates) == 0:
					f.wide(prefix, action, why)
					continue
				case unscoped != "":
					why.Detail = unscoped
					f.wide(prefix, action, why)
					continue
				case named == nil && external[prefix] != "":
					why.Detail = fmt.Sprintf("the %s names a %s resource outside the app, so the call may target it", external[prefix], prefix)
					f.wide(prefix, action, why)
					continue
				}
				if named != nil && named.Kind == manifest.ResourceQueue && c.Target.DeadLetter {
					if e := f.deadLetterCall(named, action, handler, why); e != nil {
						e.Unplaced = target.unknown
						key := e.Function + "|" + e.Handler + "|" + e.Pos + "|" + e.Action + "|" + e.Resource + "|dlq"
						if !seen[key] {
							seen[key] = true
							errs = append(errs, e)
						}
					}
					continue
				}
				// A call on a declared resource: the declaration is the
				// ceiling, for each function and route reaching the call.
				// Code the scan could not place may run in any of them:
				// each is held to it (fail closed).
				targets := candidates
				if named != nil {
					targets = []*manifest.Resource{named}
				}
				var cover []int
				for _, r := range targets {
					cover = append(cover, f.covering(r, action, handler)...)
				}
				if len(cover) > 0 {
					for _, i := range cover {
						why.Resource = ""
						f.pol.Statements[i].Reasons = appendReason(f.pol.Statements[i].Reasons, why)
					}
					continue
				}
				e := &CeilingError{Function: f.pol.Function, Handler: handler, Pos: why.Pos, Call: why.Call, Action: action, Kind: kind, Unplaced: target.unknown}
				hintRes := &manifest.Resource{Name: strings.ToUpper(string(kind[:1])) + string(kind[1:]), Kind: kind}
				if len(targets) == 1 {
					e.Resource, e.Has, hintRes = targets[0].Name, f.has(targets[0], handler), targets[0]
				}
				access := LeastAccess(kind, action)
				if len(e.Has) > 0 && access != manifest.AccessReadWrite && slices.Contains(manifest.ResourceKinds[kind].Accesses, manifest.AccessReadWrite) &&
					!slices.Contains(e.Has, access) && slices.ContainsFunc(e.Has, func(a manifest.Access) bool { return a == manifest.AccessRead || a == manifest.AccessWrite }) {
					access = manifest.AccessReadWrite // Read + Write: say ReadWrite
				}
				e.Hint = AllowHint(hintRes, access, handler)
				key := e.Function + "|" + e.Handler + "|" + e.Pos + "|" + e.Action + "|" + e.Resource
				if !seen[key] {
					seen[key] = true
					errs = append(errs, e)
				}
			}
		}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(a.Error(), b.Error()) })
	return errs
}

// appendReason appends r unless reasons hold it.
func appendReason(reasons []Reason, r Reason) []Reason {
	if slices.Contains(reasons, r) {
		return reasons
	}
	return append(reasons, r)
}

// wide grants action on "*" for the scan, in one statement per IAM prefix.
func (f *fnState) wide(prefix, action string, why Reason) {
	i, ok := f.scan[prefix]
	if !ok {
		i = f.add(Statement{Sid: sid("Allow", prefix), Resources: []Resource{{ARN: "*"}}})
		f.scan[prefix] = i
	}
	s := &f.pol.Statements[i]
	if !slices.Contains(s.Actions, action) {
		s.Actions = append(s.Actions, action)
		slices.Sort(s.Actions)
	}
	s.Reasons = appendReason(s.Reasons, why)
	f.undeclared(action, why)
}

// reachedFn is a function a call is reached from, and the handler to name
// in an Allow: for the API's function, one route's handler (each route
// reaching the call is one reachedFn, held to its own declarations).
type reachedFn struct {
	fn      *fnState
	handler string
	// unknown: the scan could not place the call (policy.UnknownFunction).
	unknown bool
}

// reached returns the functions whose code reaches c (policy.Call.Functions),
// the API's function once per route reaching it. Where the scan cannot
// tell which routes reach the call (the API's function as a whole, code
// every function runs, code it could not place), every route may: each
// is held to its own declarations (fail closed).
func reached(c policy.Call, fns []*fnState, byName map[string]*fnState, api *fnState) []reachedFn {
	var out []reachedFn
	addAs := func(f *fnState, handler string, unknown bool) {
		for i := range out {
			if out[i].fn == f && out[i].handler == handler {
				out[i].unknown = out[i].unknown && unknown
				return
			}
		}
		out = append(out, reachedFn{f, handler, unknown})
	}
	// addFn adds f; the API's function with each of its routes.
	addFn := func(f *fnState, unknown bool) {
		if f != api {
			addAs(f, f.pol.Function, unknown)
			return
		}
		if len(api.pol.Handlers) == 0 {
			addAs(api, "HANDLER", unknown)
		}
		for _, h := range api.pol.Handlers {
			addAs(api, h, unknown)
		}
	}
	unknown := false
	all := len(c.Functions) == 0
	for _, name := range c.Functions {
		switch {
		case name == policy.EveryFunction:
			all = true
		case name == policy.UnknownFunction:
			unknown = true
		case name == policy.APIFunction:
			addFn(api, false)
		case strings.HasPrefix(name, policy.RoutePrefix):
			if h := strings.TrimPrefix(name, policy.RoutePrefix); api.routes[h] {
				addAs(api, h, false)
			} else {
				addFn(api, false) // a route the manifest does not name: any may be it
			}
		case strings.HasPrefix(name, policy.KindPrefix):
			kind := manifest.Kind(strings.TrimPrefix(name, policy.KindPrefix))
			for _, f := range fns {
				if kind == "all" || f.pol.Kind == kind {
					addFn(f, false)
				}
			}
		case byName[name] != nil:
			addFn(byName[name], false)
		default:
			all = true // a name the manifest does not have: be safe
		}
	}
	if all {
		for _, f := range fns {
			addFn(f, false)
		}
	}
	if unknown {
		for _, f := range fns {
			addFn(f, true)
		}
	}
	return out
}
