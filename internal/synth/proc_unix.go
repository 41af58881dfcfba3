//go:build unix

package synth

import (
	"os"
	"syscall"
)

// interruptEngine asks the engine to stop, as a first Ctrl-C would.
func interruptEngine(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
