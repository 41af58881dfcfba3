package frameworktest_test

import (
	"context"
	"fmt"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// A WebSocket API: Connect runs the handshake through $connect (101, or
// the handler's refusal), Send routes a message to its handler, Received
// is what the app sent back through its connections handle, and Close
// runs $disconnect.
func Example_webSocket() {
	app := framework.New("chat")
	conns := app.Connections()
	app.OnWebSocketConnect("connect", func(_ context.Context, r *framework.WebSocketRequest) error {
		if r.QueryParams.Get("name") == "" {
			return framework.BadRequestError{Message: "connect with ?name=YOUR_NAME"}
		}
		return nil
	})
	framework.WebSocketRoute(app, "echo", "echo", func(ctx context.Context, r *framework.WebSocketRequest, m struct{ Text string }) error {
		return conns.SendJSON(ctx, r.ConnectionID, map[string]string{"echo": m.Text})
	})
	app.OnWebSocketDisconnect("disconnect", func(_ context.Context, r *framework.WebSocketRequest) error {
		fmt.Println("$disconnect:", r.DisconnectStatusCode)
		return nil
	})
	c := frameworktest.New(app)

	_, resp := c.Connect("/", nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	conn, resp := c.Connect("/?name=ann", nil)
	fmt.Println(resp.StatusCode)
	err := conn.SendJSON(map[string]string{"action": "echo", "text": "hi"})
	fmt.Println(err)
	for _, m := range conn.Received() {
		fmt.Println(string(m))
	}
	fmt.Println(conn.Close())
	// Output:
	// 400 {"Code":"BadRequestError","Message":"connect with ?name=YOUR_NAME"}
	// 101
	// <nil>
	// {"echo":"hi"}
	// $disconnect: 1000
	// <nil>
}
