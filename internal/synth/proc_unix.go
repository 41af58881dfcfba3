//go:build unix

package synth

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, so that a
// terminal's Ctrl-C reaches the CLI only, which passes it on once.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// interruptEngine asks the engine to stop, as a first Ctrl-C would.
func interruptEngine(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// killEngine ends the engine at once.
func killEngine(p *os.Process) { _ = p.Kill() }
