//go:build unix

package scratch

import (
	"os"
	"syscall"
)

const supported = true

// lockFile takes an exclusive lock on f, failing at once if another
// process holds one. The lock lasts until f is closed or the process
// ends, however it ends.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
