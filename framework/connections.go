package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/names"
)

// Connections reaches the connections of the app's WebSocket API through
// API Gateway's management API (signed with the function's credentials:
// the functions that use it get execute-api:ManageConnections on the
// app's WebSocket API only). Under `framework local` it reaches the local
// WebSocket server the same way. Get it with App.Connections; it is safe
// for concurrent use.
type Connections struct {
	app string
}

// ErrConnectionGone is the error of a call on a connection that is closed
// or never existed (API Gateway's GoneException, 410): a broadcast drops
// such ids from its list.
var ErrConnectionGone = errors.New("the WebSocket connection is gone")

// ConnectionInfo describes an open connection (Connections.Describe).
type ConnectionInfo struct {
	// ConnectedAt is when it opened; LastActiveAt when the client last
	// sent a message.
	ConnectedAt, LastActiveAt time.Time
	// SourceIP and UserAgent are the client's.
	SourceIP, UserAgent string
}

// Send sends data to the connection id as one message (a text frame;
// API Gateway takes at most 128 KB, in 32 KB frames).
func (c *Connections) Send(ctx context.Context, id string, data []byte) error {
	if data == nil {
		data = []byte{}
	}
	_, err := c.call(ctx, http.MethodPost, id, data)
	return err
}

// SendJSON sends v, encoded as JSON, to the connection id.
func (c *Connections) SendJSON(ctx context.Context, id string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("websocket send to %s: encoding the message: %w", id, err)
	}
	return c.Send(ctx, id, b)
}

// Close closes the connection id; its $disconnect handler runs.
func (c *Connections) Close(ctx context.Context, id string) error {
	_, err := c.call(ctx, http.MethodDelete, id, nil)
	return err
}

// Describe returns what API Gateway knows of the open connection id.
func (c *Connections) Describe(ctx context.Context, id string) (ConnectionInfo, error) {
	out, err := c.call(ctx, http.MethodGet, id, nil)
	if err != nil {
		return ConnectionInfo{}, err
	}
	var raw struct {
		ConnectedAt  time.Time `json:"connectedAt"`
		LastActiveAt time.Time `json:"lastActiveAt"`
		Identity     struct {
			SourceIP  string `json:"sourceIp"`
			UserAgent string `json:"userAgent"`
		} `json:"identity"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return ConnectionInfo{}, fmt.Errorf("websocket describe %s: decoding the answer: %w", id, err)
	}
	return ConnectionInfo{ConnectedAt: raw.ConnectedAt, LastActiveAt: raw.LastActiveAt, SourceIP: raw.Identity.SourceIP, UserAgent: raw.Identity.UserAgent}, nil
}

// call makes one call of the management API on connection id.
func (c *Connections) call(ctx context.Context, method, id string, body []byte) ([]byte, error) {
	op := map[string]string{http.MethodPost: "send", http.MethodDelete: "close", http.MethodGet: "describe"}[method]
	fail := func(format string, args ...any) error {
		return fmt.Errorf("websocket %s %s: "+format, append([]any{op, id}, args...)...)
	}
	if id == "" {
		return nil, fail("the connection id is empty: use WebSocketRequest.ConnectionID, as the connect handler got it")
	}
	endpoint := os.Getenv(names.EnvWebSocketEndpoint)
	if endpoint == "" {
		return nil, fail("%s is not set: the connections handle works in the app's deployed functions and under `framework local` (it reaches the app's WebSocket API; app %s)", names.EnvWebSocketEndpoint, c.app)
	}
	u := strings.TrimRight(endpoint, "/") + "/@connections/" + url.PathEscape(id)
	status, out, err := awscall.FromEnv().Request(ctx, "execute-api", method, u, body)
	if err != nil {
		return nil, fail("%w", err)
	}
	switch {
	case status < 300:
		return out, nil
	case status == http.StatusGone || status == http.StatusNotFound:
		return nil, fail("%w", ErrConnectionGone)
	case status == http.StatusForbidden:
		return nil, fail("403 forbidden: the function's role lacks execute-api:ManageConnections on the app's WebSocket API (%s)", strings.TrimSpace(string(out)))
	}
	return nil, fail("HTTP %d: %s", status, strings.TrimSpace(string(out)))
}
