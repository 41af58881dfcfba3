package eventsample

import (
	"context"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
)

// TestWebSocketSamples: the sample event of each WebSocket route is one
// its handler takes (framework invoke NAME --local without --event).
func TestWebSocketSamples(t *testing.T) {
	app := framework.New("s")
	got := map[string]string{}
	app.OnWebSocketConnect("c", func(_ context.Context, r *framework.WebSocketRequest) error {
		got["c"] = r.EventType + " " + r.QueryParams.Get("name")
		return nil
	})
	app.OnWebSocketDisconnect("d", func(_ context.Context, r *framework.WebSocketRequest) error {
		got["d"] = r.EventType + " " + r.DisconnectReason
		return nil
	})
	type msg struct{ Action string }
	framework.WebSocketRoute(app, "m", "send", func(_ context.Context, r *framework.WebSocketRequest, m msg) error {
		got["m"] = r.EventType + " " + m.Action
		return nil
	})
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Functions {
		ev, err := For(f)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out, err := apphook.Of(app).Invoke(context.Background(), f.Name, ev)
		if err != nil || !strings.Contains(string(out), `"statusCode":200`) {
			t.Errorf("%s: %s, %v\n%s", f.Name, out, err, ev)
		}
	}
	for name, want := range map[string]string{"c": "CONNECT sample", "d": "DISCONNECT Going away", "m": "MESSAGE send"} {
		if got[name] != want {
			t.Errorf("%s: got %q, want %q", name, got[name], want)
		}
	}
}
