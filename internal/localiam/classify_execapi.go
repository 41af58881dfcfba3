package localiam

import (
	"net/http"
	"net/url"
	"strings"
)

// ServiceExecuteAPI is the signing name of API Gateway's management API
// (the WebSocket API's @connections calls: PostToConnection,
// GetConnection, DeleteConnection), which the connections handle signs
// its calls for.
const ServiceExecuteAPI = "execute-api"

// ManagementTokenHeader is the header in which the proxy gives the local
// WebSocket server its per-run token (WebSocket.Token) on the management
// calls it checked and sends on: the server refuses those that lack it,
// so that only calls the check allowed reach the connections.
const ManagementTokenHeader = "X-Framework-Local-Management-Token"

// connectionsOps are the management API's operations by method.
var connectionsOps = map[string]string{http.MethodPost: "PostToConnection", http.MethodGet: "GetConnection", http.MethodDelete: "DeleteConnection"}

// ConnectionsPath reads an escaped request path of the management API,
// /STAGE/@connections/ID (as API Gateway's endpoint is
// https://API.execute-api.REGION.amazonaws.com/STAGE): the stage and the
// connection id, unescaped; ok is false for any other path. The proxy and
// the local WebSocket server read the path with it alike.
func ConnectionsPath(escaped string) (stage, id string, ok bool) {
	parts := strings.Split(escaped, "/")
	if len(parts) != 4 || parts[0] != "" {
		return "", "", false
	}
	stage, err1 := url.PathUnescape(parts[1])
	at, err2 := url.PathUnescape(parts[2])
	id, err3 := url.PathUnescape(parts[3])
	if err1 != nil || err2 != nil || err3 != nil || at != "@connections" || stage == "" || id == "" || strings.Contains(stage, "/") {
		return "", "", false
	}
	return stage, id, true
}

// ConnectionsURLPath is the escaped path of connection id in stage, as
// the proxy sends it on: what it checked, in one spelling.
func ConnectionsURLPath(stage, id string) string {
	return "/" + url.PathEscape(stage) + "/@connections/" + url.PathEscape(id)
}

// classifyExecAPI reads a call of the management API of the app's local
// WebSocket API: execute-api:ManageConnections on the connection's ARN,
// which for @connections has the REST APIs' form
// (arn:PARTITION:execute-api:REGION:ACCOUNT:API/STAGE/METHOD/@connections/ID),
// as the deployed role's statement names it (API/STAGE/*/@connections/*).
// It is forwarded with the path it was checked by.
func classifyExecAPI(c *Call, r *http.Request, e Env) error {
	c.Operation = connectionsOps[r.Method]
	switch {
	case e.WebSocketAPI == "":
		return unmodeled("the app runs no local WebSocket API: the check models only its @connections calls (the connections handle's)")
	case c.Operation == "":
		return unmodeled("the @connections API takes POST, GET and DELETE, not %s", r.Method)
	case r.URL.RawQuery != "" || r.URL.Fragment != "":
		return unmodeled("the @connections API takes no query parameters")
	}
	stage, id, ok := ConnectionsPath(r.URL.EscapedPath())
	if !ok {
		return unmodeled("the path %q is not /STAGE/@connections/ID", r.URL.EscapedPath())
	}
	c.add("execute-api:ManageConnections", e.arn("execute-api", e.WebSocketAPI+"/"+stage+"/"+r.Method+"/@connections/"+id))
	c.Path = ConnectionsURLPath(stage, id)
	return nil
}
