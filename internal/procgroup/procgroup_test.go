//go:build unix

package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A program that starts a child of its own (as go build starts the linker)
// and is cancelled must take the child with it: otherwise the child goes on
// writing into a directory the CLI is removing.
func TestCancelEndsTheWholeGroup(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "written-after-cancel")
	ctx, cancel := context.WithCancel(context.Background())
	// The child writes the file a second after the parent was cancelled.
	cmd := exec.CommandContext(ctx, "sh", "-c", `(sleep 1.5; echo late > "$1") & wait`, "sh", mark)
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	_ = cmd.Wait()
	if alive(cmd.Process.Pid) {
		t.Fatal("a member of the group still runs after Wait returned")
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the cancelled program's child went on and wrote its file")
	}
}
