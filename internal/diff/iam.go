package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// statement is one IAM policy statement found in a template.
type statement struct {
	holder string // logical id of the role or policy
	raw    json.RawMessage
	effect string
	action []string
	doc    map[string]any
}

// parsed is the statement as the template has it.
func (s statement) parsed() map[string]any { return s.doc }

// statements returns the permission statements of the template's IAM
// roles (inline Policies) and AWS::IAM::Policy / ManagedPolicy resources.
// Trust policies (AssumeRolePolicyDocument) are not permissions and are
// left out.
func statements(t *template) []statement {
	var out []statement
	for _, id := range keys(t.Resources) {
		r := t.Resources[id]
		var docs []any
		switch r.Type {
		case "AWS::IAM::Role", "AWS::IAM::User", "AWS::IAM::Group":
			pols, _ := r.Properties["Policies"].([]any)
			for _, p := range pols {
				pm, _ := p.(map[string]any)
				docs = append(docs, pm["PolicyDocument"])
			}
		case "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::IAM::RolePolicy":
			docs = append(docs, r.Properties["PolicyDocument"])
		}
		for _, d := range docs {
			dm, _ := d.(map[string]any)
			var list []any
			switch s := dm["Statement"].(type) {
			case []any:
				list = s
			case map[string]any:
				list = []any{s}
			}
			for _, s := range list {
				sm, _ := s.(map[string]any)
				raw, _ := canonical(sm)
				st := statement{holder: id, raw: raw, doc: sm}
				st.effect, _ = sm["Effect"].(string)
				st.action = strs(sm["Action"])
				out = append(out, st)
			}
		}
	}
	return out
}

func strs(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// canonical encodes v with sorted keys and sorted Action lists, so that
// equal statements compare equal.
func canonical(sm map[string]any) (json.RawMessage, error) {
	c := map[string]any{}
	for k, v := range sm {
		if k == "Action" || k == "NotAction" {
			a := strs(v)
			slices.Sort(a)
			v = a
		}
		c[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

func statementChanges(o, n *template) []StatementChange {
	olds, news := statements(o), statements(n)
	key := func(s statement) string { return s.holder + "\x00" + string(s.raw) }
	in := func(list []statement) map[string]bool {
		m := map[string]bool{}
		for _, s := range list {
			m[key(s)] = true
		}
		return m
	}
	oldSet, newSet := in(olds), in(news)
	out := []StatementChange{}
	for _, s := range olds {
		if !newSet[key(s)] {
			out = append(out, StatementChange{Action: Remove, Resource: s.holder, Statement: s.raw})
		}
	}
	for _, s := range news {
		if !oldSet[key(s)] {
			out = append(out, StatementChange{Action: Add, Resource: s.holder, Statement: s.raw})
		}
	}
	return out
}

// PolicyActions returns the actions the Allow statements of the template's
// IAM permission policies grant, sorted and de-duplicated: the policy of
// the function's role as deployed. The deploy planner compares it with the
// synthesized template's, and deploy asks before the policy changes.
func PolicyActions(templateJSON []byte) ([]string, error) {
	t, err := parse(templateJSON, "")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range statements(t) {
		if s.effect != "Deny" {
			out = append(out, s.action...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// describeStatement renders a statement as one line:
// "Allow s3:GetObject, s3:PutObject on arn:aws:s3:::b/*".
func describeStatement(raw json.RawMessage) string {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		return string(raw)
	}
	effect, _ := s["Effect"].(string)
	actions := strs(s["Action"])
	var res []string
	switch r := s["Resource"].(type) {
	case string:
		res = []string{r}
	case []any:
		for _, e := range r {
			res = append(res, text(e))
		}
	case nil:
	default:
		res = []string{text(r)}
	}
	line := fmt.Sprintf("%s %s", effect, strings.Join(actions, ", "))
	if len(res) > 0 {
		line += " on " + strings.Join(res, ", ")
	}
	if c, ok := s["Condition"]; ok {
		b, _ := json.Marshal(c)
		line += " when " + string(b)
	}
	return line
}

// PermissionChanges returns, one line each, every change between two
// templates of what IAM lets the stack's roles, users and groups do: for
// the app's functions, what each may do, by resource ("function notify:
// + sns:Publish on topic \"events\"", see PermissionChange); for other
// roles (a custom resource's), permission statements added and removed
// ("+ Allow s3:PutBucketNotification on ... (HandlerRole)"), including
// those whose actions stay but whose resources or conditions change; and
// managed policies attached and detached ("+ managed policy arn:...
// (FunctionRole)"). deployed may be nil: everything is then added.
func PermissionChanges(deployed, synthesized []byte) ([]string, error) {
	o, n, err := parseBoth(deployed, synthesized)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range permissionChanges(o, n) {
		out = append(out, c.Line())
	}
	for _, c := range otherStatementChanges(o, n) {
		out = append(out, fmt.Sprintf("%s %s (%s)", sign[c.Action], describeStatement(c.Statement), c.Resource))
	}
	managed := func(t *template) map[string]bool {
		m := map[string]bool{}
		for id, r := range t.Resources {
			if r.Type != "AWS::IAM::Role" && r.Type != "AWS::IAM::User" && r.Type != "AWS::IAM::Group" {
				continue
			}
			arns, _ := r.Properties["ManagedPolicyArns"].([]any)
			for _, arn := range arns {
				b, _ := json.Marshal(arn)
				m[id+"\x00"+string(b)] = true
			}
		}
		return m
	}
	before, after := managed(o), managed(n)
	line := func(sign, k string) string {
		id, arn, _ := strings.Cut(k, "\x00")
		var s string
		if json.Unmarshal([]byte(arn), &s) == nil {
			arn = s
		}
		return fmt.Sprintf("%s managed policy %s (%s)", sign, arn, id)
	}
	for _, k := range keys(before) {
		if !after[k] {
			out = append(out, line("-", k))
		}
	}
	for _, k := range keys(after) {
		if !before[k] {
			out = append(out, line("+", k))
		}
	}
	return out, nil
}

// otherStatementChanges are the statement changes of the roles and
// policies that no app function's role holds (permissionChanges tells
// those by function).
func otherStatementChanges(o, n *template) []StatementChange {
	fnHolders := func(t *template) map[string]bool {
		m := map[string]bool{}
		roles := roleFunctions(t)
		for id := range roles {
			m[id] = true
		}
		for id, r := range t.ofType("AWS::IAM::Policy") {
			for _, ref := range asList(r.Properties["Roles"]) {
				if _, ok := roles[target(ref)]; ok {
					m[id] = true
				}
			}
		}
		return m
	}
	of, nf := fnHolders(o), fnHolders(n)
	return slices.DeleteFunc(statementChanges(o, n), func(c StatementChange) bool { return of[c.Resource] || nf[c.Resource] })
}
