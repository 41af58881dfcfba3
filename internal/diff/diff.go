// Package diff compares two CloudFormation templates of a stage stack, the
// deployed one and the synthesized one: resources added, removed and
// modified with their property-level changes, a route-level view of each
// REST API whose OpenAPI definition is its Body property (`+ POST
// /users/{name}`, `~ GET /cors: cors changed`) and of each HTTP API, the
// routes of the WebSocket API (`+ $disconnect → disconnect`), and the IAM policy
// statements added and removed, listed on their own. Replacement
// information comes from a CloudFormation change set and is merged in with
// SetReplacement.
package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Actions of a change.
const (
	Add    = "add"
	Remove = "remove"
	Modify = "modify"
)

// Report is the difference between a deployed and a synthesized template.
type Report struct {
	// Stack is the stack name.
	Stack string `json:"stack"`
	// Deployed is false when the stack does not exist: everything is added.
	Deployed bool `json:"deployed"`
	// Resources are the resource changes, sorted by logical id.
	Resources []ResourceChange `json:"resources"`
	// Routes are the route changes of the REST APIs, sorted by path and method.
	Routes []RouteChange `json:"routes"`
	// WebSocketRoutes are the route changes of the WebSocket API, by
	// route key.
	WebSocketRoutes []WebSocketRouteChange `json:"websocket_routes"`
	// IAM are the policy statements added and removed.
	IAM []StatementChange `json:"iam"`
	// Outputs are the stack outputs added, removed or changed.
	Outputs []OutputChange `json:"outputs,omitempty"`
	// ReplacementUnknown says why replacement information is missing, when it is.
	ReplacementUnknown string `json:"replacement_unknown,omitempty"`
	// Action is what a deploy would do with the stack ("create", "update",
	// "no-op", "recreate" or "refuse"), and ActionReason why when it
	// recreates or refuses; both are filled in by the deploy planner and
	// empty in a report of Templates.
	Action       string `json:"action,omitempty"`
	ActionReason string `json:"action_reason,omitempty"`
	// Functions are the event handlers' and plain functions' Lambda
	// functions and triggers added and removed.
	Functions []FunctionChange `json:"functions,omitempty"`
	// Permissions are the changes of what each of the app's functions may
	// do, by resource (its role's statements; IAM holds them all).
	Permissions []PermissionChange `json:"permissions,omitempty"`
	// Data are the resources holding data that the change deletes or
	// replaces (see DataChange); SetReplacement completes them with
	// CloudFormation's answers.
	Data []DataChange `json:"data,omitempty"`
	// IndexProblems are the changes of tables' global secondary indexes
	// that CloudFormation refuses in one update, each saying what to do.
	IndexProblems []string `json:"index_problems,omitempty"`
	// Color makes WriteText show the data warnings in red (for a terminal).
	Color bool `json:"-"`

	// templates are kept for SetReplacement's data changes.
	old, new *template
}

// ResourceChange is one resource added, removed or modified.
type ResourceChange struct {
	Action    string `json:"action"`
	LogicalID string `json:"logical_id"`
	Type      string `json:"type"`
	// Replacement is CloudFormation's answer for a modified resource:
	// "True" (replaced), "Conditional" (may be), "False", or "" when unknown.
	Replacement string           `json:"replacement,omitempty"`
	Properties  []PropertyChange `json:"properties,omitempty"`
}

// PropertyChange is one changed property value, by dotted path
// ("Environment.Variables.TABLE", "Policies[0].PolicyDocument").
type PropertyChange struct {
	Path string `json:"path"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
	// Note replaces Old and New where the values are shown elsewhere (a
	// REST API's routes).
	Note string `json:"note,omitempty"`
}

// RouteChange is a route (path and method) of a REST API's OpenAPI body
// added, removed or modified.
type RouteChange struct {
	Action string `json:"action"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// Changes name what changed in a modified route: "cors", "integration",
	// "authorization", "api key", "parameters", "responses", ...
	Changes []string `json:"changes,omitempty"`
	// API is the logical id of the REST API.
	API string `json:"api"`
}

// StatementChange is an IAM policy statement added or removed.
type StatementChange struct {
	Action string `json:"action"`
	// Resource is the logical id of the role or policy holding it.
	Resource  string          `json:"resource"`
	Statement json.RawMessage `json:"statement"`
}

// OutputChange is a stack output added, removed or changed.
type OutputChange struct {
	Action string `json:"action"`
	Name   string `json:"name"`
}

// Empty reports whether there is no difference.
func (r *Report) Empty() bool {
	return len(r.Resources) == 0 && len(r.Routes) == 0 && len(r.WebSocketRoutes) == 0 && len(r.IAM) == 0 && len(r.Outputs) == 0
}

type template struct {
	Resources map[string]resource `json:"Resources"`
	Outputs   map[string]any      `json:"Outputs"`
}

// ofType yields the logical id and the resource of each of t's resources
// of type typ.
func (t *template) ofType(typ string) iter.Seq2[string, resource] {
	return func(yield func(string, resource) bool) {
		for id, r := range t.Resources {
			if r.Type == typ && !yield(id, r) {
				return
			}
		}
	}
}

type resource struct {
	Type       string         `json:"Type"`
	Properties map[string]any `json:"Properties"`
	DependsOn  any            `json:"DependsOn"`
	Condition  any            `json:"Condition"`
	// DeletionPolicy and UpdateReplacePolicy say whether CloudFormation
	// keeps the resource when it leaves the stack or is replaced.
	DeletionPolicy      string `json:"DeletionPolicy"`
	UpdateReplacePolicy string `json:"UpdateReplacePolicy"`
}

