package localiam

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
)

// The @connections calls of the local WebSocket API are
// execute-api:ManageConnections on the connection's ARN, in the REST
// APIs' form API/STAGE/METHOD/@connections/ID; any other request of the
// service is refused as not modelled.
func TestClassifyExecAPI(t *testing.T) {
	env := testEnv
	env.WebSocketAPI = "local"
	for _, tc := range []struct {
		method, target string
		env            Env
		want, path     string // want "" for refused
	}{
		{"POST", "http://127.0.0.1:9/dev/@connections/SxbAPdTjIAMCJdA=", env,
			"execute-api:ManageConnections arn:aws:execute-api:us-east-1:123456789012:local/dev/POST/@connections/SxbAPdTjIAMCJdA=", "/dev/@connections/SxbAPdTjIAMCJdA="},
		{"GET", "http://127.0.0.1:9/dev/%40connections/a%2Fb%2B", env,
			"execute-api:ManageConnections arn:aws:execute-api:us-east-1:123456789012:local/dev/GET/@connections/a/b+", "/dev/@connections/a%2Fb+"},
		{"DELETE", "http://127.0.0.1:9/prod/@connections/x", env,
			"execute-api:ManageConnections arn:aws:execute-api:us-east-1:123456789012:local/prod/DELETE/@connections/x", "/prod/@connections/x"},
		{"POST", "http://127.0.0.1:9/dev/@connections/x", testEnv, "", ""},                    // no local WebSocket API
		{"PATCH", "http://127.0.0.1:9/dev/@connections/x", env, "", ""},                       // no such operation
		{"POST", "http://127.0.0.1:9/@connections/x", env, "", ""},                            // no stage
		{"POST", "http://127.0.0.1:9/dev/@connections/x/y", env, "", ""},                      // more after the id
		{"POST", "http://127.0.0.1:9/dev/@connections/x?id=/dev/@connections/y", env, "", ""}, // a query
		{"POST", "http://127.0.0.1:9/dev/other/x", env, "", ""},
	} {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		c, err := Classify(r, nil, "execute-api", tc.env)
		got := checks(c)
		if err != nil {
			got = ""
		}
		if got != tc.want || (err == nil && c.Path != tc.path) {
			t.Errorf("%s %s: checks %q path %q (%v), want %q path %q", tc.method, tc.target, got, c.Path, err, tc.want, tc.path)
		}
	}
}

// wsUpstream is a stand-in for the local WebSocket server: it records the
// management calls it gets, with the token header.
type wsUpstream struct {
	*httptest.Server
	mu    sync.Mutex
	calls []string // "METHOD PATH TOKEN AUTHORIZATION"
}

func startWSUpstream(t *testing.T) *wsUpstream {
	u := &wsUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.calls = append(u.calls, r.Method+" "+r.URL.EscapedPath()+" "+r.Header.Get(ManagementTokenHeader)+" "+r.Header.Get("Authorization"))
		u.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *wsUpstream) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.calls...)
}

// Through the proxy, a function whose role allows ManageConnections on the
// local API's connections reaches the WebSocket server, with the token and
// no AWS signature; one whose role does not gets API Gateway's 403
// AccessDeniedException and a Denied report, and an unsigned call is
// refused: neither reaches the server.
func TestProxyManageConnections(t *testing.T) {
	ws := startWSUpstream(t)
	moto := startUpstream(t, func(w http.ResponseWriter, r *http.Request) { t.Errorf("the emulator got %s %s", r.Method, r.URL) })
	m := &manifest.Manifest{App: "chat", WebSocket: &manifest.WebSocket{RouteSelection: manifest.DefaultRouteSelection}}
	var pols perms.Policies
	for _, name := range []string{"broadcast", "other"} {
		f := perms.FunctionPolicy{Function: name}
		if name == "broadcast" {
			f.Statements = []perms.Statement{{Sid: "WebSocketConnections", Actions: []string{"execute-api:ManageConnections"},
				Resources: []perms.Resource{{Ref: perms.WebSocketRef, Attr: manifest.AttrConnectionsARN}}}}
		}
		pols.Functions = append(pols.Functions, f)
	}
	target := Target{Upstream: moto.URL, Region: "us-east-1", Env: Env{Region: "us-east-1", Account: "123456789012"},
		Credentials: func(context.Context) (awscall.Credentials, error) { return realCreds, nil }}
	attrs := withWebSocket(&target, nil, &WebSocket{APIID: "local", Stage: "dev", Endpoint: ws.URL, Token: "tok3n"})
	d := FromPerms(&pols, m, attrs)
	target.Policies, target.Hint = d, d.Hint
	rec := &recorder{}
	p, err := Start(Options{Target: target, Denied: func(d Denied) { rec.mu.Lock(); rec.denied = append(rec.denied, d); rec.mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	ctx := context.Background()
	as := func(fn string) awscall.Config {
		return awscall.Config{Region: "us-east-1", Credentials: awscall.Credentials{AccessKeyID: envOf(p, fn, "AWS_ACCESS_KEY_ID"), SecretAccessKey: envOf(p, fn, "AWS_SECRET_ACCESS_KEY")}}
	}
	endpoint := p.URL + "/dev/@connections/"

	if status, out, err := as("broadcast").Request(ctx, "execute-api", "POST", endpoint+"c%2F1", []byte("hi")); err != nil || status != 200 {
		t.Errorf("allowed PostToConnection: %d %s %v", status, out, err)
	}
	status, out, err := as("other").Request(ctx, "execute-api", "POST", endpoint+"c2", []byte("hi"))
	var denied struct{ Message string }
	_ = json.Unmarshal(out, &denied)
	if err != nil || status != http.StatusForbidden || !strings.Contains(denied.Message,
		"execute-api:ManageConnections on resource: arn:aws:execute-api:us-east-1:123456789012:local/dev/POST/@connections/c2") {
		t.Errorf("PostToConnection without the grant: %d %s %v, want 403 naming the action and the connection", status, out, err)
	}
	if lines := rec.deniedLines(); len(lines) != 1 || !strings.Contains(lines[0], "function other may not execute-api:ManageConnections") ||
		!strings.Contains(lines[0], "connections handle") {
		t.Errorf("denied lines %q, want one for function other, with the hint", lines)
	}
	// The stage is part of the ARN: another stage's connections are not
	// the role's.
	if status, out, _ := as("broadcast").Request(ctx, "execute-api", "DELETE", p.URL+"/prod/@connections/c1", nil); status != http.StatusForbidden {
		t.Errorf("DeleteConnection on another stage: %d %s, want 403", status, out)
	}
	resp, err := http.Post(endpoint+"c1", "application/json", strings.NewReader("hi"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("an unsigned call: %d %s, want 403", resp.StatusCode, b)
	}
	if got := ws.seen(); len(got) != 1 || got[0] != "POST /dev/@connections/c%2F1 tok3n " {
		t.Errorf("the WebSocket server got %q, want the allowed call alone, with the token and no signature", got)
	}
}
