package local

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
)

// wsHandler is a test's WebSocket handler: it gets the event and may
// block; it returns nothing (the function answers 200).
type wsHandler func(ctx context.Context, event map[string]any)

// startTestWS serves the local WebSocket API for handlers by route key
// ($connect, $disconnect, $default...), each run in the test's process
// instead of a function process.
func startTestWS(t *testing.T, handlers map[string]wsHandler) *wsServer {
	t.Helper()
	s := &supervisor{o: Options{Host: "127.0.0.1", Stage: "dev", Stdout: io.Discard, Stderr: io.Discard}}
	ws, err := s.startWebSocket()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.close)
	m := &manifest.Manifest{App: "x", WebSocket: &manifest.WebSocket{RouteSelection: manifest.DefaultRouteSelection}}
	for key := range handlers {
		m.Functions = append(m.Functions, manifest.Function{Name: "fn" + strings.Trim(key, "$"), Kind: manifest.KindWebSocket, RouteKey: key})
	}
	ws.invokeFn = func(ctx context.Context, _ string, fn *manifest.Function, event []byte) (*localres.Outcome, error) {
		var ev map[string]any
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, err
		}
		handlers[fn.RouteKey](ctx, ev)
		return &localres.Outcome{Payload: []byte(`{"statusCode":200}`)}, nil
	}
	ws.update(m, "x")
	return ws
}

// wsURL is the ws:// URL of ws's stage.
func wsURL(ws *wsServer) string { return strings.Replace(ws.endpoint(), "http:", "ws:", 1) }

// disconnects returns a $disconnect handler and the channel of the
// events it gets.
func disconnects() (wsHandler, chan map[string]any) {
	ch := make(chan map[string]any, 4)
	return func(_ context.Context, ev map[string]any) { ch <- ev }, ch
}

// closeCode is the status and reason of a $disconnect event.
func closeCode(t *testing.T, ctx context.Context, ch chan map[string]any) (int, string) {
	t.Helper()
	select {
	case ev := <-ch:
		rc := ev["requestContext"].(map[string]any)
		code, _ := rc["disconnectStatusCode"].(float64)
		reason, _ := rc["disconnectReason"].(string)
		return int(code), reason
	case <-ctx.Done():
		t.Fatal("$disconnect did not run")
		return 0, ""
	}
}

