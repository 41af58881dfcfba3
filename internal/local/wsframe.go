package local

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
)

// guardedWriter hands the WebSocket library a connection whose frames
// from the client pass a frameGuard first, so that a frame API Gateway
// would refuse is refused by its header, before its payload is awaited
// (a header announcing 2^63-1 bytes would otherwise hold the connection
// open for as long as the client likes).
type guardedWriter struct {
	http.ResponseWriter
	guard *frameGuard
}

// Hijack takes over the connection, as http.Hijacker, with the bytes the
// server had read ahead of the handshake passed through the guard too.
func (g *guardedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(g.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	ahead, _ := brw.Reader.Peek(brw.Reader.Buffered())
	g.guard = &frameGuard{r: io.MultiReader(bytes.NewReader(bytes.Clone(ahead)), conn), max: wsMaxFrame}
	gc := &guardedConn{Conn: conn, guard: g.guard}
	return gc, bufio.NewReadWriter(bufio.NewReader(gc), brw.Writer), nil
}

// guardedConn is a net.Conn read through its guard.
type guardedConn struct {
	net.Conn
	guard *frameGuard
}

func (c *guardedConn) Read(p []byte) (int, error) { return c.guard.Read(p) }

// errFrameTooBig is what a guarded connection reads after a frame over
// the limit.
var errFrameTooBig = errors.New("frame too big")

// frameGuard follows the frames a client sends (RFC 6455 section 5.2) as
// they pass, and stops at the header of a data frame whose payload is
// over max: from there on it reads errFrameTooBig and tooBig says why.
type frameGuard struct {
	r   io.Reader
	max uint64

	hdr  []byte // the header read so far
	left uint64 // the payload bytes of the current frame still to pass

	mu     sync.Mutex
	reason string
}

// tooBig is why the guard stopped ("" while it has not).
func (g *frameGuard) tooBig() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}

func (g *frameGuard) Read(p []byte) (int, error) {
	if g.tooBig() != "" {
		return 0, errFrameTooBig
	}
	n, err := g.r.Read(p)
	for i := 0; i < n; {
		if g.left > 0 {
			k := min(uint64(n-i), g.left)
			i += int(k)
			g.left -= k
			continue
		}
		start := i - len(g.hdr) // where this header began (negative: in an earlier read)
		g.hdr = append(g.hdr, p[i])
		i++
		need := frameHeaderLen(g.hdr)
		if need == 0 || len(g.hdr) < need {
			continue
		}
		size := framePayloadLen(g.hdr)
		opcode := g.hdr[0] & 0x0f
		g.hdr = g.hdr[:0]
		if opcode <= 2 && size > g.max { // continuation, text, binary
			g.mu.Lock()
			g.reason = fmt.Sprintf("Frame size of %d bytes exceeds the limit of %d KB", size, g.max>>10)
			g.mu.Unlock()
			return max(start, 0), errFrameTooBig
		}
		g.left = size
	}
	return n, err
}

// frameHeaderLen is the length of the frame header that begins with b
// (0: not known yet).
func frameHeaderLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	n := 2
	switch b[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b[1]&0x80 != 0 {
		n += 4 // masking key
	}
	return n
}

// framePayloadLen is the payload length a whole frame header announces.
func framePayloadLen(b []byte) uint64 {
	switch l := b[1] & 0x7f; l {
	case 126:
		return uint64(binary.BigEndian.Uint16(b[2:4]))
	case 127:
		return binary.BigEndian.Uint64(b[2:10])
	default:
		return uint64(l)
	}
}
