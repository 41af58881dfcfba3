package diff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/names"
)

// FunctionChange is an event handler's or plain function's Lambda function,
// or one of its triggers, added or removed.
type FunctionChange struct {
	Action string `json:"action"`
	// Function is the handler's name.
	Function string `json:"function"`
	// Trigger describes the trigger ("schedule rate(1 day)", "SQS
	// arn:...:orders", ...); empty when the change is the function itself.
	Trigger string `json:"trigger,omitempty"`
	// LogicalID is the resource holding the function or trigger.
	LogicalID string `json:"logical_id"`
}

type trigger struct{ function, desc, logical string }

// handlers maps the logical ids of a template's handler functions to
// their handler names.
func handlers(t *template) map[string]string {
	out := map[string]string{}
	for id, r := range t.ofType("AWS::Lambda::Function") {
		env, _ := r.Properties["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		if name, ok := vars[names.EnvHandler].(string); ok && name != "" {
			out[id] = name
		}
	}
	return out
}

// target returns the logical id a Ref or Fn::GetAtt points at.
func target(v any) string {
	m, _ := v.(map[string]any)
	if ref, ok := m["Ref"].(string); ok {
		return ref
	}
	if att, ok := m["Fn::GetAtt"].([]any); ok && len(att) > 0 {
		s, _ := att[0].(string)
		return s
	}
	return ""
}

// text renders a template value for a reader: strings as they are, a Ref
// as ${Ref}, an Fn::GetAtt as ${Logical.Attribute} (Fn::Sub's forms), an
// Fn::Join of those joined, anything else as JSON.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		if ref, ok := x["Ref"].(string); ok {
			return "${" + ref + "}"
		}
		if att, ok := x["Fn::GetAtt"].([]any); ok && len(att) == 2 {
			if id, ok := att[0].(string); ok {
				if name, ok := att[1].(string); ok {
					return "${" + id + "." + name + "}"
				}
			}
		}
		if j, ok := x["Fn::Join"].([]any); ok && len(j) == 2 {
			sep, _ := j[0].(string)
			parts, _ := j[1].([]any)
			s := make([]string, len(parts))
			for i, p := range parts {
				s[i] = text(p)
			}
			return strings.Join(s, sep)
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// triggers lists the triggers of a template's handler functions.
func triggers(t *template, fns map[string]string) []trigger {
	var out []trigger
	add := func(fnLogical, desc, logical string) {
		if name, ok := fns[fnLogical]; ok {
			out = append(out, trigger{name, desc, logical})
		}
	}
	for id, r := range t.Resources {
		p := r.Properties
		switch r.Type {
		case "AWS::Events::Rule":
			desc := "EventBridge rule " + text(p["EventPattern"])
			if s, ok := p["ScheduleExpression"]; ok {
				desc = "schedule " + text(s)
			}
			targets, _ := p["Targets"].([]any)
			for _, tg := range targets {
				m, _ := tg.(map[string]any)
				add(target(m["Arn"]), desc, id)
			}
		case "AWS::Lambda::EventSourceMapping":
			desc := "event source " + text(p["EventSourceArn"])
			if fmt.Sprint(p["FunctionResponseTypes"]) == "[ReportBatchItemFailures]" {
				desc += " (reports batch item failures)"
			}
			add(target(p["FunctionName"]), desc, id)
		case "AWS::SNS::Subscription":
			add(target(p["Endpoint"]), "SNS topic "+text(p["TopicArn"]), id)
		case "Custom::S3BucketNotifications":
			nc, _ := p["NotificationConfiguration"].(map[string]any)
			cfgs, _ := nc["LambdaFunctionConfigurations"].([]any)
			for _, c := range cfgs {
				m, _ := c.(map[string]any)
				desc := fmt.Sprintf("S3 bucket %s %s", text(p["BucketName"]), text(m["Events"]))
				if f, ok := m["Filter"]; ok {
					desc += " " + text(f)
				}
				add(target(m["LambdaFunctionArn"]), desc, id)
			}
		}
	}
	return out
}

// functionChanges names the handler functions and triggers added and
// removed between two templates, sorted by function, then function before
// trigger.
func functionChanges(o, n *template) []FunctionChange {
	of, nf := handlers(o), handlers(n)
	var out []FunctionChange
	byName := func(m map[string]string) map[string]string { // name → logical id
		r := map[string]string{}
		for id, name := range m {
			r[name] = id
		}
		return r
	}
	on, nn := byName(of), byName(nf)
	for name, id := range nn {
		if _, ok := on[name]; !ok {
			out = append(out, FunctionChange{Action: Add, Function: name, LogicalID: id})
		}
	}
	for name, id := range on {
		if _, ok := nn[name]; !ok {
			out = append(out, FunctionChange{Action: Remove, Function: name, LogicalID: id})
		}
	}
	key := func(t trigger) string { return t.function + "\x00" + t.desc }
	ot, nt := map[string]trigger{}, map[string]trigger{}
	for _, t := range triggers(o, of) {
		ot[key(t)] = t
	}
	for _, t := range triggers(n, nf) {
		nt[key(t)] = t
	}
	for k, t := range nt {
		if _, ok := ot[k]; !ok {
			out = append(out, FunctionChange{Action: Add, Function: t.function, Trigger: t.desc, LogicalID: t.logical})
		}
	}
	for k, t := range ot {
		if _, ok := nt[k]; !ok {
			out = append(out, FunctionChange{Action: Remove, Function: t.function, Trigger: t.desc, LogicalID: t.logical})
		}
	}
	slices.SortFunc(out, func(a, b FunctionChange) int {
		if c := strings.Compare(a.Function, b.Function); c != 0 {
			return c
		}
		if c := strings.Compare(a.Trigger, b.Trigger); c != 0 {
			return c
		}
		return strings.Compare(a.Action, b.Action)
	})
	return out
}

// writeFunctions writes the Functions section of the text report.
func (r *Report) writeFunctions(b *strings.Builder) {
	if len(r.Functions) == 0 {
		return
	}
	b.WriteString("Functions\n")
	for _, c := range r.Functions {
		if c.Trigger == "" {
			fmt.Fprintf(b, "  %s function %s (%s)\n", sign[c.Action], c.Function, c.LogicalID)
		} else {
			fmt.Fprintf(b, "  %s %s trigger: %s\n", sign[c.Action], c.Function, c.Trigger)
		}
	}
}
