//go:build unix

package nodeshim

import (
	"syscall"

	"github.com/framework-dev/framework/internal/procgroup"
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
func kill(pid int) bool { return procgroup.Kill(pid) }
