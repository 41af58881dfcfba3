//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesSpecialFiles: a policy.json that is a named pipe or a link
// to /dev/zero is refused at once with one line naming it, instead of
// blocking or reading until memory runs out.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo, zero := filepath.Join(dir, "fifo.json"), filepath.Join(dir, "zero.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo: fifo + ": is a named pipe (FIFO), not a regular file: the function role's policy must be a regular file (a symbolic link to one is fine)",
		zero: zero + ": is a symbolic link to /dev/zero, a character device, not a regular file:",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := Load(path); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(3 * time.Second):
				t.Fatal("Load did not return within 3s: it must refuse the file, not read it whole or wait on it")
			}
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %v\nwant it to start with %q", err, want)
			}
		})
	}
}
