//go:build unix

// Package userfiletest makes the files package userfile refuses, and checks
// that a reader refuses them at once, for the tests of userfile's callers.
package userfiletest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Specials creates in dir a named pipe fifo.json and a symbolic link
// zero.json to /dev/zero, and returns their paths: the two files a reader
// could wait on forever or read until memory runs out.
func Specials(t testing.TB, dir string) (fifo, zero string) {
	t.Helper()
	fifo, zero = filepath.Join(dir, "fifo.json"), filepath.Join(dir, "zero.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	return fifo, zero
}

// Within returns what f returns, failing the test at once if f has not
// returned within 3 seconds: what reads a special file must refuse it, not
// wait on it or read it whole. what names the call in the failure.
func Within[T any](t testing.TB, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(3 * time.Second):
		t.Fatalf("%s did not return within 3s: it must refuse the file, not read it whole or wait on it", what)
		panic("unreachable")
	}
}
