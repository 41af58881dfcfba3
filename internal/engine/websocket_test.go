package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestSynthChatExample synthesizes examples/chat: a WebSocket API
// (protocol WEBSOCKET, the route selection expression), one route with
// its Lambda proxy integration and invoke permission per WebSocket
// handler, an auto-deployed stage after its routes, the wss:// URL and
// the API's id in the outputs, the management endpoint in the
// environment of the functions, execute-api:ManageConnections on the
// API's connections only and only in the roles of the functions whose
// code uses the handle (the API's function for POST /broadcast, say);
// cfn-lint finds no error.
func TestSynthChatExample(t *testing.T) {
	t.Setenv(build.CacheDirEnv, t.TempDir())
	res, err := Synth(context.Background(), Options{ProjectDir: filepath.Join(testutil.RepoRoot(t), "examples", "chat"), OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tpl := readTemplate(t, res.TemplatePath)
	count := map[string]int{}
	var api resource
	routes := map[string]resource{}
	for _, r := range tpl.Resources {
		count[r.Type]++
		switch r.Type {
		case "AWS::ApiGatewayV2::Api":
			api = r
		case "AWS::ApiGatewayV2::Route":
			routes[r.Properties["RouteKey"].(string)] = r
		}
	}
	for typ, n := range map[string]int{"AWS::ApiGatewayV2::Api": 1, "AWS::ApiGatewayV2::Route": 3, "AWS::ApiGatewayV2::Integration": 3, "AWS::ApiGatewayV2::Stage": 1, "AWS::DynamoDB::Table": 1} {
		if count[typ] != n {
			t.Errorf("%d %s in the stack, want %d", count[typ], typ, n)
		}
	}
	if api.Properties["ProtocolType"] != "WEBSOCKET" || api.Properties["RouteSelectionExpression"] != "$request.body.action" {
		t.Errorf("WebSocket API properties %v", api.Properties)
	}
	for _, k := range []string{"$connect", "$disconnect", "sendmessage"} {
		if _, ok := routes[k]; !ok {
			t.Errorf("no route %s", k)
		}
	}
	for _, out := range []string{names.OutputWebSocketURL, names.OutputWebSocketAPIID} {
		if _, ok := tpl.Outputs[out]; !ok {
			t.Errorf("no output %s", out)
		}
	}
	if u := jsonOf(t, tpl.Outputs[names.OutputWebSocketURL]); !strings.Contains(u, "ApiEndpoint") || !strings.Contains(u, "/dev") {
		t.Errorf("WebSocketURL output %s: want the API's endpoint and its stage", u)
	}
	// ManageConnections: only in the roles of api and say, on the API's
	// connections.
	var granted []string
	for id, r := range tpl.Resources {
		if r.Type != "AWS::IAM::Role" {
			continue
		}
		pols, _ := r.Properties["Policies"].([]any)
		for _, p := range pols {
			doc, _ := p.(map[string]any)["PolicyDocument"].(map[string]any)
			stmts, _ := doc["Statement"].([]any)
			for _, s := range stmts {
				st, _ := s.(map[string]any)
				if !slices.Contains(listOf(st["Action"]), "execute-api:ManageConnections") {
					continue
				}
				granted = append(granted, id)
				res := jsonOf(t, st["Resource"])
				if !strings.Contains(res, "WebSocketApi") || !strings.Contains(res, "/dev/*/@connections/*") {
					t.Errorf("%s grants ManageConnections on %s, want the WebSocket API's connections only", id, res)
				}
			}
		}
	}
	slices.Sort(granted)
	if len(granted) != 2 || !strings.HasPrefix(granted[0], "AppFnsayRole") || !strings.HasPrefix(granted[1], "AppRole") {
		t.Errorf("ManageConnections granted in %v, want the API's role and say's", granted)
	}
	// Every function knows the management endpoint.
	for id, r := range tpl.Resources {
		if r.Type != "AWS::Lambda::Function" {
			continue
		}
		b, _ := json.Marshal(r.Properties["Environment"])
		if !strings.Contains(string(b), names.EnvWebSocketEndpoint) {
			t.Errorf("function %s lacks %s", id, names.EnvWebSocketEndpoint)
		}
	}
	cfnLint(t, res.TemplatePath)
}
