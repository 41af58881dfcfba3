package framework_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

type chatMsg struct {
	Action string `json:"action"`
	Text   string `json:"text"`
}

func wsApp(t *testing.T) (*framework.App, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	note := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
	app := framework.New("chat")
	app.OnWebSocketConnect("connect", func(_ context.Context, r *framework.WebSocketRequest) error {
		name := r.QueryParams.Get("name")
		if name == "" {
			return framework.ForbiddenError{Message: "give ?name="}
		}
		note("connect " + r.ConnectionID + " " + name + " " + r.Headers.Get("user-agent"))
		return nil
	})
	framework.WebSocketRoute(app, "say", "sendmessage", func(_ context.Context, r *framework.WebSocketRequest, m chatMsg) error {
		note("say " + r.ConnectionID + " " + m.Text)
		return nil
	})
	app.OnWebSocketDisconnect("bye", func(_ context.Context, r *framework.WebSocketRequest) error {
		note("bye " + r.ConnectionID + " " + r.DisconnectReason)
		return nil
	})
	return app, &got
}

// TestWebSocketHandlers sends each handler the event API Gateway sends
// (events.APIGatewayWebsocketProxyRequest) and checks its answer: a
// connect handler refuses with its status, reads the query string and
// headers; a typed message handler decodes the body or answers 400.
func TestWebSocketHandlers(t *testing.T) {
	app, got := wsApp(t)
	h := apphook.Of(app)
	ctx := context.Background()
	for _, tc := range []struct {
		handler, event, want string
	}{
		{"connect", `{"headers":{"User-Agent":"test/1"},"queryStringParameters":{"name":"ann"},"requestContext":{"routeKey":"$connect","eventType":"CONNECT","connectionId":"c1"}}`, `{"statusCode":200,"headers":null,"multiValueHeaders":null,"body":""}`},
		{"connect", `{"requestContext":{"routeKey":"$connect","eventType":"CONNECT","connectionId":"c2"}}`, `{"statusCode":403,"headers":{"Content-Type":"application/json"},"multiValueHeaders":null,"body":"{\"Code\":\"ForbiddenError\",\"Message\":\"give ?name=\"}"}`},
		{"say", `{"body":"{\"action\":\"sendmessage\",\"text\":\"hi\"}","requestContext":{"routeKey":"sendmessage","eventType":"MESSAGE","connectionId":"c1"}}`, `{"statusCode":200,"headers":null,"multiValueHeaders":null,"body":""}`},
		{"say", `{"body":"{\"text\":7}","requestContext":{"routeKey":"sendmessage","eventType":"MESSAGE","connectionId":"c1"}}`, ""},
		{"bye", `{"requestContext":{"routeKey":"$disconnect","eventType":"DISCONNECT","connectionId":"c1","disconnectStatusCode":1001,"disconnectReason":"going away"}}`, `{"statusCode":200,"headers":null,"multiValueHeaders":null,"body":""}`},
	} {
		out, err := h.Invoke(ctx, tc.handler, []byte(tc.event))
		if err != nil {
			t.Fatalf("%s: %v", tc.handler, err)
		}
		if tc.want == "" {
			if !strings.Contains(string(out), `"statusCode":400`) || !strings.Contains(string(out), "the message is not a framework_test.chatMsg") {
				t.Errorf("%s with a bad body = %s, want 400 naming the type", tc.handler, out)
			}
			continue
		}
		if string(out) != tc.want {
			t.Errorf("%s = %s\nwant %s", tc.handler, out, tc.want)
		}
	}
	want := []string{"connect c1 ann test/1", "say c1 hi", "bye c1 going away"}
	if strings.Join(*got, "|") != strings.Join(want, "|") {
		t.Errorf("handlers saw %q, want %q", *got, want)
	}
	// An event that is not a WebSocket event fails with what to send.
	if _, err := h.Invoke(ctx, "say", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "connectionId") {
		t.Errorf("empty event: %v", err)
	}
}

// TestWebSocketManifest checks what the CLI reads: one function per
// route with its route key, the route selection expression, and the
// authorizer of $connect as an authorizer function.
func TestWebSocketManifest(t *testing.T) {
	app, _ := wsApp(t)
	app.WebSocket(framework.RouteSelection("$request.body.type"))
	app.Connections()
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.WebSocket == nil || m.WebSocket.RouteSelection != "$request.body.type" || !m.WebSocket.Connections {
		t.Fatalf("websocket = %+v", m.WebSocket)
	}
	keys := map[string]string{}
	for _, f := range m.WebSocketFunctions() {
		keys[f.Name] = f.RouteKey
	}
	if keys["connect"] != "$connect" || keys["say"] != "sendmessage" || keys["bye"] != "$disconnect" || len(keys) != 3 {
		t.Errorf("route keys = %v", keys)
	}

	auth := framework.AppAuthorizer{Name: "gate", IdentitySources: []string{"query.token"}, Func: func(context.Context, framework.AuthRequest) (framework.AuthResult, error) {
		return framework.AuthResult{Allow: true, PrincipalID: "u1"}, nil
	}}
	app2 := framework.New("gated")
	app2.OnWebSocketConnect("connect", func(context.Context, *framework.WebSocketRequest) error { return nil }, framework.ConnectAuthorizer(auth))
	m2, err := apphook.Of(app2).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range m2.Functions {
		kinds = append(kinds, f.Name+":"+string(f.Kind)+":"+f.Authorizer)
	}
	if strings.Join(kinds, " ") != "connect:websocket:gate gate:authorizer:" || m2.WebSocket.RouteSelection != manifest.DefaultRouteSelection {
		t.Errorf("functions = %v, websocket = %+v", kinds, m2.WebSocket)
	}
	// The authorizer answers API Gateway's WebSocket REQUEST event.
	out, err := apphook.Of(app2).Invoke(context.Background(), "gate", []byte(`{"type":"REQUEST","methodArn":"arn:aws:execute-api:us-east-1:1:abc/dev/$connect","queryStringParameters":{"token":"t"},"requestContext":{"routeKey":"$connect","eventType":"CONNECT","connectionId":"c1"}}`))
	if err != nil || !strings.Contains(string(out), `"Effect":"Allow"`) {
		t.Errorf("authorizer = %s, %v", out, err)
	}
}

