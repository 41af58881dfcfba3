package names

// The app's WebSocket API.
const (
	// EnvWebSocketEndpoint is the management endpoint of the app's
	// WebSocket API, which the connections handle calls:
	// https://{api}.execute-api.{region}.amazonaws.com/{stage} deployed,
	// http://127.0.0.1:{port}/{stage} under `framework local`.
	EnvWebSocketEndpoint = "FRAMEWORK_WEBSOCKET_ENDPOINT"
	// OutputWebSocketURL is the stage stack's output holding the WebSocket
	// API's wss:// URL, only when the app declares WebSocket handlers.
	OutputWebSocketURL = "WebSocketURL"
	// OutputWebSocketAPIID is the WebSocket API's id.
	OutputWebSocketAPIID = "WebSocketAPIId"
)
