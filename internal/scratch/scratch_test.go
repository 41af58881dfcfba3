//go:build unix

package scratch

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/names"
)

// TestMain lets the tests start this binary as a CLI run that holds its
// directory until it is killed.
func TestMain(m *testing.M) {
	if os.Getenv("SCRATCH_TEST_HOLD") == "1" {
		d, err := Begin()
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(d.Path + "\n")
		// Hold the directory, as a running CLI does, until the test kills
		// the process: this sleep waits for nothing, it is the hold.
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// holdRun starts a run in parent and returns it with its directory.
func holdRun(t *testing.T, parent string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SCRATCH_TEST_HOLD=1", "TMPDIR="+parent)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	dir := strings.TrimSpace(line)
	if !strings.HasPrefix(filepath.Base(dir), Prefix) {
		t.Fatalf("the run printed %q", line)
	}
	return cmd, dir
}

func TestBeginEnd(t *testing.T) {
	parent := t.TempDir()
	t.Setenv("TMPDIR", parent)
	t.Setenv(names.EnvUserTempDir, "")
	d, err := Begin()
	if err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("TMPDIR"); got != d.Path || filepath.Dir(d.Path) != parent {
		t.Fatalf("TMPDIR is %q during the run, want a new directory in %s (%s)", got, parent, d.Path)
	}
	if os.TempDir() != d.Path {
		t.Errorf("os.TempDir() = %s during the run, want %s", os.TempDir(), d.Path)
	}
	if got := UserTempDir(); got != parent {
		t.Errorf("UserTempDir() = %q during the run, want the user's %s", got, parent)
	}
	// What a run leaves in it, however deep, goes with it.
	if err := os.MkdirAll(filepath.Join(os.TempDir(), "jsii-kernel-x", "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.End(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("TMPDIR") != parent {
		t.Errorf("TMPDIR is %q after the run, want it restored to %s", os.Getenv("TMPDIR"), parent)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("the run left %d entries in %s: %v", len(left), parent, left)
	}
	if err := d.End(); err != nil {
		t.Errorf("a second End: %v", err)
	}
}

// TestSweepRemovesOnlyEndedRuns: a run killed before it could clean up
// (SIGKILL) leaves its directory; the next run removes it, and leaves a
// live run's directory and other files alone.
func TestSweepRemovesOnlyEndedRuns(t *testing.T) {
	parent := t.TempDir()
	killed, killedDir := holdRun(t, parent)
	_, liveDir := holdRun(t, parent)
	if err := os.WriteFile(filepath.Join(killedDir, "half-written.tgz"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, "jsii-runtime.123") // not ours: never touched
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	killed.Process.Kill()
	killed.Wait()

	removed := Sweep(parent)
	if len(removed) != 1 || removed[0] != killedDir {
		t.Errorf("Sweep removed %v, want only the killed run's %s", removed, killedDir)
	}
	for _, dir := range []string{liveDir, other} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("Sweep removed %s: %v", dir, err)
		}
	}
	if _, err := os.Stat(killedDir); !os.IsNotExist(err) {
		t.Errorf("the killed run's directory is still there (%v)", err)
	}
}

// TestSweepLockless: a directory without its lock file is an orphan only
// once it is a minute old (a run creates the file right after it).
func TestSweepLockless(t *testing.T) {
	parent := t.TempDir()
	young := filepath.Join(parent, Prefix+"young")
	old := filepath.Join(parent, Prefix+"old")
	for _, d := range []string{young, old} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * orphanAge)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if removed := Sweep(parent); len(removed) != 1 || removed[0] != old {
		t.Errorf("Sweep removed %v, want only %s", removed, old)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("Sweep removed a directory a run may just have created: %v", err)
	}
}
