package stacks

import (
	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/names"
)

// webSocketOutputs adds the WebSocket API's wss:// URL, which `framework
// url` and `deploy` print, and its id, when the app has one.
func webSocketOutputs(a *constructs.App, output func(id string, value *string, desc string)) {
	if a.WebSocketAPI == nil {
		return
	}
	output(names.OutputWebSocketURL, a.WebSocketURL(), "URL of the WebSocket API: clients connect to it")
	output(names.OutputWebSocketAPIID, a.WebSocketAPI.Ref(), "ID of the WebSocket API")
}