// TestConnectEventHeaders: the $connect event has the headers API
// Gateway adds to the handshake's: Host (as the client sent it; deployed,
// the API's domain), X-Forwarded-For, -Port and -Proto, X-Amzn-Trace-Id,
// in headers and multiValueHeaders both; the client's own headers stay.
func TestConnectEventHeaders(t *testing.T) {
	got := make(chan map[string]any, 1)
	ws := startTestWS(t, map[string]wsHandler{
		manifest.RouteConnect: func(_ context.Context, ev map[string]any) { got <- ev },
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(ws)+"?room=1", &websocket.DialOptions{HTTPHeader: http.Header{"X-Custom": {"yes"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ev := <-got
	headers, _ := ev["headers"].(map[string]any)
	multi, _ := ev["multiValueHeaders"].(map[string]any)
	port := strconv.Itoa(ws.port)
	for k, want := range map[string]string{
		"Host": "127.0.0.1:" + port, "X-Forwarded-For": "127.0.0.1", "X-Forwarded-Port": port,
		"X-Forwarded-Proto": "http", "X-Custom": "yes",
	} {
		if headers[k] != want {
			t.Errorf("headers[%s] = %v, want %q", k, headers[k], want)
		}
		if vs, _ := multi[k].([]any); len(vs) != 1 || vs[0] != want {
			t.Errorf("multiValueHeaders[%s] = %v, want [%q]", k, multi[k], want)
		}
	}
	if tr, _ := headers["X-Amzn-Trace-Id"].(string); !strings.HasPrefix(tr, "Root=1-") {
		t.Errorf("X-Amzn-Trace-Id = %q, want Root=1-...", tr)
	}
}

// TestAppCloseDisconnectStatus: a close the app starts (DELETE
// @connections/ID, Connections.Close) reaches $disconnect with the
// status and reason API Gateway gives it: 1000 "Connection Closed
// Normally", not 1006.
func TestAppCloseDisconnectStatus(t *testing.T) {
	onDisconnect, gone := disconnects()
	ws := startTestWS(t, map[string]wsHandler{manifest.RouteDisconnect: onDisconnect})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, wsURL(ws), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	go func() { _, _, _ = c.Read(ctx) }() // answers the server's close frame, as a client does
	id := connectionID(t, ctx, ws)
	req, _ := http.NewRequest("DELETE", ws.endpoint()+"/@connections/"+url.PathEscape(id), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, reason := closeCode(t, ctx, gone); code != 1000 || reason != "Connection Closed Normally" {
		t.Errorf("$disconnect got %d %q, want 1000 \"Connection Closed Normally\"", code, reason)
	}
}

// connectionID waits for the one open connection of ws and returns its id.
func connectionID(t *testing.T, ctx context.Context, ws *wsServer) string {
	t.Helper()
	for ctx.Err() == nil {
		ws.mu.Lock()
		for k := range ws.conns {
			ws.mu.Unlock()
			return k
		}
		ws.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no connection opened")
	return ""
}

// TestMessagesRunConcurrently: as API Gateway, the handlers of one
// connection's messages run at the same time: each of three blocks until
// all three are in flight, which never happens when they run one at a
// time.
func TestMessagesRunConcurrently(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	inFlight, all := 0, make(chan struct{})
	var bodies []string
	ws := startTestWS(t, map[string]wsHandler{
		manifest.RouteDefault: func(hctx context.Context, ev map[string]any) {
			mu.Lock()
			inFlight++
			bodies = append(bodies, ev["body"].(string))
			if inFlight == 3 {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-hctx.Done():
			case <-ctx.Done():
			}
		},
	})
	c, _, err := websocket.Dial(ctx, wsURL(ws), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for i := range 3 {
		if err := c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, "m%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-all:
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("only %d of 3 messages were in flight at once (%v): the connection's messages run one at a time", inFlight, bodies)
	}
}

// TestFrameLimits: API Gateway takes frames of at most 32 KB and
// messages of at most 128 KB and closes the connection with 1009 on
// more; a 100 KB message in frames of 25 KB is taken whole.
func TestFrameLimits(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 100<<10)
	for _, tc := range []struct {
		name   string
		frames []int // the message's frame sizes
		want   websocket.StatusCode
	}{
		{"100 KB in one frame", []int{100 << 10}, websocket.StatusMessageTooBig},
		{"33 KB in one frame", []int{33 << 10}, websocket.StatusMessageTooBig},
		{"100 KB in 25 KB frames", []int{25 << 10, 25 << 10, 25 << 10, 25 << 10}, -1},
		{"150 KB in 30 KB frames", []int{30 << 10, 30 << 10, 30 << 10, 30 << 10, 30 << 10}, websocket.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			onDisconnect, gone := disconnects()
			got := make(chan int, 1)
			ws := startTestWS(t, map[string]wsHandler{
				manifest.RouteDisconnect: onDisconnect,
				manifest.RouteDefault:    func(_ context.Context, ev map[string]any) { got <- len(ev["body"].(string)) },
			})
			c, _, err := websocket.Dial(ctx, wsURL(ws), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseNow()
			w, err := c.Writer(ctx, websocket.MessageText)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, n := range tc.frames { // each Write is a frame of its own
				msg := bytes.Repeat([]byte("a"), n)
				if _, err := w.Write(msg); err != nil {
					break // the server closed the connection
				}
				total += n
			}
			_ = w.Close()
			if tc.want == -1 {
				if n := <-got; n != len(big) {
					t.Errorf("the handler got %d bytes, want %d", n, len(big))
				}
				return
			}
			if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != tc.want {
				t.Errorf("the client read %v, want a close with %d", err, tc.want)
			}
			if code, reason := closeCode(t, ctx, gone); code != int(tc.want) || reason == "" {
				t.Errorf("$disconnect got %d %q, want %d and a reason", code, reason, tc.want)
			}
			select {
			case n := <-got:
				t.Errorf("the handler got a message of %d bytes", n)
			default:
			}
		})
	}
}

// rawConn is a WebSocket client connection over a bare net.Conn, for
// frames a WebSocket library will not send.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

// dialRaw opens a WebSocket connection to ws by hand.
func dialRaw(t *testing.T, ws *wsServer) *rawConn {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(ws.port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	fmt.Fprintf(conn, "GET /dev HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		ws.port, base64.StdEncoding.EncodeToString(key))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %s", resp.Status)
	}
	return &rawConn{Conn: conn, br: br}
}

// frame writes one masked frame with opcode and payload, its header
// announcing size bytes.
func (c *rawConn) frame(t *testing.T, opcode byte, size uint64, payload []byte) {
	t.Helper()
	b := []byte{0x80 | opcode}
	switch {
	case size < 126:
		b = append(b, 0x80|byte(size))
	case size <= 0xffff:
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(size))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, size)
	}
	mask := []byte{1, 2, 3, 4}
	b = append(b, mask...)
	for i, x := range payload {
		b = append(b, x^mask[i%4])
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
}

// closeFrame reads frames from the server until its close frame,
// answers it as a client does, and returns its status code (0: the
// connection ended without one).
func (c *rawConn) closeFrame(t *testing.T) int {
	t.Helper()
	// A bound for a server that never answers, so that the test fails
	// rather than hangs.
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			t.Logf("reading a frame: %v", err)
			return 0
		}
		n := int(h[1] & 0x7f)
		switch n {
		case 126:
			var l [2]byte
			_, _ = io.ReadFull(c.br, l[:])
			n = int(binary.BigEndian.Uint16(l[:]))
		case 127:
			var l [8]byte
			_, _ = io.ReadFull(c.br, l[:])
			n = int(binary.BigEndian.Uint64(l[:]))
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(c.br, payload); err != nil {
			t.Logf("reading a frame: %v", err)
			return 0
		}
		if h[0]&0x0f == 8 && n >= 2 {
			c.frame(t, 8, 2, payload[:2])
			return int(binary.BigEndian.Uint16(payload))
		}
	}
}

// TestInvalidUTF8Closes1007: a text frame that is not UTF-8 fails the
// connection with 1007 (RFC 6455 section 8.1), and its handler is not
// invoked with U+FFFD in its place.
func TestInvalidUTF8Closes1007(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	onDisconnect, gone := disconnects()
	got := make(chan string, 1)
	ws := startTestWS(t, map[string]wsHandler{
		manifest.RouteDisconnect: onDisconnect,
		manifest.RouteDefault:    func(_ context.Context, ev map[string]any) { got <- ev["body"].(string) },
	})
	c := dialRaw(t, ws)
	c.frame(t, 1, 4, []byte{'o', 'k', 0xff, 0xfe})
	if code := c.closeFrame(t); code != 1007 {
		t.Errorf("the server closed with %d, want 1007", code)
	}
	if code, _ := closeCode(t, ctx, gone); code != 1007 {
		t.Errorf("$disconnect got %d, want 1007", code)
	}
	select {
	case body := <-got:
		t.Errorf("the handler got %q", body)
	default:
	}
}

// TestHugeFrameHeaderCloses1009: a frame header announcing 2^63-1 bytes
// closes the connection with 1009 at once, without waiting for a payload
// that will not come.
func TestHugeFrameHeaderCloses1009(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	onDisconnect, gone := disconnects()
	ws := startTestWS(t, map[string]wsHandler{manifest.RouteDisconnect: onDisconnect})
	c := dialRaw(t, ws)
	c.frame(t, 2, 1<<63-1, nil)
	if code := c.closeFrame(t); code != 1009 {
		t.Errorf("the server closed with %d, want 1009", code)
	}
	if code, _ := closeCode(t, ctx, gone); code != 1009 {
		t.Errorf("$disconnect got %d, want 1009", code)
	}
}
