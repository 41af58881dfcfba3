// Package lockedbuf is a byte buffer safe for concurrent use: a child
// process (a built CLI, moto, an app under the Runtime API stand-in) writes
// its output into it while a test reads what arrived so far.
package lockedbuf

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer guarded by a mutex. The zero value is empty and
// ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
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
