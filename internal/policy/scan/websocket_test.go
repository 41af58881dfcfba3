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

// TestScanExampleChat: the calls of examples/chat's WebSocket handlers are
// attributed to each handler (WebSocketRoute's included), the connections
// handle's calls are found, and only the functions that reach them get
// execute-api:ManageConnections, on the app's WebSocket API only.
func TestScanExampleChat(t *testing.T) {
	offline(t)
	rep, err := Scan("../../../examples/chat")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{} // operation → functions
	for _, c := range rep.Calls {
		got[c.Operation] = append(got[c.Operation], c.Functions...)
	}
	for op, want := range map[string]string{
		"PutItem":              "connect",
		"Scan":                 policy.RoutePrefix + "broadcast say",
		"Connections.SendJSON": policy.RoutePrefix + "broadcast say",
	} {
		fns := slices.Clone(got[op])
		slices.Sort(fns)
		if strings.Join(slices.Compact(fns), " ") != want {
			t.Errorf("%s: attributed to %v, want %s", op, fns, want)
		}
	}
	m, err := build.Manifest(context.Background(), "../../../examples/chat")
	if err != nil {
		t.Fatal(err)
	}
	pols, err := perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls})
	if err != nil {
		t.Fatalf("examples/chat goes beyond its declarations: %v", err)
	}
	for _, fn := range []string{policy.APIFunction, "connect", "disconnect", "say"} {
		p := pols.Function(fn)
		if p == nil {
			t.Fatalf("no policy for %s", fn)
		}
		var manage []perms.Statement
		for _, s := range p.Statements {
			if slices.Contains(s.Actions, policy.ManageConnections) {
				manage = append(manage, s)
			}
		}
		want := fn == policy.APIFunction || fn == "say"
		if (len(manage) > 0) != want {
			t.Errorf("%s: ManageConnections statements %+v, want them: %v", fn, manage, want)
		}
		for _, s := range manage {
			if len(s.Resources) != 1 || s.Resources[0].Label(m) != "the connections of the app's WebSocket API" || slices.Contains(s.Actions, "*") {
				t.Errorf("%s: %+v is not on the WebSocket API only", fn, s)
			}
		}
	}
}
