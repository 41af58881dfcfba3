package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
)

// checkRolePerFunction reads the template as a reviewer would: each app
// function (the API's, "api", and each handler, by FRAMEWORK_HANDLER) has
// a role of its own; the actions of the declared kinds' services that the
// role grants are, resource by resource, exactly those of the accesses in
// want[function] (the declared accesses, "consume" for a queue feeding
// the handler, "stream" for a table's stream feeding it, nil for a
// resource it may use without IAM, such as a topic feeding it), on the
// declared resources only and never on "*"; and the function's
// environment holds the FRAMEWORK_RES_* variables of want's resources
// and no others.
func checkRolePerFunction(t *testing.T, tpl *template, m *manifest.Manifest, want map[string]map[string][]manifest.Access) {
	t.Helper()
	resID := func(name string) string { return "Res" + strings.ToUpper(name[:1]) + name[1:] }
	// declaredIn names the declared resource a JSON value refers to.
	declaredIn := func(v any) (name string, stream bool) {
		b, _ := json.Marshal(v)
		for _, r := range m.Resources {
			id := resID(r.Name)
			if strings.Contains(string(b), id) && !strings.Contains(string(b), id+"DLQ") {
				return r.Name, strings.Contains(string(b), "StreamArn")
			}
		}
		return "", false
	}
	roles := map[string]string{}
	fnIDs := map[string]string{} // function name → logical id
	for id, fn := range tpl.ofType("AWS::Lambda::Function") {
		if fn.Properties["Runtime"] != "provided.al2023" {
			continue
		}
		vars, _ := fn.Properties["Environment"].(map[string]any)["Variables"].(map[string]any)
		name, _ := vars[names.EnvHandler].(string)
		if name == "" {
			name = "api"
		}
		ref, _ := fn.Properties["Role"].(map[string]any)["Fn::GetAtt"].([]any)
		if len(ref) != 2 {
			t.Fatalf("function %s: role %v is not a role of the stack", id, fn.Properties["Role"])
		}
		role := ref[0].(string)
		for other, r := range roles {
			if r == role {
				t.Errorf("functions %s and %s share the role %s", name, other, role)
			}
		}
		roles[name] = role
		fnIDs[name] = id
		// The environment.
		var gotEnv, wantEnv []string
		for k := range vars {
			if strings.HasPrefix(k, "FRAMEWORK_RES_") {
				gotEnv = append(gotEnv, k)
			}
		}
		for res := range want[name] {
			r := m.Resource(res)
			for _, attr := range manifest.ResourceKinds[r.Kind].Attrs {
				if attr == manifest.AttrStreamARN && r.Stream == "" || strings.HasPrefix(attr, "DLQ_") && !r.HasDeadLetter() {
					continue
				}
				wantEnv = append(wantEnv, manifest.ResourceEnv(r.Name, attr))
			}
		}
		slices.Sort(gotEnv)
		slices.Sort(wantEnv)
		if !slices.Equal(gotEnv, wantEnv) {
			t.Errorf("function %s: resource variables %v, want %v", name, gotEnv, wantEnv)
		}
	}
	if len(roles) != len(want) {
		t.Errorf("functions %v, want %d", roles, len(want))
	}
	for name, role := range roles {
		// What the role grants, by declared resource (stream apart).
		got := map[string][]string{}
		var docs []any
		inline, _ := tpl.Resources[role].Properties["Policies"].([]any) // none: logging alone
		for _, p := range inline {
			docs = append(docs, p.(map[string]any)["PolicyDocument"])
		}
		logging := 0
		for id, p := range tpl.ofType("AWS::IAM::Policy") {
			if !strings.Contains(fmt.Sprint(p.Properties["Roles"]), role) {
				continue
			}
			// Its logging policy: the logging actions on its own
			// function's log group (/aws/lambda/<its name>) only.
			b, _ := json.Marshal(p.Properties["PolicyDocument"])
			if p.Properties["PolicyName"] == "Logging" {
				logging++
				if !strings.Contains(string(b), `log-group:/aws/lambda/${Name}`) || !strings.Contains(string(b), `"Ref":"`+fnIDs[name]+`"`) ||
					strings.Contains(string(b), "/aws/lambda/*") || strings.Count(string(b), `"logs:`) != 3 || strings.Count(string(b), `"Action"`) != 1 {
					t.Errorf("function %s: logging policy %s is not the logging actions on its own log group: %s", name, id, b)
				}
				continue
			}
			t.Errorf("function %s: policy %s is attached to its role besides its own", name, id)
			docs = append(docs, p.Properties["PolicyDocument"])
		}
		if logging != 1 {
			t.Errorf("function %s: %d logging policies, want 1", name, logging)
		}
		for _, d := range docs {
			for _, s := range d.(map[string]any)["Statement"].([]any) {
				sm := s.(map[string]any)
				actions := strs(sm["Action"])
				res, ok := sm["Resource"].([]any)
				if !ok {
					res = []any{sm["Resource"]}
				}
				for _, a := range actions {
					other := !slices.ContainsFunc(resourceServices, func(p string) bool { return strings.HasPrefix(a, p) })
					for _, r := range res {
						decl, stream := declaredIn(r)
						switch {
						case decl == "" && other:
							continue // logging, X-Ray
						case decl == "":
							t.Errorf("function %s: %s on %v, want a declared resource", name, a, r)
							continue
						}
						key := decl
						if stream {
							key += " stream"
						}
						got[key] = append(got[key], a)
					}
				}
			}
		}
		exp := map[string][]string{}
		for res, accesses := range want[name] {
			r := m.Resource(res)
			for _, acc := range accesses {
				if acc == "stream" {
					spec, _ := manifest.SpecOf(manifest.KindDynamoDB)
					exp[res+" stream"] = append(exp[res+" stream"], spec.ReadActions...)
					continue
				}
				actions, _ := perms.AccessActions(r.Kind, acc)
				if actions == nil {
					t.Fatalf("no access %s on %s", acc, r.Label())
				}
				exp[res] = append(exp[res], actions...)
			}
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			seen := map[string]bool{}
			for k := range got {
				seen[k] = true
			}
			for k := range exp {
				seen[k] = true
			}
			for k := range seen {
				if !yield(k) {
					return
				}
			}
		}) {
			g, e := slices.Compact(slices.Sorted(slices.Values(got[k]))), slices.Compact(slices.Sorted(slices.Values(exp[k])))
			if !slices.Equal(g, e) {
				t.Errorf("function %s, %s: granted %v, want exactly %v", name, k, g, e)
			}
		}
	}
}

