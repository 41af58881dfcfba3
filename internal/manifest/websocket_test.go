package manifest

import "testing"

// TestRouteSelection: the expressions API Gateway accepts for a WebSocket
// API, a field of the JSON message body, and others refused.
func TestRouteSelection(t *testing.T) {
	for expr, ok := range map[string]bool{
		"$request.body.action": true, "$request.body.a.b_2": true, "$request.body._x": true,
		"action": false, "$request.body.": false, "$request.body.1x": false, "$request.body.a..b": false,
		"$request.header.x": false, "$request.body.a-b": false,
	} {
		if validRouteSelection(expr) != ok {
			t.Errorf("validRouteSelection(%q) = %v, want %v", expr, !ok, ok)
		}
	}
}
