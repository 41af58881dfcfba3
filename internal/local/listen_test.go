package local

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// TestListenErrorPermission: a low port the user may not bind gets a hint
// about privileges, not about another server. The error is built as net
// returns it, since the tests may run as root, which binds any port.
func TestListenErrorPermission(t *testing.T) {
	err := &net.OpError{Op: "listen", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}, Err: os.NewSyscallError("bind", syscall.EACCES)}
	want := "cannot listen on 127.0.0.1:80: permission denied: ports below 1024 usually need administrator rights; choose a port from 1024 up with --port (the default is 8000)"
	if got := listenError("127.0.0.1", 80, err); got.Error() != want {
		t.Errorf("listenError = %q\nwant %q", got, want)
	}
}
