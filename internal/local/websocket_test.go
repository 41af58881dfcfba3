package local

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestSelectRoute: the route selection expression picks the route key
// from a JSON message; anything else goes to $default.
func TestSelectRoute(t *testing.T) {
	for body, want := range map[string]string{
		`{"action":"send"}`: "send", `{"action":""}`: "$default", `not json`: "$default",
		`{"other":"x"}`: "$default", `{"action":{"a":1}}`: "$default", `[1]`: "$default",
	} {
		if got := selectRoute("$request.body.action", []byte(body)); got != want {
			t.Errorf("%s → %q, want %q", body, got, want)
		}
	}
	if got := selectRoute("$request.body.a.b", []byte(`{"a":{"b":"deep"}}`)); got != "deep" {
		t.Errorf("nested field → %q", got)
	}
}

// TestManagementClose: DELETE on the management endpoint closes the
// client's connection with 1000, and a call on it afterwards is 410.
func TestManagementClose(t *testing.T) {
	s := &supervisor{o: Options{Host: "127.0.0.1", Stage: "dev", Stdout: io.Discard, Stderr: io.Discard}}
	ws, err := s.startWebSocket()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	ws.update(&manifest.Manifest{App: "x", WebSocket: &manifest.WebSocket{RouteSelection: manifest.DefaultRouteSelection}}, "x")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(ws.endpoint(), "http:", "ws:", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var id string
	for id == "" {
		ws.mu.Lock()
		for k := range ws.conns {
			id = k
		}
		ws.mu.Unlock()
	}
	req, _ := http.NewRequest("DELETE", ws.endpoint()+"/@connections/"+id, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("the client read %v, want a normal closure", err)
	}
}
