package localinvoke

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

// helperEnv makes the test binary run as a function (see TestMain).
const helperEnv = "LOCALINVOKE_TEST_FUNCTION"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		lambda.Start(helperFunction)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// calls counts the invocations a process served: a global, as an app's
// cache or connection pool is.
var calls int

func helperFunction(ctx context.Context, ev struct {
	Op   string `json:"op"`
	Ms   int    `json:"ms"`
	Path string `json:"path"`
}) (map[string]int, error) {
	calls++
	switch ev.Op {
	case "fail":
		return nil, errors.New("told to fail")
	case "sleep":
		time.Sleep(time.Duration(ev.Ms) * time.Millisecond)
	case "hold":
		// Answers once the test creates the file: the test decides when
		// the process is free again.
		for {
			if _, err := os.Stat(ev.Path); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return map[string]int{"pid": os.Getpid(), "calls": calls}, nil
}

func helperProcess(timeout time.Duration) Process {
	return Process{Bin: os.Args[0], Env: append(os.Environ(), helperEnv+"=1"), Handler: "worker",
		FunctionName: "shop-dev-worker", Timeout: timeout, Log: io.Discard}
}

type answer struct{ PID, Calls int }

func call(t *testing.T, pl *Pool, p Process, event string) (answer, string) {
	t.Helper()
	res, err := pl.Invoke(context.Background(), p, []byte(event))
	if err != nil {
		t.Fatalf("invoke %s: %v", event, err)
	}
	if res.FunctionError != "" {
		return answer{}, res.ErrorMessage
	}
	var a answer
	if err := json.Unmarshal(res.Payload, &a); err != nil {
		t.Fatalf("payload %s: %v", res.Payload, err)
	}
	return a, ""
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// A process that answered serves the next event of its handler, keeping
// its globals, as a warm Lambda environment does; after a failure or a
// timeout the next event gets a new process; two events at once get two
// processes; Close ends them.
func TestPoolKeepsProcessesWarm(t *testing.T) {
	pl := &Pool{}
	defer pl.Close()
	p := helperProcess(2 * time.Second)

	first, _ := call(t, pl, p, `{"op":"count"}`)
	second, _ := call(t, pl, p, `{"op":"count"}`)
	if second.PID != first.PID || second.Calls != 2 {
		t.Errorf("second invocation %+v after %+v: want the same process, its second call", second, first)
	}

	// Another environment is another function: its own process.
	other := p
	other.Env = append(other.Env, "COLOR=blue")
	if a, _ := call(t, pl, other, `{"op":"count"}`); a.PID == first.PID || a.Calls != 1 {
		t.Errorf("another environment: %+v, want a process of its own", a)
	}

	if _, msg := call(t, pl, p, `{"op":"fail"}`); msg != "told to fail" {
		t.Errorf("failing invocation: %q, want the handler's error", msg)
	}
	after, _ := call(t, pl, p, `{"op":"count"}`)
	if after.PID == first.PID || after.Calls != 1 {
		t.Errorf("after a failure: %+v, want a new process", after)
	}
	if alive(first.PID) {
		t.Errorf("the process that failed (%d) still runs", first.PID)
	}

	// Two at once: two processes; both are kept.
	var wg sync.WaitGroup
	got := make([]answer, 2)
	for i := range got {
		wg.Go(func() { got[i], _ = call(t, pl, p, `{"op":"sleep","ms":300}`) })
	}
	wg.Wait()
	if got[0].PID == got[1].PID {
		t.Errorf("two invocations at once ran in one process: %+v", got)
	}

	short := helperProcess(200 * time.Millisecond)
	slow, err := pl.Invoke(context.Background(), short, []byte(`{"op":"sleep","ms":2000}`))
	if err == nil {
		t.Errorf("an invocation past its timeout answered %+v", slow)
	}
	if a, _ := call(t, pl, short, `{"op":"count"}`); a.Calls != 1 {
		t.Errorf("after a timeout: %+v, want a new process", a)
	}

	pl.Close()
	for _, a := range append(got, after) {
		if alive(a.PID) {
			t.Errorf("process %d still runs after Close", a.PID)
		}
	}
	if _, err := pl.Invoke(context.Background(), p, []byte(`{"op":"count"}`)); err != nil {
		t.Errorf("an invocation on a closed pool: %v, want it served by a process ended after it", err)
	}
}

// counting makes pl count the processes it starts, and returns how many
// it started in all.
func counting(pl *Pool) func() int {
	var mu sync.Mutex
	n := 0
	pl.start = func(p Process) (*warmProcess, error) {
		mu.Lock()
		n++
		mu.Unlock()
		return startWarm(p)
	}
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// waitFor fails the test unless cond holds within a minute (a loaded
// machine's bound, not a measure).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waiting is how many invocations of function fn wait for a process.
func (pl *Pool) waitingFor(fn string) int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return len(pl.fn(fn).waiting)
}

// Six events at once for a function capped at two processes: two
// processes start, the four other events wait, and each is served, by
// those two, once they are free; no third process starts. An invocation
// whose context ends while it waits gets an error naming the cap.
func TestPoolCapsProcessesPerFunction(t *testing.T) {
	pl := &Pool{Max: 2}
	defer pl.Close()
	started := counting(pl)
	p := helperProcess(time.Minute)
	free := filepath.Join(t.TempDir(), "free")
	hold := fmt.Sprintf(`{"op":"hold","path":%q}`, free)

	var wg sync.WaitGroup
	got := make([]answer, 6)
	for i := range got {
		wg.Go(func() { got[i], _ = call(t, pl, p, hold) })
	}
	waitFor(t, "two processes started and four events waiting", func() bool { return started() == 2 && pl.waitingFor(p.FunctionName) == 4 })

	// Another function has a cap of its own.
	other := p
	other.FunctionName = "shop-dev-other"
	if a, _ := call(t, pl, other, `{"op":"count"}`); a.Calls != 1 {
		t.Errorf("another function while the first is at its cap: %+v, want it served by a process of its own", a)
	}

	// An invocation that gives up while it waits says why.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := pl.Invoke(ctx, p, []byte(`{"op":"count"}`))
		errc <- err
	}()
	waitFor(t, "a fifth event waiting", func() bool { return pl.waitingFor(p.FunctionName) == 5 })
	cancel()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "every one of its 2 processes was busy") || !strings.Contains(err.Error(), "--function-concurrency") {
		t.Errorf("an invocation cancelled while it waited: %v, want the cap and the flag that raises it", err)
	}

	if err := os.WriteFile(free, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	pids := map[int]int{}
	for _, a := range got {
		pids[a.PID]++
	}
	if n := started(); n != 3 || len(pids) != 2 || pids[0] != 0 {
		t.Errorf("six events, two processes at most: %d processes started (one of them the other function's), the six answered by %v", n, pids)
	}
}

// A process idle for IdleTimeout is ended; the next event starts a new
// one. One idle for less is kept.
func TestPoolReapsIdleProcesses(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	pl := &Pool{IdleTimeout: time.Minute, now: func() time.Time { return now }}
	defer pl.Close()
	p := helperProcess(time.Minute)

	first, _ := call(t, pl, p, `{"op":"count"}`)
	now = now.Add(59 * time.Second)
	pl.reap()
	if again, _ := call(t, pl, p, `{"op":"count"}`); again.PID != first.PID {
		t.Errorf("a process idle for 59s of 60 was not kept: %+v after %+v", again, first)
	}
	now = now.Add(time.Minute)
	pl.reap()
	if alive(first.PID) {
		t.Errorf("process %d, idle for a minute, still runs", first.PID)
	}
	if next, _ := call(t, pl, p, `{"op":"count"}`); next.PID == first.PID || next.Calls != 1 {
		t.Errorf("after the idle process was ended: %+v, want a new process", next)
	}
}

// BenchmarkInvoke: an event to a process started for it, as every local
// delivery was, against one to a warm process of the Pool.
func BenchmarkInvoke(b *testing.B) {
	p := helperProcess(5 * time.Second)
	ev := []byte(`{"op":"count"}`)
	b.Run("new-process", func(b *testing.B) {
		for b.Loop() {
			w, err := startWarm(p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := w.invoke(context.Background(), ev); err != nil {
				b.Fatal(err)
			}
			w.stop()
		}
	})
	b.Run("warm", func(b *testing.B) {
		pl := &Pool{}
		defer pl.Close()
		for b.Loop() {
			if _, err := pl.Invoke(context.Background(), p, ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}
