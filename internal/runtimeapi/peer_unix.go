//go:build unix

package runtimeapi

import (
	"errors"
	"syscall"
)

// peerClosed reports whether the other end of conn (a net.Conn) has closed
// the connection: a peek without waiting reads end of stream, or a reset.
// Data waiting to be read, or none yet, means it is open.
func peerClosed(conn any) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	_ = rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = (n == 0 && err == nil) || errors.Is(err, syscall.ECONNRESET)
	})
	return closed
}
