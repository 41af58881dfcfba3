package eventsample

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/manifest"
)

// WebSocket is the event API Gateway sends the handler of routeKey of a
// WebSocket API: a handshake for $connect (with a query string), the end
// of a connection for $disconnect, a JSON message selected by
// routeSelection otherwise.
func WebSocket(routeKey, routeSelection string) events.APIGatewayWebsocketProxyRequest {
	const connectedAt = 1704164400000 // 2024-01-02T03:00:00Z
	rc := events.APIGatewayWebsocketProxyRequestContext{
		RouteKey: routeKey, EventType: "MESSAGE", MessageDirection: "IN", Stage: "dev",
		ConnectionID: "SxbAPdTjIAMCJdA=", RequestID: "SxbAPGsHoAMFpSg=", ExtendedRequestID: "SxbAPGsHoAMFpSg=",
		APIID: "sample", DomainName: fmt.Sprintf("sample.execute-api.%s.amazonaws.com", Region),
		ConnectedAt: connectedAt, RequestTimeEpoch: connectedAt + 1000, RequestTime: "02/Jan/2024:03:00:01 +0000",
		Identity: events.APIGatewayRequestIdentity{SourceIP: "192.0.2.10", UserAgent: "sample-client/1.0"},
	}
	ev := events.APIGatewayWebsocketProxyRequest{RequestContext: rc}
	switch routeKey {
	case manifest.RouteConnect:
		ev.RequestContext.EventType = "CONNECT"
		ev.Headers = map[string]string{"Host": rc.DomainName, "Sec-WebSocket-Version": "13", "User-Agent": "sample-client/1.0"}
		ev.MultiValueHeaders = map[string][]string{"Host": {rc.DomainName}, "Sec-WebSocket-Version": {"13"}, "User-Agent": {"sample-client/1.0"}}
		ev.QueryStringParameters = map[string]string{"name": "sample"}
		ev.MultiValueQueryStringParameters = map[string][]string{"name": {"sample"}}
	case manifest.RouteDisconnect:
		ev.RequestContext.EventType = "DISCONNECT"
		ev.RequestContext.DisconnectStatusCode = 1001
		reason := "Going away"
		ev.RequestContext.DisconnectReason = &reason
	default:
		ev.RequestContext.MessageID = "SxbBVdTjIAMCJdA="
		msg := map[string]any{"sample": true}
		if routeKey != manifest.RouteDefault {
			// The route selection field holds the route key.
			path := manifest.RouteSelectionPath(routeSelection)
			obj := msg
			for _, field := range path[:len(path)-1] {
				inner := map[string]any{}
				obj[field] = inner
				obj = inner
			}
			obj[path[len(path)-1]] = routeKey
		}
		b, _ := json.Marshal(msg)
		ev.Body = string(b)
	}
	return ev
}
