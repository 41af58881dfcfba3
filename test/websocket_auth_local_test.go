package test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// gatedWSApp protects $connect with an app authorizer (query.token), echoes
// every message ($default) to its sender through the connections handle
// with what the authorizer passed on, and lets HTTP routes describe and
// close a connection.
const gatedWSApp = `package main

import (
	"context"

	"github.com/framework-dev/framework/framework"
)

func main() {
	app := framework.New("wsgate")
	conns := app.Connections()
	gate := framework.AppAuthorizer{Name: "gate", IdentitySources: []string{"query.token"}, TTLSeconds: -1,
		Func: func(_ context.Context, r framework.AuthRequest) (framework.AuthResult, error) {
			if r.QueryParams.Get("token") != "good" {
				return framework.AuthResult{}, nil
			}
			return framework.AuthResult{Allow: true, PrincipalID: "ann", Context: map[string]any{"team": "blue"}}, nil
		}}
	app.OnWebSocketConnect("connect", func(context.Context, *framework.WebSocketRequest) error { return nil }, framework.ConnectAuthorizer(gate))
	app.OnWebSocketMessage("echo", framework.RouteDefault, func(ctx context.Context, r *framework.WebSocketRequest) error {
		return conns.SendJSON(ctx, r.ConnectionID, map[string]any{"id": r.ConnectionID, "who": r.Authorizer["principalId"], "team": r.Authorizer["team"], "body": string(r.Body)})
	})
	app.Route("/conn/{id}", func(r *framework.Request, id string) (any, error) {
		info, err := conns.Describe(r.Context(), id)
		return map[string]string{"ip": info.SourceIP, "ua": info.UserAgent}, err
	}, framework.Name("describe"))
	app.Route("/conn/{id}", func(r *framework.Request, id string) (any, error) {
		return map[string]bool{"closed": true}, conns.Close(r.Context(), id)
	}, framework.Methods("DELETE"), framework.Name("hangup"))
	app.Run()
}
`

// TestLocalWebSocketAuthorizer: under framework local, the app authorizer
// of $connect refuses a client (403) and lets another through, whose
// handlers see what it passed on; the connections handle describes and
// closes a connection from HTTP routes.
func TestLocalWebSocketAuthorizer(t *testing.T) {
	dir := repoModule(t, map[string]string{"main.go": gatedWSApp,
		".framework/config.json": `{"version": "1.0", "app_name": "wsgate", "stages": {"dev": {}}}`})
	s := startLocal(t, dir, testEnv(t), "--ws-port", "0")
	ev := s.seenEvent("websocket")
	if ev == nil {
		t.Fatalf("no WebSocket API announced: %v", s.seen)
	}
	wsURL := ev["url"].(string)
	ctx := t.Context()

	// Without the identity source, API Gateway refuses with 401 and does
	// not call the authorizer.
	if _, resp, err := websocket.Dial(ctx, wsURL, nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("no token: %v, %v; want 401", err, resp)
	}
	_, resp, err := websocket.Dial(ctx, wsURL+"?token=bad", nil)
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Fatalf("a bad token: %v, %v; want 403", err, resp)
	}
	c, _, err := websocket.Dial(ctx, wsURL+"?token=good", &websocket.DialOptions{HTTPHeader: http.Header{"User-Agent": {"test-client/1"}}})
	if err != nil {
		t.Fatalf("a good token: %v", err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte("plain text")); err != nil {
		t.Fatal(err)
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var echo map[string]string
	if err := json.Unmarshal(b, &echo); err != nil || echo["who"] != "ann" || echo["team"] != "blue" || echo["body"] != "plain text" || echo["id"] == "" {
		t.Fatalf("echo %s (%v): want the authorizer's principal and context and the body", b, err)
	}
	id := echo["id"]

	got := get(t, s.URL+"/conn/"+url.PathEscape(id), nil)
	if got.status != 200 || !strings.Contains(got.body, `"ip":"127.0.0.1"`) || !strings.Contains(got.body, `"ua":"test-client/1"`) {
		t.Errorf("describe: %d %s", got.status, got.body)
	}
	req, _ := http.NewRequest("DELETE", s.URL+"/conn/"+url.PathEscape(id), nil)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Errorf("close: %d %s", r.StatusCode, body)
	}
	// The client sees the close, and the server says so.
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, _, err := c.Read(rctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the close the client read %v, want a normal closure; events %v\nstderr:\n%s", err, s.seen, s.stderr.String())
	}
	s.waitEvent(t, "websocket_disconnected", time.Minute)
	// A gone connection: the handle's ErrConnectionGone, an uncaught error (500).
	if got = get(t, s.URL+"/conn/"+url.PathEscape(id), nil); got.status != 500 {
		t.Errorf("describe after the close: %d %s, want 500", got.status, got.body)
	}
}
