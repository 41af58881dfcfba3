package framework

import (
	"context"
	"net/http"
	"sync"
)

// maxBodiesInFlight bounds the bytes of request bodies the local handler
// holds at once, from the start of a body's read to the end of its answer:
// 64 MiB, six bodies of the largest size (maxBodyBytes) and any number of
// small ones. A request whose body does not fit waits, unread, for earlier
// ones to be answered, in arrival order; so memory stays bounded however
// many large bodies arrive together, and every request is still answered.
// A body of unknown length (chunked) counts as maxBodyBytes.
const maxBodiesInFlight = 64 << 20

// bodies is the budget of the process's local handlers.
var bodies = newBudget(maxBodiesInFlight)

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
	if err := b.take(r.Context(), n); err != nil {
		return nil, jsonResult(http.StatusServiceUnavailable, map[string]string{
			"message": "Service Unavailable: the request waited for the bodies of earlier requests to be answered and was stopped (" + err.Error() + ")",
		})
	}
	return func() { b.give(n) }, nil
}
