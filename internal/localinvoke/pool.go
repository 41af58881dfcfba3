package localinvoke

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/eventsample"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/remote"
	"github.com/framework-dev/framework/internal/runtimeapi"
)

// Pool keeps function processes warm between invocations, as Lambda keeps
// an execution environment: a process that answered waits, polling its
// local Runtime API, for the next event of the same handler, build,
// environment and timeout, so the app's globals and the connections it
// opened outlive one event, and an event costs no process start. Two
// events at once get two processes, up to Max processes of one function;
// an invocation beyond them waits, in order of arrival, for one of them to
// be free (or for its context to end). A process is not reused after its
// handler failed (a returned error or a panic, after which aws-lambda-go
// exits), after it timed out (Lambda resets the environment then) or once
// it exited, and one idle for IdleTimeout is ended. The zero Pool is ready
// to use; Close ends its processes.
type Pool struct {
	// Max is the most processes of one function (Process.FunctionName)
	// at once; 0 means DefaultMaxProcesses.
	Max int
	// IdleTimeout is how long a process may stay idle before it is
	// ended; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration

	// now and start are the clock and what starts a process (tests
	// replace them); nil means time.Now and startWarm.
	now   func() time.Time
	start func(Process) (*warmProcess, error)

	mu      sync.Mutex
	fns     map[string]*fnProcesses // by Process.FunctionName
	closed  bool
	reaping chan struct{} // closed by Close to stop the reaper, once it runs
}

// DefaultMaxProcesses is the most processes a Pool runs of one function.
// Deployed, each concurrent invocation gets an execution environment of
// its own, up to the account's concurrency (1,000 by default, shared by
// every function of every app of the account, on AWS's machines). Here
// every process is a copy of the app on the developer's machine (about 12
// MB each, more with the app's own caches): ten let the event handlers'
// batches and a burst of WebSocket messages run side by side, as they
// would deployed, while a burst of a thousand events costs at most ten
// processes per function instead of one per event.
const DefaultMaxProcesses = 10

// DefaultIdleTimeout is how long an idle process is kept for the next
// event. Lambda keeps an idle execution environment for some minutes
// (it does not say how long); five keep the app's globals warm across a
// developer's pause between two tries, and give the memory of a burst's
// processes back soon after it.
const DefaultIdleTimeout = 5 * time.Minute

// fnProcesses are the processes of one function: how many run (busy and
// idle), the idle ones, most recently used last, and the invocations
// waiting for one, in order of arrival.
type fnProcesses struct {
	running int
	idle    []idleProcess
	waiting []*waiter
}

// idleProcess is a process waiting for its next event since since.
type idleProcess struct {
	w     *warmProcess
	key   string
	since time.Time
}

// waiter is an invocation waiting for a process of its function: it is
// handed an idle process of its key, or nil, a place to start one in.
type waiter struct {
	key string
	got chan *warmProcess // buffered: handing never blocks
}

// warmProcess is one function process of a Pool and its Runtime API.
type warmProcess struct {
	rt     *runtimeapi.Server
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process ended; err is set then
	err    error
	out    *tail
}