func parse(b []byte, what string) (*template, error) {
	t := &template{}
	if len(bytes.TrimSpace(b)) == 0 {
		return t, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(t); err != nil {
		return nil, fmt.Errorf("parse the %s template: %w", what, err)
	}
	return t, nil
}

// parseBoth parses the deployed and the synthesized template.
func parseBoth(deployed, synthesized []byte) (o, n *template, err error) {
	if o, err = parse(deployed, "deployed"); err != nil {
		return nil, nil, err
	}
	if n, err = parse(synthesized, "synthesized"); err != nil {
		return nil, nil, err
	}
	return o, n, nil
}

// Templates compares the deployed template old (nil when the stack is not
// deployed) with the synthesized template new.
func Templates(stack string, old, new []byte) (*Report, error) {
	o, n, err := parseBoth(old, new)
	if err != nil {
		return nil, err
	}
	r := &Report{Stack: stack, Deployed: old != nil, Resources: []ResourceChange{}, Routes: []RouteChange{}, WebSocketRoutes: []WebSocketRouteChange{}, IAM: []StatementChange{}}
	for _, id := range keys(n.Resources) {
		nr := n.Resources[id]
		or, ok := o.Resources[id]
		switch {
		case !ok:
			r.Resources = append(r.Resources, ResourceChange{Action: Add, LogicalID: id, Type: nr.Type})
		case or.Type != nr.Type:
			r.Resources = append(r.Resources, ResourceChange{Action: Modify, LogicalID: id, Type: nr.Type, Replacement: "True",
				Properties: []PropertyChange{{Path: "Type", Old: or.Type, New: nr.Type}}})
		default:
			var props []PropertyChange
			compare(nr.Type, "", or.Properties, nr.Properties, &props)
			if !equal(or.DependsOn, nr.DependsOn) {
				props = append(props, PropertyChange{Path: "DependsOn", Old: or.DependsOn, New: nr.DependsOn})
			}
			if !equal(or.Condition, nr.Condition) {
				props = append(props, PropertyChange{Path: "Condition", Old: or.Condition, New: nr.Condition})
			}
			if len(props) > 0 {
				r.Resources = append(r.Resources, ResourceChange{Action: Modify, LogicalID: id, Type: nr.Type, Properties: props})
			}
		}
	}
	for _, id := range keys(o.Resources) {
		if _, ok := n.Resources[id]; !ok {
			r.Resources = append(r.Resources, ResourceChange{Action: Remove, LogicalID: id, Type: o.Resources[id].Type})
		}
	}
	slices.SortStableFunc(r.Resources, func(a, b ResourceChange) int { return strings.Compare(a.LogicalID, b.LogicalID) })
	r.Data = dataChanges(o, n, r.Resources)
	r.IndexProblems = indexProblems(o, n)

	r.old, r.new = o, n
	r.Routes = routeChanges(o, n)
	r.WebSocketRoutes = webSocketRouteChanges(o, n)
	r.IAM = statementChanges(o, n)
	r.Permissions = permissionChanges(o, n)
	r.Functions = functionChanges(o, n)
	for _, k := range keys(n.Outputs) {
		if ov, ok := o.Outputs[k]; !ok {
			r.Outputs = append(r.Outputs, OutputChange{Action: Add, Name: k})
		} else if !equal(ov, n.Outputs[k]) {
			r.Outputs = append(r.Outputs, OutputChange{Action: Modify, Name: k})
		}
	}
	for _, k := range keys(o.Outputs) {
		if _, ok := n.Outputs[k]; !ok {
			r.Outputs = append(r.Outputs, OutputChange{Action: Remove, Name: k})
		}
	}
	return r, nil
}

// SetReplacement records CloudFormation's replacement answers ("True",
// "Conditional", "False") by logical id on the modified resources.
func (r *Report) SetReplacement(byLogicalID map[string]string) {
	for i := range r.Resources {
		if v, ok := byLogicalID[r.Resources[i].LogicalID]; ok && r.Resources[i].Action == Modify {
			r.Resources[i].Replacement = v
		}
	}
	if r.old != nil {
		r.Data = dataChanges(r.old, r.new, r.Resources)
	}
}

// keys returns the keys of m, sorted.
func keys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	out := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(out)
	return slices.Compact(out)
}

// equal compares two decoded JSON values (numbers decoded as json.Number).
func equal(a, b any) bool {
	return reflect.DeepEqual(a, b)
}

// compare appends the leaf differences between a and b under path. A REST
// API's OpenAPI paths are left to the route view.
func compare(typ, path string, a, b any, out *[]PropertyChange) {
	if typ == "AWS::ApiGateway::RestApi" && path == "Body.paths" {
		if !equal(a, b) {
			*out = append(*out, PropertyChange{Path: path, Note: "OpenAPI routes: see Routes"})
		}
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok && !intrinsic(am) && !intrinsic(bm) {
		for _, k := range unionKeys(am, bm) {
			compare(typ, join(path, k), am[k], bm[k], out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok {
		for i := 0; i < len(al) || i < len(bl); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(bl):
				*out = append(*out, PropertyChange{Path: p, Old: al[i]})
			case i >= len(al):
				*out = append(*out, PropertyChange{Path: p, New: bl[i]})
			default:
				compare(typ, p, al[i], bl[i], out)
			}
		}
		return
	}
	if !equal(a, b) {
		*out = append(*out, PropertyChange{Path: path, Old: a, New: b})
	}
}

// intrinsic tells {"Ref": ...} and {"Fn::X": ...}, compared as one value.
func intrinsic(m map[string]any) bool {
	if len(m) != 1 {
		return false
	}
	for k := range m {
		return k == "Ref" || strings.HasPrefix(k, "Fn::")
	}
	return false
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
