package localinvoke

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
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
	Op string `json:"op"`
	Ms int    `json:"ms"`
}) (map[string]int, error) {
	calls++
	switch ev.Op {
	case "fail":
		return nil, errors.New("told to fail")
	case "sleep":
		time.Sleep(time.Duration(ev.Ms) * time.Millisecond)
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