// poolKey tells apart the processes that may serve an invocation of p.
func poolKey(p Process) string {
	h := sha256.New()
	for _, s := range append([]string{p.Bin, p.Handler, p.FunctionName, p.Timeout.String()}, p.Env...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Invoke sends event to a warm process of p, started when none is idle
// and p's function runs fewer than Max processes, else the first to be
// free; it returns the result as Exec does (without a log tail: the
// output goes to p.Log as it is written). An invocation whose context
// ends while it waits for a process gets an error saying so.
func (pl *Pool) Invoke(ctx context.Context, p Process, event []byte) (*remote.Result, error) {
	key := poolKey(p)
	w, err := pl.acquire(ctx, p.FunctionName, key)
	if err != nil {
		return nil, err
	}
	if w == nil {
		start := pl.start
		if start == nil {
			start = startWarm
		}
		if w, err = start(p); err != nil {
			pl.release(p.FunctionName)
			return nil, err
		}
	}
	res, err := w.invoke(ctx, event)
	if err != nil || res.FunctionError != "" {
		w.stop()
		pl.release(p.FunctionName)
	} else {
		pl.put(p.FunctionName, key, w)
	}
	return res, err
}

// acquire returns an idle process of function fn and key, or nil with a
// place counted in fn's running processes to start one in, waiting for
// one of them when fn runs Max processes already.
func (pl *Pool) acquire(ctx context.Context, fn, key string) (*warmProcess, error) {
	pl.mu.Lock()
	f := pl.fn(fn)
	var stale []*warmProcess
	defer func() {
		for _, w := range stale {
			go w.stop()
		}
	}()
	if len(f.waiting) == 0 {
		// An idle process of the key, still running, most recently used
		// first.
		for i := len(f.idle) - 1; i >= 0; i-- {
			ip := f.idle[i]
			select {
			case <-ip.w.exited:
				f.idle = slices.Delete(f.idle, i, i+1)
				f.running--
				stale = append(stale, ip.w)
				continue
			default:
			}
			if ip.key == key {
				f.idle = slices.Delete(f.idle, i, i+1)
				pl.mu.Unlock()
				return ip.w, nil
			}
		}
		if f.running < pl.max() {
			f.running++
			pl.mu.Unlock()
			return nil, nil
		}
		// Idle processes of another key (an older environment) give
		// their place to this one.
		if len(f.idle) > 0 {
			stale = append(stale, f.idle[0].w)
			f.idle = f.idle[1:]
			pl.mu.Unlock()
			return nil, nil
		}
	}
	wt := &waiter{key: key, got: make(chan *warmProcess, 1)}
	f.waiting = append(f.waiting, wt)
	pl.mu.Unlock()
	select {
	case w := <-wt.got:
		return w, nil
	case <-ctx.Done():
	}
	pl.mu.Lock()
	if i := slices.Index(f.waiting, wt); i >= 0 {
		f.waiting = slices.Delete(f.waiting, i, i+1)
		pl.mu.Unlock()
		return nil, fmt.Errorf("function %s: every one of its %d processes was busy until the invocation ended (%w); invocations beyond them wait for a free one: raise the limit with --function-concurrency", fn, pl.max(), context.Cause(ctx))
	}
	pl.mu.Unlock()
	// Handed a process or a place as the context ended: the next waiter
	// gets it.
	if w := <-wt.got; w != nil {
		pl.put(fn, key, w)
	} else {
		pl.release(fn)
	}
	return nil, fmt.Errorf("function %s: %w", fn, context.Cause(ctx))
}

// fn returns the processes of function name; pl.mu is held.
func (pl *Pool) fn(name string) *fnProcesses {
	if pl.fns == nil {
		pl.fns = map[string]*fnProcesses{}
	}
	f := pl.fns[name]
	if f == nil {
		f = &fnProcesses{}
		pl.fns[name] = f
	}
	return f
}

func (pl *Pool) max() int {
	if pl.Max > 0 {
		return pl.Max
	}
	return DefaultMaxProcesses
}

func (pl *Pool) idleTimeout() time.Duration {
	if pl.IdleTimeout > 0 {
		return pl.IdleTimeout
	}
	return DefaultIdleTimeout
}

func (pl *Pool) clock() time.Time {
	if pl.now != nil {
		return pl.now()
	}
	return time.Now()
}

// invoke sends event to w and returns the result as `framework invoke`
// reports a deployed one. A handler's own error is in the Result; the
// error is a function that never answers, or that exited first.
func (w *warmProcess) invoke(ctx context.Context, event []byte) (*remote.Result, error) {
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-w.exited:
			cancel(fmt.Errorf("the app exited before answering (%v): %s", w.err, strings.TrimSpace(w.out.String())))
		case <-ictx.Done():
		}
	}()
	payload, err := w.rt.Invoke(ictx, event)
	res := &remote.Result{StatusCode: 200, ExecutedVersion: "$LATEST", Payload: payload}
	var fe *runtimeapi.FunctionError
	switch {
	case errors.As(err, &fe):
		res.FunctionError, res.ErrorType, res.ErrorMessage, res.Payload = "Unhandled", fe.Type, fe.Message, fe.Body
	case err != nil:
		if cause := context.Cause(ictx); cause != nil && ctx.Err() == nil {
			return nil, cause
		}
		return nil, err
	}
	return res, nil
}

