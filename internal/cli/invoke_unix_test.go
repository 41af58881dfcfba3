//go:build unix

package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/userfile/userfiletest"
)

// TestInvokePayloadRefusesSpecialFiles: --payload naming a named pipe or a
// link to /dev/zero, or more standard input than Lambda accepts, exits 1 at
// once with one line saying so, before any AWS call.
func TestInvokePayloadRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo, zero := userfiletest.Specials(t, dir)
	tests := []struct {
		payload, stdin, want string
	}{
		{fifo, "", "Error: " + fifo + ": is a named pipe (FIFO), not a regular file: a Lambda event must be a regular file (a symbolic link to one is fine)\n"},
		{zero, "", "Error: " + zero + ": is a symbolic link to /dev/zero, a character device, not a regular file: a Lambda event must be a regular file (a symbolic link to one is fine)\n"},
		{"-", strings.Repeat(" ", 7<<20), "Error: standard input: is larger than 6 MiB, the limit for a Lambda event: check that it is the right file\n"},
	}
	for _, tt := range tests {
		for _, local := range []bool{false, true} {
			args := []string{"-C", dir, "invoke", "api", "--payload", tt.payload}
			if local {
				args = append(args, "--local")
			}
			var stderr bytes.Buffer
			code := userfiletest.Within(t, "framework "+strings.Join(args[2:], " "), func() int {
				return MainEnv(args, &Env{Stdin: strings.NewReader(tt.stdin), Stderr: &stderr})
			})
			if code != 1 || stderr.String() != tt.want {
				t.Errorf("framework %s: exit %d, stderr %q\nwant exit 1, %q", strings.Join(args[2:], " "), code, stderr.String(), tt.want)
			}
		}
	}
}
