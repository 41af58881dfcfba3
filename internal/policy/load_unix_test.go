//go:build unix

package policy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/userfile/userfiletest"
)

// TestLoadRefusesSpecialFiles: a policy.json that is a named pipe or a link
// to /dev/zero is refused at once with one line naming it, instead of
// blocking or reading until memory runs out.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	fifo, zero := userfiletest.Specials(t, t.TempDir())
	for path, want := range map[string]string{
		fifo: fifo + ": is a named pipe (FIFO), not a regular file: the function role's policy must be a regular file (a symbolic link to one is fine)",
		zero: zero + ": is a symbolic link to /dev/zero, a character device, not a regular file:",
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			err := userfiletest.Within(t, "Load", func() error { _, err := Load(path); return err })
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %v\nwant it to start with %q", err, want)
			}
		})
	}
}
