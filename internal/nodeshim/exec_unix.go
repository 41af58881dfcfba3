//go:build unix

package nodeshim

import "syscall"

const supported = true

// execInOwnGroup leaves the terminal's foreground process group, then
// replaces the process with path.
func execInOwnGroup(path string, argv, env []string) error {
	if err := syscall.Setpgid(0, 0); err != nil {
		return err
	}
	return syscall.Exec(path, argv, env)
}
