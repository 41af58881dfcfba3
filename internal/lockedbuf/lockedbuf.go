// Package lockedbuf is a byte buffer safe for concurrent use: a child
// process (a built CLI, moto, an app under the Runtime API stand-in) writes
// its output into it while a test reads what arrived so far.
package lockedbuf

import (
	"bytes"
	"context"
	"sync"
)

// Buffer is a bytes.Buffer guarded by a mutex. The zero value is empty and
// ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// changed, when not nil, is closed by the next Write: Wait's signal.
	changed chan struct{}
}

// Write appends p and wakes every Wait.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return l.b.Write(p)
}

// Wait blocks until ok reports true for what was written so far, checked
// now and after each Write, or until ctx is done. It returns what was
// written when it stopped and whether ok held.
func (l *Buffer) Wait(ctx context.Context, ok func(written string) bool) (string, bool) {
	for {
		l.mu.Lock()
		s := l.b.String()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		if ok(s) {
			return s, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return s, false
		}
	}
}

// String returns what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Bytes returns a copy of what was written so far.
func (l *Buffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}
