package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/names"
)

// PermissionChange is a change of what one function of the app may do:
// actions granted or taken away on one resource.
type PermissionChange struct {
	Action string `json:"action"`
	// Function is the function's name: "api" for the function serving
	// the routes, else the handler's.
	Function string `json:"function"`
	// Actions are the IAM actions, sorted; "deny " starts those of a Deny
	// statement.
	Actions []string `json:"actions"`
	// On is the resource: a declared one by its kind and name (`topic
	// "events"`, `objects of bucket "files"`), else its ARN or "*".
	On string `json:"on"`
}

// Line is the change in one line: `function notify: + sns:Publish on
// topic "events"`.
func (c PermissionChange) Line() string {
	return fmt.Sprintf("function %s: %s %s on %s", c.Function, sign[c.Action], strings.Join(c.Actions, ", "), c.On)
}

// roleFunctions maps the logical id of each role of the stack that an app
// function runs with to the function's name ("api" for the function
// serving the routes, which has no FRAMEWORK_HANDLER).
func roleFunctions(t *template) map[string]string {
	out := map[string]string{}
	for _, r := range t.ofType("AWS::Lambda::Function") {
		env, _ := r.Properties["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		name, _ := vars[names.EnvHandler].(string)
		if name == "" {
			if r.Properties["Runtime"] != "provided.al2023" {
				continue // not the app's: a custom resource's handler
			}
			name = "api"
		}
		if role := target(r.Properties["Role"]); role != "" {
			out[role] = name
		}
	}
	return out
}

// grants returns, for each app function, what its role allows: "action\x00resource" pairs.
func grants(t *template) map[string]map[string]bool {
	roles := roleFunctions(t)
	declared := DeclaredNames(t.Outputs)
	out := map[string]map[string]bool{}
	for _, s := range statements(t) {
		holders := []string{s.holder}
		if r := t.Resources[s.holder]; r.Type == "AWS::IAM::Policy" {
			holders = nil
			for _, ref := range asList(r.Properties["Roles"]) {
				holders = append(holders, target(ref))
			}
		}
		for _, h := range holders {
			fn, ok := roles[h]
			if !ok {
				continue
			}
			if out[fn] == nil {
				out[fn] = map[string]bool{}
			}
			st := s.parsed()
			prefix := ""
			if s.effect == "Deny" {
				prefix = "deny "
			}
			for _, a := range s.action {
				for _, res := range asList(st["Resource"]) {
					out[fn][prefix+a+"\x00"+resourceLabel(t, declared, res)] = true
				}
			}
		}
	}
	return out
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

// kinds names the declared kinds' resource types.
var kinds = map[string]string{"AWS::SNS::Topic": "topic"}

// resourceLabel names a statement's resource for a reader: a declared
// resource by its kind and name, with its objects, indexes or stream;
// anything else as text does.
func resourceLabel(t *template, declared map[string]string, v any) string {
	id := target(v)
	suffix := ""
	if m, ok := v.(map[string]any); ok {
		if j, ok := m["Fn::Join"].([]any); ok && len(j) == 2 {
			parts, _ := j[1].([]any)
			if len(parts) == 2 {
				if s, ok := parts[1].(string); ok {
					id, suffix = target(parts[0]), s
				}
			}
		}
		if att, ok := m["Fn::GetAtt"].([]any); ok && len(att) == 2 && att[1] == "StreamArn" {
			suffix = "stream"
		}
	}
	name, ok := declared[id]
	if !ok {
		return text(v)
	}
	kind := DataTypes[t.Resources[id].Type]
	if kind == "" {
		kind = kinds[t.Resources[id].Type]
	}
	what := fmt.Sprintf("%s %q", kind, name)
	switch suffix {
	case "":
		return what
	case "/*":
		return "objects of " + what
	case "/index/*":
		return "indexes of " + what
	case "stream":
		return "stream of " + what
	}
	return what + " " + suffix
}

// permissionChanges compares what each app function may do in o and n:
// one change per function, sign and resource, actions together.
func permissionChanges(o, n *template) []PermissionChange {
	before, after := grants(o), grants(n)
	fns := map[string]bool{}
	for f := range before {
		fns[f] = true
	}
	for f := range after {
		fns[f] = true
	}
	var out []PermissionChange
	for _, fn := range keys(fns) {
		for _, c := range []struct {
			action   string
			from, to map[string]bool
		}{{Remove, before[fn], after[fn]}, {Add, after[fn], before[fn]}} {
			byRes := map[string][]string{}
			for k := range c.from {
				if !c.to[k] {
					a, res, _ := strings.Cut(k, "\x00")
					byRes[res] = append(byRes[res], a)
				}
			}
			for _, res := range keys(byRes) {
				acts := byRes[res]
				slices.Sort(acts)
				out = append(out, PermissionChange{Action: c.action, Function: fn, Actions: acts, On: res})
			}
		}
	}
	return out
}
