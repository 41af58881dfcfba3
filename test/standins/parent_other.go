//go:build !linux

package main

import "syscall"

// endWithParent does nothing where the kernel does not tell a process
// that its parent ended.
func endWithParent(syscall.Signal) {}
