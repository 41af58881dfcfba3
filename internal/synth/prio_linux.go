package synth

import (
	"runtime"
	"syscall"
)

// backgroundNice is the nice value of the app's builds that run while the
// engine builds.
const backgroundNice = 10

// inBackground runs f on an operating-system thread of its own whose
// scheduling priority is lowered to backgroundNice; the processes f starts
// from that thread (go build and its compilers) inherit it. On Linux the
// nice value belongs to a thread, so the rest of the program keeps its own.
// The engine's build, which the synthesis waits for, then gets the CPU
// whenever it can use it, and f gets what is left.
func inBackground(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Never unlocked: the thread, lowered priority and all, ends with
		// this goroutine instead of serving others.
		runtime.LockOSThread()
		syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), backgroundNice)
		f()
	}()
	<-done
}
