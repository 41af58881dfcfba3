package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

// postManagement POSTs text to url as a local process that is no
// function: unsigned, or signed with made-up credentials (signed true).
func postManagement(t *testing.T, ctx context.Context, u, text string, signed bool) (int, string) {
	t.Helper()
	if signed {
		c := awscall.Config{Region: "us-east-1", Credentials: awscall.Credentials{AccessKeyID: "AKIAMADEUP0000000000", SecretAccessKey: "made-up"}}
		status, out, err := c.Request(ctx, "execute-api", "POST", u, []byte(text))
		if err != nil {
			t.Fatalf("POST %s: %v", u, err)
		}
		return status, string(out)
	}
	resp, err := http.Post(u, "application/json", strings.NewReader(text))
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// connectedID returns the id of the next connection framework local
// reports connected.
func connectedID(t *testing.T, s *localServer) string {
	t.Helper()
	ev := s.waitEvent(t, "websocket_connected", time.Minute)
	id, _ := ev["connection_id"].(string)
	if id == "" {
		t.Fatalf("websocket_connected without a connection id: %v", ev)
	}
	return id
}

// TestLocalWebSocketManagementChecked: under `framework local` with the
// IAM check on, the WebSocket management endpoint is behind the check.
// The chat example's broadcast (the connections handle, which the scan
// grants execute-api:ManageConnections) reaches the client. A local
// process that is no function gets 403 from the WebSocket server's
// @connections path, unsigned or signed with made-up credentials, and is
// refused by the management endpoint framework local announces; the
// client receives nothing from them (its next message is the next
// broadcast).
func TestLocalWebSocketManagementChecked(t *testing.T) {
	s, wsURL, _ := startChat(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	ann := dialChat(t, ctx, wsURL, "ann")
	id := connectedID(t, s)

	if got := postBroadcast(t, s.URL, "from the server"); got != `{"sent":1}` {
		t.Errorf("broadcast answered %s, want 1 sent", got)
	}
	if line := readLine(t, ctx, ann); line["from"] != "server" || line["text"] != "from the server" {
		t.Errorf("got %v, want the server's line", line)
	}
	if ev := s.seenEvent("iam_denied"); ev != nil {
		t.Errorf("the allowed broadcast was refused: %v", ev)
	}

	// The WebSocket server itself, as any local process reaches it.
	u, err := url.Parse(wsURL)
	if err != nil {
		t.Fatal(err)
	}
	direct := "http://" + u.Host + u.Path + "/@connections/" + url.PathEscape(id)
	for _, signed := range []bool{false, true} {
		if status, body := postManagement(t, ctx, direct, `{"from":"intruder","text":"direct"}`, signed); status != 403 || body != `{"message":"Forbidden"}` {
			t.Errorf("POST %s (signed with made-up credentials: %v): %d %s, want API Gateway's 403 {\"message\":\"Forbidden\"}", direct, signed, status, body)
		}
	}
	// The management endpoint the functions are given: the IAM check.
	mgmt, _ := s.seenEvent("websocket")["management_url"].(string)
	if m, err := url.Parse(mgmt); err != nil || mgmt == "" || m.Port() == u.Port() {
		t.Errorf("management_url %q, want the IAM check's endpoint, not the WebSocket server", mgmt)
	}
	for _, signed := range []bool{false, true} {
		if status, body := postManagement(t, ctx, mgmt+"/@connections/"+url.PathEscape(id), `{"from":"intruder","text":"through the check"}`, signed); status != 403 {
			t.Errorf("POST through the management endpoint (signed with made-up credentials: %v): %d %s, want 403", signed, status, body)
		}
	}

	postBroadcast(t, s.URL, "after")
	if line := readLine(t, ctx, ann); line["text"] != "after" {
		t.Errorf("the client's next message is %v, want the next broadcast: a refused call reached it", line)
	}
}

// TestLocalWebSocketManagementDenied: with a hand-written policy that
// gives no execute-api:ManageConnections (autogen_policy false), the
// chat example's broadcast gets API Gateway's 403 AccessDeniedException
// from the IAM check, as the deployed role would, with an iam_denied line
// naming the function, the action and the connection's ARN; the client
// receives nothing (its next message is the answer to its own).
func TestLocalWebSocketManagementDenied(t *testing.T) {
	dir := chatProject(t)
	writeFile(t, filepath.Join(dir, ".framework", "config.json"), `{"version": "1.0", "app_name": "chat", "stages": {"dev": {"autogen_policy": false}}}`)
	writeFile(t, filepath.Join(dir, ".framework", "policy.json"),
		`{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["dynamodb:*"], "Resource": ["arn:aws:dynamodb:*:*:table/chat-dev-connections"]}]}`)
	s, wsURL := startChatIn(t, dir)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	ann := dialChat(t, ctx, wsURL, "ann")
	id := connectedID(t, s)

	resp, err := http.Post(s.URL+"/broadcast", "application/json", strings.NewReader(`{"text":"refused"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 500 {
		t.Errorf("POST /broadcast: %d %s, want the route's error; events %v", resp.StatusCode, b, s.seen)
	}
	ev := s.waitDenied(t, "api", time.Minute)
	want := "arn:aws:execute-api:us-east-1:123456789012:local/dev/POST/@connections/" + id
	if ev["action"] != "execute-api:ManageConnections" || ev["resource"] != want || !strings.Contains(fmt.Sprint(ev["allow"]), "policy.json") {
		t.Errorf("iam_denied %v, want execute-api:ManageConnections on %s and what would grant it", ev, want)
	}
	if err := ann.Write(ctx, websocket.MessageText, []byte(`{"action":"dance"}`)); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, ctx, ann); line["message"] != "Forbidden" {
		t.Errorf("the client's next message is %v, want the answer to its unrouted message: the refused broadcast reached it", line)
	}
	// The connections handle's error says what is missing.
	for out := s.stderr.String(); !strings.Contains(out, "403 forbidden: the function's role lacks execute-api:ManageConnections") ||
		!strings.Contains(out, "is not authorized to perform: execute-api:ManageConnections"); out = s.stderr.String() {
		select {
		case <-ctx.Done():
			t.Fatalf("the app's output lacks the connections handle's 403 naming the action:\n%s", out)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startChatIn is startChat for the chat project in dir.
func startChatIn(t *testing.T, dir string) (*localServer, string) {
	t.Helper()
	moto := mototest.Start(t)
	s := startLocal(t, dir, motoEnv(t, moto), "--aws-endpoint", moto.URL, "--ws-port", "0")
	ev := s.seenEvent("websocket")
	if ev == nil {
		t.Fatalf("framework local announced no WebSocket API; events: %v", s.seen)
	}
	return s, ev["url"].(string)
}
