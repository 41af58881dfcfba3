//go:build linux

package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A child whose parent ended first (the engine gone on Ctrl-C, its go list
// still running in a group of its own) is still found and killed.
func TestKillDescendantsEndsOrphans(t *testing.T) {
	if !AdoptOrphans() {
		t.Fatal("prctl(PR_SET_CHILD_SUBREAPER) failed")
	}
	started := filepath.Join(t.TempDir(), "started")
	// sh ends at once; the child it started in a new session is orphaned.
	cmd := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > "$1.tmp"; mv "$1.tmp" "$1"; sleep 30' sh "$1" & exit 0`, "sh", started)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; {
		if b, err := os.ReadFile(started); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		} else if time.Now().After(deadline) {
			t.Fatal("the orphaned child never started")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !alive(pid) {
		t.Fatal("the orphan ended by itself: the test proves nothing")
	}
	KillDescendants()
	if alive(pid) {
		t.Fatalf("the orphan %d still runs after KillDescendants", pid)
	}
}
