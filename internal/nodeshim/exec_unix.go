//go:build unix

package nodeshim

import (
	"syscall"
	"time"
)

const supported = true

// execInOwnGroup leaves the terminal's foreground process group, then
// replaces the process with path.
func execInOwnGroup(path string, argv, env []string) error {
	if err := syscall.Setpgid(0, 0); err != nil {
		return err
	}
	return syscall.Exec(path, argv, env)
}

// kill ends the process group the shim made for Node.js (its id is the
// shim's process id) and waits until the process has ended: a zombie
// counts, as it writes nothing more.
func kill(pid int) bool {
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		return false
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if got == pid || err == syscall.ECHILD || syscall.Kill(pid, 0) == syscall.ESRCH {
			return true
		}
	}
	return true
}
