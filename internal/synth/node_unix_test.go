//go:build unix

package synth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNodeCheckInterrupted: Ctrl-C while `node --version` runs is an
// interruption (context.Canceled), not a NodeError telling the user to
// install the Node.js they have.
func TestNodeCheckInterrupted(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(dir, "node")
	// The stand-in says it started (the write blocks until the test reads)
	// and then waits to be killed.
	if err := os.WriteFile(node, []byte("#!/bin/sh\necho started > "+fifo+"\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JSII_NODE", node)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := CheckNode(ctx, false)
		done <- err
	}()
	if _, err := os.ReadFile(fifo); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-done
	var ne *NodeError
	if errors.As(err, &ne) || !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "install") {
		t.Errorf("interrupted: %v; want context.Canceled, no advice to install Node.js", err)
	}
}
