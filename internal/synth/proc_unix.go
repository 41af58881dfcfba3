//go:build unix

package synth

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ownProcessGroup starts cmd in a process group of its own, so that a
// terminal's Ctrl-C reaches the CLI only, which passes it on once.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// interruptEngine asks the engine to stop, as a first Ctrl-C would.
func interruptEngine(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

// killEngine ends the engine and what it started in its process group
// (go build and the compiler) at once, and waits (up to two seconds) until
// they are gone: a process being killed may still finish a write or two
// into the run's temporary directory, which is removed next. (Node.js has
// a group of its own: see nodeshim.KillOf.)
func killEngine(p *os.Process) {
	if syscall.Kill(-p.Pid, syscall.SIGKILL) != nil {
		_ = p.Kill()
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var ws syscall.WaitStatus
		syscall.Wait4(p.Pid, &ws, syscall.WNOHANG, nil) // reaps the engine, a member of the group
		if syscall.Kill(-p.Pid, 0) == syscall.ESRCH {
			return
		}
	}
}
