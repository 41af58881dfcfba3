package diff

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// indexProblems finds the changes of a table's global secondary indexes
// that CloudFormation refuses in an update, each in a sentence saying
// what to do: more than one global index of a table added or removed in
// one deploy, and an index whose keys or projection change under the
// same name. Adding or removing one index is an in-place change.
func indexProblems(o, n *template) []string {
	var out []string
	declared := DeclaredNames(o.Outputs)
	for id, nr := range n.ofType("AWS::DynamoDB::Table") {
		or, ok := o.Resources[id]
		if !ok || or.Type != nr.Type || !equal(or.Properties["KeySchema"], nr.Properties["KeySchema"]) {
			continue // created or replaced: its indexes come with it
		}
		what := "table " + id
		if d := declared[id]; d != "" {
			what = fmt.Sprintf("table %q (%s)", d, id)
		}
		old, neu := globalIndexes(or.Properties), globalIndexes(nr.Properties)
		var added, removed, changed []string
		for _, name := range slices.Sorted(maps.Keys(neu)) {
			switch ov, ok := old[name]; {
			case !ok:
				added = append(added, name)
			case !equal(ov["KeySchema"], neu[name]["KeySchema"]) || !equal(ov["Projection"], neu[name]["Projection"]):
				changed = append(changed, name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(old)) {
			if _, ok := neu[name]; !ok {
				removed = append(removed, name)
			}
		}
		if len(changed) > 0 {
			out = append(out, fmt.Sprintf("%s: global index %s changes its keys or projection, which CloudFormation cannot do in place: declare the new one under another name, deploy, then remove the old one",
				what, strings.Join(changed, ", ")))
		}
		if len(added)+len(removed) > 1 {
			var parts []string
			if len(added) > 0 {
				parts = append(parts, "adds "+strings.Join(added, ", "))
			}
			if len(removed) > 0 {
				parts = append(parts, "removes "+strings.Join(removed, ", "))
			}
			out = append(out, fmt.Sprintf("%s: the deploy %s, but CloudFormation adds or removes one global index of a table per update: change one index per deploy",
				what, strings.Join(parts, " and ")))
		}
	}
	slices.Sort(out)
	return out
}

// globalIndexes returns a table's global secondary indexes by name.
func globalIndexes(props map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := props["GlobalSecondaryIndexes"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			if name, ok := m["IndexName"].(string); ok {
				out[name] = m
			}
		}
	}
	return out
}

// writeIndexProblems writes the index changes CloudFormation refuses.
func (r *Report) writeIndexProblems(b *strings.Builder) {
	if len(r.IndexProblems) == 0 {
		return
	}
	b.WriteString("WARNING: CloudFormation refuses these table index changes, and the deploy would fail:\n")
	for _, p := range r.IndexProblems {
		fmt.Fprintf(b, "  ! %s\n", p)
	}
}
