package localiam

import (
	"maps"

	"github.com/framework-dev/framework/internal/manifest"
)

// WebSocket is the app's local WebSocket API as the proxy sees it: the
// connections handle's calls (execute-api, /STAGE/@connections/ID) are
// checked like every other AWS call, against the ARNs of its
// connections, and the allowed ones sent to its server with Token.
type WebSocket struct {
	// APIID and Stage name the API in its connections' ARNs.
	APIID, Stage string
	// Endpoint is the local server's URL (http://127.0.0.1:PORT), where
	// the allowed calls go.
	Endpoint string
	// Token is what the server requires in ManagementTokenHeader; it is
	// new each run and no function process has it.
	Token string
}

// withWebSocket completes the target t of an app running the local
// WebSocket API ws (nil: none): the classifier names its connections, the
// proxy sends their allowed calls to it, and attrs (the declared
// resources' attributes, left unchanged) gain the ARN the functions'
// ManageConnections statements name (perms.WebSocketRef's
// manifest.AttrConnectionsARN), with the form the deployed stack gives
// it: arn:PARTITION:execute-api:REGION:ACCOUNT:API/STAGE/*/@connections/*.
func withWebSocket(t *Target, attrs map[string]map[string]string, ws *WebSocket) map[string]map[string]string {
	if ws == nil {
		return attrs
	}
	t.WebSocket = ws
	t.Env.WebSocketAPI = ws.APIID
	env := t.Env
	if env.Region == "" {
		env.Region = t.Region
	}
	out := maps.Clone(attrs)
	if out == nil {
		out = map[string]map[string]string{}
	}
	out[manifest.WebSocketRef] = map[string]string{manifest.AttrConnectionsARN: env.arn(ServiceExecuteAPI, ws.APIID+"/"+ws.Stage+"/*/@connections/*")}
	return out
}