// startWarm starts a process of p against a Runtime API of its own.
func startWarm(p Process) (*warmProcess, error) {
	rt, err := runtimeapi.New(runtimeapi.WithTimeout(p.Timeout),
		runtimeapi.WithFunctionARN(fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", eventsample.Region, eventsample.Account, p.FunctionName)))
	if err != nil {
		return nil, err
	}
	w := &warmProcess{rt: rt, out: &tail{w: p.Log}, exited: make(chan struct{})}
	w.cmd = exec.Command(p.Bin)
	w.cmd.Env = append(slices.Clip(p.Env), names.EnvLambdaRuntimeAPI+"="+rt.Addr(), names.EnvHandler+"="+p.Handler,
		"AWS_LAMBDA_FUNCTION_NAME="+p.FunctionName)
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	if err := w.cmd.Start(); err != nil {
		rt.Close()
		return nil, fmt.Errorf("start the app %s: %w", p.Bin, err)
	}
	go func() {
		w.err = w.cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// stop ends w's process and Runtime API and waits for the process.
func (w *warmProcess) stop() {
	_ = w.cmd.Process.Kill()
	select {
	case <-w.exited:
	case <-time.After(10 * time.Second):
	}
	w.rt.Close()
}

// put makes w, a process of function fn and key that answered, idle for
// the next invocation, or hands it to the first invocation waiting; it
// ends it when the pool is closed, or when the first waiting invocation
// wants another key (which then gets its place).
func (pl *Pool) put(fn, key string, w *warmProcess) {
	pl.mu.Lock()
	f := pl.fn(fn)
	if pl.closed || len(f.waiting) > 0 && f.waiting[0].key != key {
		pl.mu.Unlock()
		w.stop()
		pl.release(fn)
		return
	}
	if len(f.waiting) > 0 {
		wt := f.waiting[0]
		f.waiting = f.waiting[1:]
		wt.got <- w
		pl.mu.Unlock()
		return
	}
	f.idle = append(f.idle, idleProcess{w: w, key: key, since: pl.clock()})
	pl.startReaper()
	pl.mu.Unlock()
}

// release gives back the place of a process of function fn that ended:
// to the first invocation waiting, which starts a process in it.
func (pl *Pool) release(fn string) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	f := pl.fn(fn)
	if len(f.waiting) > 0 {
		wt := f.waiting[0]
		f.waiting = f.waiting[1:]
		wt.got <- nil
		return
	}
	f.running--
}

// startReaper starts, once, what ends the processes idle for longer than
// IdleTimeout; pl.mu is held.
func (pl *Pool) startReaper() {
	if pl.reaping != nil {
		return
	}
	stop := make(chan struct{})
	pl.reaping = stop
	every := pl.idleTimeout() / 4
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				pl.reap()
			}
		}
	}()
}

// reap ends the processes idle for IdleTimeout or longer, and waits for
// them to exit.
func (pl *Pool) reap() {
	now := pl.clock()
	var ended []*warmProcess
	pl.mu.Lock()
	for _, f := range pl.fns {
		f.idle = slices.DeleteFunc(f.idle, func(ip idleProcess) bool {
			if now.Sub(ip.since) < pl.idleTimeout() {
				return false
			}
			ended = append(ended, ip.w)
			f.running--
			return true
		})
	}
	pl.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range ended {
		wg.Go(w.stop)
	}
	wg.Wait()
}

// Close ends the idle processes and makes the pool end each busy one when
// its invocation returns.
func (pl *Pool) Close() {
	pl.mu.Lock()
	var idle []*warmProcess
	for _, f := range pl.fns {
		for _, ip := range f.idle {
			idle = append(idle, ip.w)
		}
		f.running -= len(f.idle)
		f.idle = nil
	}
	pl.closed = true
	if pl.reaping != nil {
		close(pl.reaping)
		pl.reaping = make(chan struct{}) // never started again
	}
	pl.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range idle {
		wg.Go(w.stop)
	}
	wg.Wait()
}
