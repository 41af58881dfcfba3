package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/names"
)

// TestDeployChatWebSocket deploys examples/chat against the stand-ins:
// the stack has the WebSocket API, and deploy, deploy --json and
// `framework url` give its wss:// URL.
func TestDeployChatWebSocket(t *testing.T) {
	needsCDK(t)
	fake, env := startStandins(t)
	dir := chatProject(t)
	run := cliRunner(t, dir, env)

	out := run(0, "deploy")
	if s := fake.CFN.Status("chat-dev"); s != "CREATE_COMPLETE" {
		t.Fatalf("stack status %s\n%s", s, out)
	}
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	if err := json.Unmarshal([]byte(fake.CFN.Template("chat-dev")), &tpl); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range tpl.Resources {
		if r.Type == "AWS::ApiGatewayV2::Api" && r.Properties["ProtocolType"] == "WEBSOCKET" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the deployed stack has %d WebSocket APIs, want 1", n)
	}
	i := strings.Index(out, "WebSocket URL: wss://")
	if i < 0 {
		t.Fatalf("deploy did not print the WebSocket URL:\n%s", out)
	}
	wss := strings.Fields(out[i+len("WebSocket URL: "):])[0]
	if !strings.HasPrefix(wss, "wss://") || !strings.HasSuffix(wss, ".amazonaws.com/dev") {
		t.Errorf("WebSocket URL %q, want wss://API.execute-api.REGION.amazonaws.com/dev", wss)
	}

	lines := strings.Split(strings.TrimSpace(run(0, "url")), "\n")
	if len(lines) != 2 || lines[1] != wss {
		t.Errorf("framework url printed %q, want the API's URL then %s", lines, wss)
	}
	var res struct {
		WebSocketURL string            `json:"websocket_url"`
		Outputs      map[string]string `json:"outputs"`
	}
	jsonOut, _ := cliRun(t, dir, env, 0, "deploy", "--json")
	last := strings.TrimSpace(jsonOut)
	last = last[strings.LastIndex(last, "\n")+1:]
	if err := json.Unmarshal([]byte(last), &res); err != nil {
		t.Fatalf("deploy --json: %v\n%s", err, jsonOut)
	}
	if res.WebSocketURL != wss || res.Outputs[names.OutputWebSocketURL] != wss {
		t.Errorf("deploy --json websocket_url %q (outputs %v), want %s", res.WebSocketURL, res.Outputs, wss)
	}
}
