package synth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingNode: without Node.js, synth says in one line what to install.
func TestMissingNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JSII_NODE", "")
	_, err := CheckNode(context.Background(), false)
	var ne *NodeError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %v, want a NodeError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "Node.js") || !strings.Contains(msg, "install") {
		t.Errorf("message %q: want one line saying what to install", msg)
	}
	// The advice is the README's: Node.js 20 or newer.
	if !strings.Contains(msg, "install Node.js 20 or newer") {
		t.Errorf("message %q: want it to say Node.js 20 or newer, as the README does", msg)
	}

	old := filepath.Join(t.TempDir(), "node")
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho v18.19.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JSII_NODE", old)
	_, err = CheckNode(context.Background(), false)
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "v18.19.0") || !strings.Contains(err.Error(), "20 or newer") {
		t.Errorf("node 18: %v", err)
	}
}

func TestNodeMajor(t *testing.T) {
	for in, want := range map[string]int{"v20.20.2": 20, "v24.1.0": 24, "22.3.1": 22} {
		if got, err := nodeMajor(in); err != nil || got != want {
			t.Errorf("nodeMajor(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "vx", "garbage"} {
		if _, err := nodeMajor(in); err == nil {
			t.Errorf("nodeMajor(%q) accepted", in)
		}
	}
}
