package framework

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// maxBodiesInFlight bounds the bytes of request bodies over smallBody the
// local handler holds at once, from the start of a body's read to the end
// of its answer: 64 MiB, six bodies of the largest size (maxBodyBytes). A
// request whose body does not fit waits, unread, for earlier ones to be
// answered, in arrival order; so memory stays bounded however many large
// bodies arrive together, and every request is still answered. A body of
// unknown length (chunked) counts as maxBodyBytes.
const maxBodiesInFlight = 64 << 20

// Bodies of at most smallBody bytes (by Content-Length) are counted apart,
// in a budget of maxSmallBodiesInFlight, so that they never wait behind
// large ones: large uploads that hold the large budget (slow, or stalled
// until bodyStallTimeout cuts them) do not hold up a JSON POST.
const (
	smallBody              = 1 << 20
	maxSmallBodiesInFlight = 8 << 20
)

// bodyStallTimeout is how long the local handler waits for the next bytes
// of a request body before it answers 408 (bodyTimeout) and closes the
// connection: the 10 s the server gives a request's headers. A body that
// keeps trickling is cut the same way once bodyReadTimeout has passed
// since its read began (the server's read timeout).
const (
	bodyStallTimeout = 10 * time.Second
	bodyReadTimeout  = 60 * time.Second
)

// bodies and smallBodies are the budgets of the process's local handlers.
var (
	bodies      = newBudget(maxBodiesInFlight)
	smallBodies = newBudget(maxSmallBodiesInFlight)
)

// budget is a count of bytes that requests take and give back, granted in
// arrival order.
type budget struct {
	mu      sync.Mutex
	free    int64
	waiting []*budgetWaiter
	// onWait, when not nil, is called when a request starts waiting.
	onWait func()
}

type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(n int64) *budget { return &budget{free: n} }

// take waits until n bytes are free and takes them, or returns ctx's
// error when ctx ends first.
func (b *budget) take(ctx context.Context, n int64) error {
	b.mu.Lock()
	if len(b.waiting) == 0 && b.free >= n {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiting = append(b.waiting, w)
	onWait := b.onWait
	b.mu.Unlock()
	if onWait != nil {
		onWait()
	}
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.free += n
			b.grant()
		default:
			for i, o := range b.waiting {
				if o == w {
					b.waiting = append(b.waiting[:i], b.waiting[i+1:]...)
					break
				}
			}
			b.grant() // the head may have changed
		}
		return ctx.Err()
	}
}

// give returns n bytes.
func (b *budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	b.grant()
}

// grant wakes the waiters at the head of the line that now fit.
func (b *budget) grant() {
	for len(b.waiting) > 0 && b.free >= b.waiting[0].n {
		w := b.waiting[0]
		b.waiting = b.waiting[1:]
		b.free -= w.n
		close(w.ready)
	}
}

// takeBody takes from the process's budget the bytes of r's body before
// it is read, waiting its turn, and returns what gives them back, to call
// once the answer is written; the second result, when not nil, is the
// answer to send instead (the client went away, or the server is shutting
// down, while the request waited).
func takeBody(r *http.Request) (func(), *result) {
	n := r.ContentLength
	if n < 0 || n > maxBodyBytes {
		n = maxBodyBytes
	}
	if r.Body == nil || r.Body == http.NoBody || n == 0 {
		return func() {}, nil
	}
	b := bodies
	if n <= smallBody {
		b = smallBodies
	}
	if err := b.take(r.Context(), n); err != nil {
		return nil, jsonResult(http.StatusServiceUnavailable, map[string]string{
			"message": "Service Unavailable: the request waited for the bodies of earlier requests to be answered and was stopped (" + err.Error() + ")",
		})
	}
	return func() { b.give(n) }, nil
}

// readBody reads r's body, up to limit bytes (then *http.MaxBytesError),
// failing with a *bodyTimeout when no byte of it arrives for stall, or
// when it is not all there after whole. The deadline is the connection's
// read deadline, moved before each read and cleared after the body (a
// deadline left behind would end the request's context while its handler
// runs).
func readBody(w http.ResponseWriter, r *http.Request, limit int64, stall, whole time.Duration) ([]byte, error) {
	sr, _ := stallReaders.Get().(*stallReader)
	if sr == nil {
		sr = new(stallReader)
	}
	*sr = stallReader{body: r.Body, stall: stall}
	if stall > 0 && whole > 0 {
		sr.conn = readDeadliner(w)
		sr.end = time.Now().Add(whole)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, sr, limit))
	if sr.set {
		_ = sr.conn.SetReadDeadline(time.Time{})
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = &bodyTimeout{stall: stall, whole: whole, slow: sr.capped}
	}
	*sr = stallReader{}
	stallReaders.Put(sr)
	return body, err
}

// stallReaders keeps readBody's readers for the next bodies.
var stallReaders sync.Pool

// stallReader moves the read deadline of conn (nil for none) stall ahead
// before each read of body, but not past end; capped says the deadline
// last set was end.
type stallReader struct {
	body        io.ReadCloser
	conn        readDeadlineSetter
	stall       time.Duration
	end         time.Time
	set, capped bool
}

func (s *stallReader) Read(p []byte) (int, error) {
	if s.conn != nil {
		d := time.Now().Add(s.stall)
		if s.capped = !d.Before(s.end); s.capped {
			d = s.end
		}
		if err := s.conn.SetReadDeadline(d); err != nil {
			s.conn = nil
		} else {
			s.set = true
		}
	}
	return s.body.Read(p)
}

func (s *stallReader) Close() error { return s.body.Close() }

type readDeadlineSetter interface{ SetReadDeadline(time.Time) error }

// readDeadliner finds what sets the read deadline of w's connection, as
// http.ResponseController does, or nil (a ResponseWriter of a test) without
// the allocation of ResponseController's ErrNotSupported.
func readDeadliner(w http.ResponseWriter) readDeadlineSetter {
	for {
		switch t := w.(type) {
		case readDeadlineSetter:
			return t
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// bodyTimeout is readBody's error for a body that stopped arriving (slow
// false) or took longer than whole.
type bodyTimeout struct {
	stall, whole time.Duration
	slow         bool
}

func (e *bodyTimeout) Error() string {
	if e.slow {
		return "the request body did not arrive within " + seconds(e.whole)
	}
	return "no byte of the request body arrived for " + seconds(e.stall)
}

func (e *bodyTimeout) Unwrap() error { return os.ErrDeadlineExceeded }

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// answer is the local server's answer to a body that timed out: 408
// Request Timeout (RFC 9110 section 15.5.9; API Gateway documents no
// answer of its own for a client that stops sending).
func (e *bodyTimeout) answer() *result {
	return jsonResult(http.StatusRequestTimeout, map[string]string{
		"message": "Request Timeout: " + e.Error() + "; send the whole body without pausing",
	})
}
