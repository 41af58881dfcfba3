package local

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/localiam"
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
	req, _ := http.NewRequest("DELETE", ws.endpoint()+"/@connections/"+url.PathEscape(id), nil)
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

// TestManagementRequiresToken: with the IAM check on, the WebSocket
// server takes management calls only with the token the check's proxy
// adds: a local process calling it directly, unsigned or signed with
// made-up credentials, or on another stage, gets API Gateway's 403
// {"message":"Forbidden"} and the client receives nothing; the proxy's
// call is delivered.
func TestManagementRequiresToken(t *testing.T) {
	s := &supervisor{o: Options{Host: "127.0.0.1", Stage: "dev", Stdout: io.Discard, Stderr: io.Discard}}
	ws, err := s.startWebSocket()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	ws.token = "tok3n"
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
	post := func(path, text string, hdr ...string) (int, string) {
		req, _ := http.NewRequest("POST", "http://127.0.0.1:"+fmt.Sprint(ws.port)+path, strings.NewReader(text))
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	path := "/dev/@connections/" + url.PathEscape(id)
	for name, hdr := range map[string][]string{
		"unsigned":          nil,
		"made-up signature": {"Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=00"},
		"wrong token":       {localiam.ManagementTokenHeader, "guess"},
	} {
		if status, body := post(path, "from "+name, hdr...); status != 403 || body != `{"message":"Forbidden"}` {
			t.Errorf("%s: %d %s, want 403 Forbidden", name, status, body)
		}
	}
	if status, body := post("/prod/@connections/"+url.PathEscape(id), "another stage", localiam.ManagementTokenHeader, "tok3n"); status != 403 {
		t.Errorf("another stage: %d %s, want 403", status, body)
	}
	if status, body := post(path, "from the proxy", localiam.ManagementTokenHeader, "tok3n"); status != 200 {
		t.Fatalf("with the token: %d %s", status, body)
	}
	if _, b, err := c.Read(ctx); err != nil || string(b) != "from the proxy" {
		t.Errorf("the client read %q (%v), want the proxy's message first: a refused call reached it", b, err)
	}
}
