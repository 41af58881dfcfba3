package frameworktest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// chat is a small WebSocket app: $connect wants ?name=, "hello" answers
// the sender through the connections handle, "shout" sends every other
// open connection the text, "kick" closes the sender's connection, and
// $disconnect records how each connection ended.
type chat struct {
	app *framework.App

	mu    sync.Mutex
	names map[string]string // by connection id
	ended map[string]string // "1000 reason" by name
	auth  map[string]any    // what the last message's handler got from the authorizer
}

func newChat(withAuthorizer bool) *chat {
	ch := &chat{app: framework.New("chat"), names: map[string]string{}, ended: map[string]string{}}
	conns := ch.app.Connections()
	var opts []framework.FunctionOption
	if withAuthorizer {
		opts = append(opts, framework.ConnectAuthorizer(framework.AppAuthorizer{
			Name: "tokens", IdentitySources: []string{"query.token"},
			Func: func(_ context.Context, r framework.AuthRequest) (framework.AuthResult, error) {
				return framework.AuthResult{Allow: r.QueryParams.Get("token") == "good", PrincipalID: "user-1", Context: map[string]any{"plan": "pro"}}, nil
			},
		}))
	}
	ch.app.OnWebSocketConnect("connect", func(_ context.Context, r *framework.WebSocketRequest) error {
		name := r.QueryParams.Get("name")
		if name == "" {
			return framework.BadRequestError{Message: "connect with ?name=YOUR_NAME"}
		}
		if r.Headers.Get("host") == "" || r.Headers.Get("x-forwarded-proto") != "https" {
			return fmt.Errorf("the handshake lacks API Gateway's headers: %v", r.Headers)
		}
		ch.mu.Lock()
		defer ch.mu.Unlock()
		ch.names[r.ConnectionID] = name
		return nil
	}, opts...)
	ch.app.OnWebSocketDisconnect("disconnect", func(_ context.Context, r *framework.WebSocketRequest) error {
		ch.mu.Lock()
		defer ch.mu.Unlock()
		ch.ended[ch.names[r.ConnectionID]] = fmt.Sprintf("%d %s", r.DisconnectStatusCode, r.DisconnectReason)
		delete(ch.names, r.ConnectionID)
		return nil
	})
	framework.WebSocketRoute(ch.app, "hello", "hello", func(ctx context.Context, r *framework.WebSocketRequest, m struct{ Text string }) error {
		ch.mu.Lock()
		ch.auth = r.Authorizer
		name := ch.names[r.ConnectionID]
		ch.mu.Unlock()
		return conns.SendJSON(ctx, r.ConnectionID, map[string]string{"to": name, "text": "hello " + m.Text})
	})
	framework.WebSocketRoute(ch.app, "shout", "shout", func(ctx context.Context, r *framework.WebSocketRequest, m struct{ Text string }) error {
		ch.mu.Lock()
		var others []string
		for id := range ch.names {
			if id != r.ConnectionID {
				others = append(others, id)
			}
		}
		ch.mu.Unlock()
		for _, id := range others {
			if err := conns.Send(ctx, id, []byte(m.Text)); err != nil {
				return err
			}
		}
		return nil
	})
	ch.app.OnWebSocketMessage("kick", "kick", func(ctx context.Context, r *framework.WebSocketRequest) error {
		return conns.Close(ctx, r.ConnectionID)
	})
	ch.app.OnWebSocketMessage("fail", "fail", func(context.Context, *framework.WebSocketRequest) error {
		return errors.New("broken")
	})
	return ch
}

func (ch *chat) endedAs(name string) string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.ended[name]
}

// TestWebSocketRoundTrip: a test connects (the connect handler refuses a
// handshake without a name with its ViewError's status), sends messages
// that the routes answer through the connections handle, reads them with
// Received, and closes the connection, which runs $disconnect with 1000.
func TestWebSocketRoundTrip(t *testing.T) {
	t.Parallel()
	ch := newChat(false)
	c := frameworktest.New(ch.app)

	if conn, resp := c.Connect("/", nil); conn != nil || resp.StatusCode != 400 || !strings.Contains(string(resp.Body), "YOUR_NAME") {
		t.Fatalf("connect without a name: %d %s, want 400 and the handler's message", resp.StatusCode, resp.Body)
	}
	ann, resp := c.Connect("/?name=ann", map[string]string{"User-Agent": "test-client"})
	if ann == nil || resp.StatusCode != 101 {
		t.Fatalf("connect: %d %s, want 101", resp.StatusCode, resp.Body)
	}
	bob, _ := c.Connect("/?name=bob", nil)
	if bob == nil {
		t.Fatal("bob could not connect")
	}
	if err := ann.SendJSON(map[string]string{"action": "hello", "text": "world"}); err != nil {
		t.Fatal(err)
	}
	if err := ann.Send([]byte(`{"action":"shout","text":"HI"}`)); err != nil {
		t.Fatal(err)
	}
	if got := ann.Received(); len(got) != 1 || string(got[0]) != `{"text":"hello world","to":"ann"}` {
		t.Errorf("ann received %q, want the hello answer", got)
	}
	if got := bob.Received(); len(got) != 1 || string(got[0]) != "HI" {
		t.Errorf("bob received %q, want HI", got)
	}
	if err := ann.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ch.endedAs("ann"); got != "1000 " {
		t.Errorf("$disconnect of ann got %q, want 1000", got)
	}
	if err := ann.Send([]byte("{}")); !errors.Is(err, frameworktest.ErrWebSocketClosed) {
		t.Errorf("Send after Close: %v, want ErrWebSocketClosed", err)
	}
	// ann is gone: bob's shout reaches nobody and fails nothing.
	if err := bob.SendJSON(map[string]string{"action": "shout", "text": "anyone?"}); err != nil {
		t.Errorf("shout to nobody: %v", err)
	}
}