func strs(v any) []string {
	switch a := v.(type) {
	case string:
		return []string{a}
	case []any:
		var out []string
		for _, x := range a {
			out = append(out, fmt.Sprint(x))
		}
		return out
	}
	return nil
}

// TestSynth40Functions: an app of 40 functions (the API's and 39 event
// handlers: schedules, queue consumers and topic subscribers on declared
// resources, each reading a declared table) has one role per function,
// their policies inline, and stays far within CloudFormation's 500
// resources per stack. The counts are logged for the README.
func TestSynth40Functions(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes a 40-function stack")
	}
	m := &manifest.Manifest{Version: manifest.Version, App: "many", Routes: []manifest.Route{route("/", "GET")},
		Resources: []manifest.Resource{{Name: "items", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}},
			{Name: "jobs", Kind: manifest.ResourceQueue}, {Name: "news", Kind: manifest.ResourceTopic}},
		Grants: []manifest.Grant{{Resource: "items", Access: manifest.AccessRead}}}
	for i := range 39 {
		f := manifest.Function{Name: fmt.Sprintf("h%02d", i)}
		switch i % 3 {
		case 0:
			f.Kind, f.Schedule = manifest.KindSchedule, "rate(1 hour)"
		case 1:
			f.Kind, f.SourceResource = manifest.KindSQS, "jobs"
		case 2:
			f.Kind, f.SourceResource = manifest.KindSNS, "news"
		}
		m.Functions = append(m.Functions, f)
	}
	res, err := assemble(context.Background(), prebuilt(t, m, "dev", nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tpl := readTemplate(t, res.TemplatePath)
	roles, policies, fns := len(tpl.ofType("AWS::IAM::Role")), len(tpl.ofType("AWS::IAM::Policy")), 0
	for _, r := range tpl.ofType("AWS::Lambda::Function") {
		if r.Properties["Runtime"] == "provided.al2023" {
			fns++
		}
	}
	t.Logf("40 functions: %d resources, %d roles, %d IAM policies", res.ResourceCount, roles, policies)
	if fns != 40 || roles != 40 || policies != 40 {
		t.Errorf("%d functions, %d roles, %d policies: want 40, 40 and 40 (each role's policy inline, and a Logging policy of its own on its function's log group)", fns, roles, policies)
	}
	if res.ResourceCount > 250 {
		t.Errorf("%d resources for 40 functions: want well within CloudFormation's 500", res.ResourceCount)
	}
}