// TestWebSocketDeclarationErrors: each wrong declaration is named.
func TestWebSocketDeclarationErrors(t *testing.T) {
	ok := func(context.Context, *framework.WebSocketRequest) error { return nil }
	for _, tc := range []struct {
		name    string
		declare func(*framework.App)
		want    string
	}{
		{"handle without handlers", func(a *framework.App) {
			a.Route("/", func(*framework.Request) (any, error) { return nil, nil })
			a.Connections()
		}, "declares no WebSocket handler"},
		{"reserved key", func(a *framework.App) { a.OnWebSocketMessage("m", "$other", ok) }, `route key "$other": a key starting with $ is one of`},
		{"empty key", func(a *framework.App) { a.OnWebSocketMessage("m", "", ok) }, "no route key"},
		{"same key", func(a *framework.App) {
			a.OnWebSocketMessage("m1", "send", ok)
			a.OnWebSocketMessage("m2", "send", ok)
		}, `route key "send" is also the route of WebSocket handler "m1"`},
		{"bad selection", func(a *framework.App) {
			a.OnWebSocketConnect("c", ok)
			a.WebSocket(framework.RouteSelection("action"))
		}, `route selection expression "action": write $request.body.FIELD`},
		{"authorizer off connect", func(a *framework.App) {
			a.OnWebSocketMessage("m", "send", ok, framework.ConnectAuthorizer(framework.AppAuthorizer{Name: "z", Func: func(context.Context, framework.AuthRequest) (framework.AuthResult, error) {
				return framework.AuthResult{}, nil
			}}))
		}, "an authorizer protects only $connect"},
		{"nil handler", func(a *framework.App) { a.OnWebSocketConnect("c", nil) }, "the handler is nil"},
		{"option of another kind", func(a *framework.App) { a.OnWebSocketConnect("c", ok, framework.BatchSize(3)) }, "option BatchSize does not apply to a websocket handler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := framework.New("x")
			tc.declare(app)
			err := app.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want %q", err, tc.want)
			}
			if tc.name == "handle without handlers" && !errors.Is(err, framework.ErrNoWebSocketAPI) {
				t.Errorf("not ErrNoWebSocketAPI: %v", err)
			}
		})
	}
}

// TestConnectionsHandle: the handle calls the management API at the
// endpoint the environment names, signed with the function's credentials
// (SigV4 for execute-api), and a gone connection is ErrConnectionGone.
func TestConnectionsHandle(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		mu.Lock()
		calls = append(calls, r.Method+" "+r.URL.EscapedPath()+" "+string(body)+" signed="+
			map[bool]string{true: "yes", false: "no"}[strings.Contains(auth, "/execute-api/aws4_request")])
		mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/gone"):
			w.WriteHeader(http.StatusGone)
		case r.Method == http.MethodGet:
			io.WriteString(w, `{"connectedAt":"2026-01-02T03:04:05Z","lastActiveAt":"2026-01-02T03:05:00Z","identity":{"sourceIp":"1.2.3.4","userAgent":"ua"}}`)
		}
	}))
	defer srv.Close()
	t.Setenv(names.EnvWebSocketEndpoint, srv.URL+"/dev")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	app, _ := wsApp(t)
	conns := app.Connections()
	ctx := context.Background()
	if err := conns.SendJSON(ctx, "c1=", map[string]string{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	info, err := conns.Describe(ctx, "c1=")
	if err != nil || info.SourceIP != "1.2.3.4" || info.UserAgent != "ua" || info.ConnectedAt.Year() != 2026 {
		t.Errorf("Describe = %+v, %v", info, err)
	}
	if err := conns.Close(ctx, "c1="); err != nil {
		t.Fatal(err)
	}
	if err := conns.Send(ctx, "gone", []byte("x")); !errors.Is(err, framework.ErrConnectionGone) {
		t.Errorf("send to a gone connection = %v, want ErrConnectionGone", err)
	}
	want := []string{`POST /dev/@connections/c1= {"text":"hi"} signed=yes`, "GET /dev/@connections/c1=  signed=yes", "DELETE /dev/@connections/c1=  signed=yes", "POST /dev/@connections/gone x signed=yes"}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	t.Setenv(names.EnvWebSocketEndpoint, "")
	if err := conns.Send(ctx, "c1", nil); err == nil || !strings.Contains(err.Error(), names.EnvWebSocketEndpoint+" is not set") {
		t.Errorf("without an endpoint: %v", err)
	}
}
