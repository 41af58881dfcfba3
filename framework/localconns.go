package framework

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// What the local HTTP server adds to net/http's: the connections it
// serves are tracked, so that a shutdown closes none without an answer,
// and read through a scanner of their request headers, so that a request
// carrying both Content-Length and Transfer-Encoding (a request-smuggling
// pattern) closes its connection after the answer, as RFC 9112 section
// 6.1 requires. net/http serves such a request by its Transfer-Encoding,
// removes Content-Length and keeps the connection open.

// localConns tracks the connections of one local server.
type localConns struct {
	srv *http.Server
	ln  net.Listener

	mu      sync.Mutex
	open    map[net.Conn]bool
	changed chan struct{} // closed and replaced when open changes
}

// connKey is the request context key of the connection a request came on.
type connKey struct{}

// trackConns makes srv serve through the returned tracker: call Serve on
// its listener and Shutdown on it instead of srv's.
func trackConns(srv *http.Server, l net.Listener) *localConns {
	c := &localConns{srv: srv, ln: &scanListener{Listener: l}, open: map[net.Conn]bool{}, changed: make(chan struct{})}
	srv.ConnState = c.state
	srv.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, conn)
	}
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sc, ok := r.Context().Value(connKey{}).(*scanConn); ok && sc.smuggling.Load() {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
	return c
}

func (c *localConns) state(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case http.StateNew:
		c.open[conn] = true
	case http.StateClosed, http.StateHijacked:
		delete(c.open, conn)
	default:
		return
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// Shutdown stops accepting, then waits until every connection has closed:
// each closes after its answer (keep-alives are off from then on), idle
// ones at once. Unlike http.Server.Shutdown it answers a request that
// arrives on a connection accepted just before: Shutdown would close that
// connection without a response once the request is read, which is what
// a client polling `framework local` saw during a reload, when the new
// version is already taking the connections the old one no longer
// accepts. When ctx ends first, the remaining connections are closed.
func (c *localConns) Shutdown(ctx context.Context) error {
	err := c.ln.Close()
	c.srv.SetKeepAlivesEnabled(false)
	for {
		c.mu.Lock()
		n, changed := len(c.open), c.changed
		c.mu.Unlock()
		if n == 0 {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			c.srv.Close()
			return ctx.Err()
		}
	}
}

// scanListener wraps each connection accepted in a scanConn.
type scanListener struct {
	net.Listener
}

func (l *scanListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &scanConn{Conn: conn}, nil
}

// scanConn is a connection whose incoming bytes are scanned, line by line,
// for header blocks holding both Content-Length and Transfer-Encoding. The
// scan does not parse HTTP: a body line could pass for a header, which at
// worst closes a connection after its answer.
type scanConn struct {
	net.Conn
	smuggling atomic.Bool

	head    []byte // the start of the current line, up to len(headerName)
	atStart bool   // the next byte starts a line
	started bool
	cl, te  bool // seen in the current block
}

// headerName is the longest header name the scan looks for, with its colon.
const headerName = len("transfer-encoding:")

func (c *scanConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.scan(p[:n])
	return n, err
}

// CloseWrite half-closes the connection, as net/http does before closing
// it after an error answer.
func (c *scanConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *scanConn) scan(b []byte) {
	if !c.started {
		c.started, c.atStart = true, true
	}
	for len(b) > 0 {
		if c.atStart {
			c.head = c.head[:0]
			c.atStart = false
		}
		i := bytes.IndexByte(b, '\n')
		line := b
		if i >= 0 {
			line = b[:i]
		}
		if room := headerName - len(c.head); room > 0 {
			c.head = append(c.head, line[:min(room, len(line))]...)
		}
		if i < 0 {
			return
		}
		c.endLine()
		c.atStart = true
		b = b[i+1:]
	}
}

// endLine looks at the line just ended.
func (c *scanConn) endLine() {
	h := bytes.TrimSuffix(c.head, []byte("\r"))
	switch {
	case len(h) == 0: // the end of a header block
		if c.cl && c.te {
			c.smuggling.Store(true)
		}
		c.cl, c.te = false, false
	case hasPrefixFold(h, "content-length:"):
		c.cl = true
	case hasPrefixFold(h, "transfer-encoding:"):
		c.te = true
	}
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}
