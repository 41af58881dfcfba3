//go:build !unix

package synth

import "os"

func interruptEngine(p *os.Process) error { return p.Kill() }
