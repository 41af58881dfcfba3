//go:build unix

package build

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockFile takes an exclusive advisory lock on path (created if needed),
// waiting for other processes that hold it, and returns the release.
func LockFile(path string) (func(), error) {
	return lockFile(path, syscall.LOCK_EX)
}

// LockFileShared takes a shared advisory lock on path (created if needed):
// any number of processes hold it together, and it keeps out an exclusive
// one (LockFile, TryLockFile). It waits while another process holds the
// exclusive lock.
func LockFileShared(path string) (func(), error) {
	return lockFile(path, syscall.LOCK_SH)
}

// lockFile takes the lock how on path. A lock file removed while this one
// waited for it (the cache's trimming removes an entry with its lock files
// once it holds them) locks nothing any more: the file is then created and
// locked again.
func lockFile(path string, how int) (func(), error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if errors.Is(err, os.ErrNotExist) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, fmt.Errorf("open lock file %s: %w", path, err)
			}
			f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		}
		if err != nil {
			return nil, fmt.Errorf("open lock file %s: %w", path, err)
		}
		if err := flock(f, how); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if held, err := f.Stat(); err == nil {
			if now, err := os.Stat(path); err != nil || !os.SameFile(held, now) {
				f.Close() // removed while waiting: lock the new one
				continue
			}
		}
		return func() {
			flock(f, syscall.LOCK_UN)
			f.Close()
		}, nil
	}
}

// TryLockFile takes an exclusive advisory lock on the existing file path
// if no process holds a lock on it, without waiting: ok is false when one
// does. It never creates path.
func TryLockFile(path string) (release func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, false, err
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		flock(f, syscall.LOCK_UN)
		f.Close()
	}, true, nil
}

// flock is flock(2) on f, again when a signal interrupts it.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
