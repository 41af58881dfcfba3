package synth

import (
	"os/exec"
	"strings"
	"testing"
)

// TestInBackgroundLowersWhatItStartsOnly: a process started inside
// inBackground (the app's builds while the engine builds) runs at the
// background nice value, and one started afterwards at the program's own.
func TestInBackgroundLowersWhatItStartsOnly(t *testing.T) {
	nice := func() string {
		out, err := exec.Command("nice").Output() // with no command, nice prints the niceness it runs at
		if err != nil {
			t.Skipf("no nice command: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	own := nice()
	if own != "0" {
		t.Skipf("the test runs at nice %s already", own)
	}
	var inside string
	inBackground(func() { inside = nice() })
	if inside != "10" {
		t.Errorf("a process started in the background runs at nice %s, want 10", inside)
	}
	for range 20 { // the program's other threads keep their priority
		if after := nice(); after != own {
			t.Fatalf("after inBackground, processes run at nice %s, want the program's %s", after, own)
		}
	}
}
