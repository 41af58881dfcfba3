package diff

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestWebSocketRouteChanges: a WebSocket route added, one removed and one
// whose authorizer changed are listed by route key with their handler, in
// the text report and in its JSON, and not as HTTP routes.
func TestWebSocketRouteChanges(t *testing.T) {
	route := func(key, handler, auth string) string {
		a := ""
		if auth != "" {
			a = `,"AuthorizationType":"` + auth + `","AuthorizerId":{"Ref":"Auth"}`
		}
		return `{"Type":"AWS::ApiGatewayV2::Route","Properties":{"ApiId":{"Ref":"WebSocketApi"},"RouteKey":"` + key +
			`","OperationName":"` + handler + `","Target":"integrations/x"` + a + `}}`
	}
	api := `"WebSocketApi":{"Type":"AWS::ApiGatewayV2::Api","Properties":{"Name":"shop-ws","ProtocolType":"WEBSOCKET","RouteSelectionExpression":"$request.body.action"}}`
	old := `{"Resources":{` + api + `,"R1":` + route("$connect", "connect", "") + `,"R2":` + route("sendMessage", "send", "") + `}}`
	neu := `{"Resources":{` + api + `,"R1":` + route("$connect", "connect", "CUSTOM") + `,"R3":` + route("$disconnect", "gone", "") + `}}`
	r, err := Templates("shop-dev", []byte(old), []byte(neu))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Routes) != 0 {
		t.Errorf("WebSocket routes listed as HTTP routes: %+v", r.Routes)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	want := "WebSocket routes\n" +
		"  ~ $connect → connect: authorization changed\n" +
		"  + $disconnect → gone\n" +
		"  - sendMessage → send\n"
	if !strings.Contains(text.String(), want) {
		t.Errorf("text report\n%s\nwant it to hold\n%s", text.String(), want)
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		WebSocketRoutes []struct {
			Action, Handler, API string
			RouteKey             string `json:"route_key"`
			Changes              []string
		} `json:"websocket_routes"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range got.WebSocketRoutes {
		lines = append(lines, c.Action+" "+c.RouteKey+" "+c.Handler+" "+strings.Join(c.Changes, ",")+" "+c.API)
	}
	wantJSON := []string{"modify $connect connect authorization WebSocketApi", "add $disconnect gone  WebSocketApi", "remove sendMessage send  WebSocketApi"}
	if strings.Join(lines, "|") != strings.Join(wantJSON, "|") {
		t.Errorf("JSON websocket_routes\n%q\nwant\n%q", lines, wantJSON)
	}
}
