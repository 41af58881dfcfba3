//go:build !unix

package synth

import (
	"os"
	"os/exec"
)

func ownProcessGroup(*exec.Cmd) {}

func interruptEngine(p *os.Process) error { return p.Kill() }

func killEngine(p *os.Process) { _ = p.Kill() }
