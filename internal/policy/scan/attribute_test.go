package scan

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
)

// TestScanAttributesExampleTodo: each SDK call of examples/todo, and its
// handle's own call, is attributed to the handler whose code reaches it,
// and a call naming a handle's Name in its input targets that resource.
func TestScanAttributesExampleTodo(t *testing.T) {
	offline(t)
	rep, err := Scan("../../../examples/todo")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // operation → functions/target
	for _, c := range rep.Calls {
		desc := strings.Join(c.Functions, ",")
		if c.Target != nil {
			desc += " " + c.Target.Kind + ":" + c.Target.Name
		}
		got[c.Operation] = desc
		t.Logf("%s %s %s", c.Pos, c.Operation, desc)
	}
	for op, want := range map[string]string{
		"PutItem":      policy.RoutePrefix + "add",
		"GetItem":      policy.RoutePrefix + "get",
		"Query":        policy.RoutePrefix + "byOwner",
		"UpdateItem":   "done",
		"Publish":      "done",
		"SendMessage":  "done",
		"Secret.Value": policy.RoutePrefix + "add secret:apiKey",
	} {
		if got[op] != want {
			t.Errorf("%s: attributed %q, want %q", op, got[op], want)
		}
	}
	if !slices.ContainsFunc(rep.Calls, func(c policy.Call) bool { return c.Via == "handle" }) {
		t.Error("the handle's own call is not reported")
	}

	// examples/todo declares what it uses: no call goes beyond its
	// declarations.
	m, err := build.Manifest(context.Background(), "../../../examples/todo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls}); err != nil {
		t.Errorf("examples/todo goes beyond its declarations: %v", err)
	}
}
