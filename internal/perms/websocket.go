package perms

import "github.com/framework-dev/framework/internal/manifest"

// WebSocketRef is the Ref of a Resource that stands for the app's
// WebSocket API: with manifest.AttrConnectionsARN, the ARN of its
// connections (arn:aws:execute-api:REGION:ACCOUNT:API/STAGE/POST/@connections/*,
// and the other methods), which the construct resolves.
const WebSocketRef = manifest.WebSocketRef

// manageConnections gives f execute-api:ManageConnections on the app's
// WebSocket API only, once, with reason why (a connections handle call
// the scan found in f's code).
func (f *fnState) manageConnections(why Reason) {
	for i, s := range f.pol.Statements {
		if s.Sid == "WebSocketConnections" {
			f.pol.Statements[i].Reasons = appendReason(s.Reasons, why)
			return
		}
	}
	f.add(Statement{Sid: "WebSocketConnections", Actions: []string{"execute-api:ManageConnections"},
		Resources: []Resource{{Ref: WebSocketRef, Attr: manifest.AttrConnectionsARN}}, Reasons: []Reason{why}})
}