// TestWebSocketAppCloses: a connection the app closes (Connections.Close)
// is closed for the test too, and $disconnect gets API Gateway's 1000
// "Connection Closed Normally".
func TestWebSocketAppCloses(t *testing.T) {
	t.Parallel()
	ch := newChat(false)
	c := frameworktest.New(ch.app)
	conn, resp := c.Connect("/?name=eve", nil)
	if conn == nil {
		t.Fatalf("connect: %d %s", resp.StatusCode, resp.Body)
	}
	if err := conn.SendJSON(map[string]string{"action": "kick"}); err != nil {
		t.Fatal(err)
	}
	if code, reason, closed := conn.Closed(); !closed || code != 1000 || reason != "Connection Closed Normally" {
		t.Errorf("Closed() = %d %q %v, want 1000 \"Connection Closed Normally\" true", code, reason, closed)
	}
	if got := ch.endedAs("eve"); got != "1000 Connection Closed Normally" {
		t.Errorf("$disconnect got %q", got)
	}
}

// TestWebSocketGatewayAnswers: a message no route takes, without a
// $default handler, and a failing handler are errors of Send, and the
// client receives what API Gateway sends it; a typed route's message
// that does not decode is its 400; a message over 128 KB closes the
// connection with 1009.
func TestWebSocketGatewayAnswers(t *testing.T) {
	t.Parallel()
	ch := newChat(false)
	c := frameworktest.New(ch.app)
	conn, _ := c.Connect("/?name=zed", nil)
	if conn == nil {
		t.Fatal("zed could not connect")
	}
	if err := conn.Send([]byte(`{"action":"nowhere"}`)); err == nil || !strings.Contains(err.Error(), "no WebSocket route") {
		t.Errorf("unrouted message: %v", err)
	}
	if err := conn.Send([]byte(`{"action":"fail"}`)); err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("failing handler: %v, want its error", err)
	}
	got := conn.Received()
	if len(got) != 2 || !strings.HasPrefix(string(got[0]), `{"message": "Forbidden"`) || !strings.HasPrefix(string(got[1]), `{"message": "Internal server error"`) {
		t.Errorf("received %q, want API Gateway's Forbidden and Internal server error", got)
	}
	if err := conn.Send([]byte(`{"action":"hello","text":3}`)); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("undecodable message: %v, want the route's 400", err)
	}
	big := `{"action":"hello","text":"` + strings.Repeat("a", 128<<10) + `"}`
	if err := conn.Send([]byte(big)); err == nil || !strings.Contains(err.Error(), "1009") {
		t.Errorf("a message over 128 KB: %v, want a close with 1009", err)
	}
	if got := ch.endedAs("zed"); !strings.HasPrefix(got, "1009 ") {
		t.Errorf("$disconnect got %q, want 1009", got)
	}
}

// TestWebSocketAuthorizer: the $connect authorizer runs as API Gateway
// runs it: a handshake without its identity source is 401, a refusal
// 403, and what an allowing one passes on reaches every handler.
func TestWebSocketAuthorizer(t *testing.T) {
	t.Parallel()
	ch := newChat(true)
	c := frameworktest.New(ch.app)
	for target, want := range map[string]int{"/?name=a": 401, "/?name=a&token=bad": 403} {
		if conn, resp := c.Connect(target, nil); conn != nil || resp.StatusCode != want {
			t.Errorf("%s: %d %s, want %d", target, resp.StatusCode, resp.Body, want)
		}
	}
	conn, resp := c.Connect("/?name=a&token=good", nil)
	if conn == nil {
		t.Fatalf("good token: %d %s", resp.StatusCode, resp.Body)
	}
	if err := conn.SendJSON(map[string]string{"action": "hello", "text": "x"}); err != nil {
		t.Fatal(err)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.auth["principalId"] != "user-1" || ch.auth["plan"] != "pro" {
		t.Errorf("the handler got authorizer %v, want principalId user-1 and plan pro", ch.auth)
	}
}
