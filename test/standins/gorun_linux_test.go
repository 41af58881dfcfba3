package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/lockedbuf"
)

// `go run ./test/standins -moto-port P` serves moto on P, and killing the
// `go run` process (SIGKILL: it passes no signal on) ends the stand-ins
// and moto with it: none is left running, holding its port.
func TestStandinsEndWithGoRun(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go is not on PATH: this test runs `go run ./test/standins`: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	motoPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	cmd := exec.Command("go", "run", ".", "-port", "0", "-aws-port", "0", "-moto-port", strconv.Itoa(motoPort))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &lockedbuf.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	goRun := cmd.Process.Pid
	var descendants []int
	t.Cleanup(func() {
		// Whatever the outcome, leave nothing behind.
		_ = syscall.Kill(-goRun, syscall.SIGKILL)
		for _, pid := range descendants {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = cmd.Wait()
	})
	// The environment comes in one write once everything answers.
	env := map[string]string{}
	sc := bufio.NewScanner(out)
	for len(env) == 0 || !strings.HasPrefix(sc.Text(), "AWS_SHARED") {
		if !sc.Scan() {
			t.Fatalf("the stand-ins ended before printing their environment: %s", stderr.String())
		}
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/moto-api/config", motoPort))
	if err != nil {
		t.Fatalf("moto does not answer on the pinned -moto-port %d: %v\n%s", motoPort, err, stderr.String())
	}
	resp.Body.Close()
	if !strings.Contains(stderr.String(), fmt.Sprintf("moto itself on http://127.0.0.1:%d", motoPort)) {
		t.Errorf("the summary does not say where moto listens:\n%s", stderr.String())
	}

	descendants = descendantsOf(goRun)
	if len(descendants) < 2 {
		t.Fatalf("go run %d has descendants %v, want the stand-ins and moto", goRun, descendants)
	}
	if err := syscall.Kill(goRun, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var alive []string
		for _, pid := range descendants {
			if running(pid) {
				alive = append(alive, processLine(pid))
			}
		}
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after go run was killed, still running:\n%s", strings.Join(alive, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", motoPort)); err == nil {
		c.Close()
		t.Errorf("moto's port %d still accepts connections", motoPort)
	}
}

// stat returns the parent id and state of process pid from /proc.
func stat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(fields[1])
	return ppid, fields[0][0], true
}

// running tells whether pid is a process that has not ended (a zombie,
// ended but not yet reaped, has).
func running(pid int) bool {
	_, state, ok := stat(pid)
	return ok && state != 'Z' && state != 'X'
}

// processLine describes pid for a failure message.
func processLine(pid int) string {
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
}

// descendantsOf returns the processes descending from pid.
func descendantsOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, _, ok := stat(p); ok {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for a := parent[p]; a > 1; a = parent[a] {
			if a == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
