package perms

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/framework-dev/framework/internal/policy"
)

// UndeclaredGrant is a call the scan found whose action functions are
// granted on every resource ("*"), because what it targets is nothing the
// app declares: `framework synth` warns of each one, saying how to declare
// it.
type UndeclaredGrant struct {
	// Pos is the call's "file:line"; empty when not known.
	Pos string `json:"pos,omitempty"`
	// Call is the scanned operation, "s3.ListBuckets".
	Call string `json:"call"`
	// Action is the IAM action granted, "s3:ListAllMyBuckets".
	Action string `json:"action"`
	// Resource is what it is granted on: "*".
	Resource string `json:"resource"`
	// Functions are the functions granted it (policy.APIFunction for the
	// API's), sorted.
	Functions []string `json:"functions"`
	// Why says why it is not granted on a declared resource.
	Why string `json:"why"`
	// Declare says how to grant less.
	Declare string `json:"declare"`
}

// String is the grant as one warning line.
func (g UndeclaredGrant) String() string {
	pos := g.Pos
	if pos == "" {
		pos = "(position not known)"
	}
	return fmt.Sprintf("%s: %s is granted %s on %q to function %s (%s); %s",
		pos, g.Call, g.Action, g.Resource, strings.Join(g.Functions, ", "), g.Why, g.Declare)
}

// handWrite is the way to grant less than the scan does on what no
// declaration covers.
const handWrite = "to grant less, write the policy yourself (.framework/policy.json with autogen_policy false; `framework gen-policy` prints a start)"

// undeclared records that f is granted action on "*" for the call why
// names: detail, when not empty, says why the action keeps "*" although
// the app declares resources of its service.
func (f *fnState) undeclared(action string, why Reason) {
	f.wideGrants = append(f.wideGrants, UndeclaredGrant{Pos: why.Pos, Call: why.Call, Action: action, Resource: "*", Why: why.Detail})
}

// undeclaredGrants gathers the functions' grants on "*" by call site and
// action, each saying why and how to declare it.
func undeclaredGrants(fns []*fnState) []UndeclaredGrant {
	byKey := map[string]*UndeclaredGrant{}
	var keys []string
	for _, f := range fns {
		for _, g := range f.wideGrants {
			k := g.Pos + "\x00" + g.Call + "\x00" + g.Action
			if prev, ok := byKey[k]; ok {
				if !slices.Contains(prev.Functions, f.pol.Function) {
					prev.Functions = append(prev.Functions, f.pol.Function)
				}
				continue
			}
			g.Functions = []string{f.pol.Function}
			g.Why, g.Declare = declareHint(g)
			byKey[k] = &g
			keys = append(keys, k)
		}
	}
	out := make([]UndeclaredGrant, 0, len(keys))
	for _, k := range keys {
		g := byKey[k]
		slices.Sort(g.Functions)
		out = append(out, *g)
	}
	slices.SortStableFunc(out, func(a, b UndeclaredGrant) int {
		return cmp.Or(strings.Compare(a.Pos, b.Pos), strings.Compare(a.Call, b.Call), strings.Compare(a.Action, b.Action))
	})
	return out
}

// declareHint says why g keeps "*" and how to grant less: declare the
// resource the call targets where the framework declares resources of the
// action's service, else write the policy by hand.
func declareHint(g UndeclaredGrant) (why, declare string) {
	prefix, _, _ := strings.Cut(g.Action, ":")
	kind, _, _, ok := policy.DeclaredKind(policy.Call{Via: "handle"}, g.Action)
	switch {
	case g.Why != "":
		return g.Why, "no declaration narrows it; " + handWrite
	case !ok:
		return fmt.Sprintf("the app can declare no %s resource", prefix), handWrite
	}
	ctor := "New" + strings.ToUpper(string(kind[:1])) + string(kind[1:])
	return fmt.Sprintf("the app declares no %s", kind),
		fmt.Sprintf("declare the %s it uses (resource.%s(app, \"name\", ...)) and Allow the access, and the call is granted on that %s only", kind, ctor, kind)
}
