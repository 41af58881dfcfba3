//go:build unix

package build

import (
	"path/filepath"
	"testing"
)

func TestTryLockFileSkipsAHeldLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.lock")
	if _, _, err := TryLockFile(path); err == nil {
		t.Fatalf("TryLockFile created a missing lock file")
	}
	release, err := LockFileShared(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := TryLockFile(path); ok || err != nil {
		t.Errorf("TryLockFile on a held lock: ok %v, err %v; want not ok and no error", ok, err)
	}
	release()
	r, ok, err := TryLockFile(path)
	if !ok || err != nil {
		t.Fatalf("TryLockFile on a free lock: ok %v, err %v", ok, err)
	}
	r()
}

func TestLockFileRecreatesARemovedDirectory(t *testing.T) {
	// The cache's trimming may remove a build entry between the build's
	// creating its directory and locking its output.
	t.Parallel()
	path := filepath.Join(t.TempDir(), "entry", "local", "app.lock")
	release, err := LockFile(path)
	if err != nil {
		t.Fatalf("LockFile in a removed directory: %v", err)
	}
	defer release()
	if _, ok, _ := TryLockFile(path); ok {
		t.Errorf("the lock file LockFile created is not held")
	}
}
