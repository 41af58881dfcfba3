package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

// repoModule writes files into a new module that requires what this
// repository requires, the framework replaced by this checkout, and
// returns its directory: its app may import the AWS SDK as the examples do.
func repoModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := testutil.RepoRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	files["go.mod"] = strings.Replace(string(mod), "module github.com/framework-dev/framework", "module example.com/app", 1) +
		"\nrequire github.com/framework-dev/framework v0.0.0\n\nreplace github.com/framework-dev/framework => " + root + "\n"
	files["go.sum"] = string(sum)
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, files)
	return dir
}

// chatProject copies examples/chat into a module of its own (repoModule),
// so that a test may change its source.
func chatProject(t *testing.T) string {
	t.Helper()
	root := testutil.RepoRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "examples", "chat", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(root, "examples", "chat", ".framework", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	return repoModule(t, map[string]string{"main.go": string(src), ".framework/config.json": string(cfg)})
}

// startChat runs `framework local` on the chat example against moto, the
// WebSocket API on a free port, and returns the server and the ws:// URL.
func startChat(t *testing.T) (*localServer, string, string) {
	t.Helper()
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := chatProject(t)
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--ws-port", "0")
	ev := s.seenEvent("websocket")
	if ev == nil {
		t.Fatalf("framework local announced no WebSocket API; events: %v", s.seen)
	}
	return s, ev["url"].(string), dir
}

// dialChat connects a client named name.
func dialChat(t *testing.T, ctx context.Context, wsURL, name string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, wsURL+"?name="+name, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", name, err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

// readLine reads the next message of c as a chat line.
func readLine(t *testing.T, ctx context.Context, c *websocket.Conn) map[string]string {
	t.Helper()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var line map[string]string
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatalf("message %s: %v", b, err)
	}
	return line
}

func postBroadcast(t *testing.T, base, text string) string {
	t.Helper()
	resp, err := http.Post(base+"/broadcast", "application/json", strings.NewReader(fmt.Sprintf(`{"text":%q}`, text)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("POST /broadcast: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

// TestLocalWebSocketChat: examples/chat under `framework local` (its
// connections table at moto). Headless Chromium connects two clients, an
// HTTP request broadcasts, both see it (chromiumChat). Then, with Go
// clients: a client without a name is refused with the
// connect handler's 400; two clients connect, a message routed by its
// action and a POST /broadcast (the connections handle, unchanged, at the
// local management endpoint) reach both; a reload keeps them connected
// and says so, and the new version serves their next message; a close
// runs the disconnect handler, and a broadcast then reaches one client.
func TestLocalWebSocketChat(t *testing.T) {
	s, wsURL, dir := startChat(t)
	t.Run("chromium", func(t *testing.T) { chromiumChat(t, s, wsURL) })
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	_, resp, err := websocket.Dial(ctx, wsURL, nil)
	if err == nil || resp == nil || resp.StatusCode != 400 {
		t.Fatalf("a client without a name: %v, %v; want the connect handler's 400", err, resp)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "connect with ?name=YOUR_NAME") {
		t.Errorf("refusal body %s", body)
	}

	ann := dialChat(t, ctx, wsURL, "ann")
	bob := dialChat(t, ctx, wsURL, "bob")
	if err := ann.Write(ctx, websocket.MessageText, []byte(`{"action":"sendmessage","text":"hi bob"}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*websocket.Conn{ann, bob} {
		if line := readLine(t, ctx, c); line["text"] != "hi bob" {
			t.Errorf("got %v, want ann's line", line)
		}
	}
	if got := postBroadcast(t, s.URL, "from the server"); got != `{"sent":2}` {
		t.Errorf("broadcast answered %s, want 2 sent", got)
	}
	for _, c := range []*websocket.Conn{ann, bob} {
		if line := readLine(t, ctx, c); line["from"] != "server" || line["text"] != "from the server" {
			t.Errorf("got %v, want the server's line", line)
		}
	}
	// A message no route takes gets API Gateway's answer.
	if err := bob.Write(ctx, websocket.MessageText, []byte(`{"action":"dance"}`)); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, ctx, bob); line["message"] != "Forbidden" || line["connectionId"] == "" {
		t.Errorf("unrouted message answered %v", line)
	}

	// A reload keeps both connected; the new version serves them.
	mainGo := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(mainGo)
	writeFile(t, mainGo, strings.Replace(string(src), `Line{From: "server", Text: p.Text}`, `Line{From: "server v2", Text: p.Text}`, 1))
	ev := s.waitEvent(t, "websocket_kept", 3*time.Minute)
	if fmt.Sprint(ev["connections"]) != "2" {
		t.Errorf("websocket_kept %v, want 2 connections", ev)
	}
	s.waitEvent(t, "reloaded", 3*time.Minute)
	postBroadcast(t, s.URL, "after the reload")
	for _, c := range []*websocket.Conn{ann, bob} {
		if line := readLine(t, ctx, c); line["from"] != "server v2" {
			t.Errorf("after the reload got %v, want the new version's line", line)
		}
	}

	// ann leaves: the disconnect handler forgets her.
	if err := ann.Close(websocket.StatusNormalClosure, "bye"); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("close: %v", err)
	}
	ev = s.waitEvent(t, "websocket_disconnected", time.Minute)
	if fmt.Sprint(ev["status"]) != "1000" || ev["reason"] != "bye" {
		t.Errorf("disconnected %v, want 1000 bye", ev)
	}
	// The disconnect handler runs after the event; the gone connection
	// is forgotten by the broadcast otherwise: one client is reached.
	if got := postBroadcast(t, s.URL, "last"); got != `{"sent":1}` {
		t.Errorf("broadcast after a close answered %s, want 1 sent", got)
	}
	if line := readLine(t, ctx, bob); line["text"] != "last" {
		t.Errorf("bob got %v", line)
	}
}
