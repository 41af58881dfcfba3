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
// events at once get two processes. A process is not reused after its
// handler failed (a returned error or a panic, after which aws-lambda-go
// exits), after it timed out (Lambda resets the environment then) or once
// it exited. The zero Pool is ready to use; Close ends its processes.
type Pool struct {
	mu     sync.Mutex
	idle   map[string][]*warmProcess
	closed bool
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

// Invoke sends event to a warm process of p, started when none is idle,
// and returns the result as Exec does (without a log tail: the output
// goes to p.Log as it is written).
func (pl *Pool) Invoke(ctx context.Context, p Process, event []byte) (*remote.Result, error) {
	key := poolKey(p)
	w := pl.take(key)
	if w == nil {
		var err error
		if w, err = startWarm(p); err != nil {
			return nil, err
		}
	}
	res, err := w.invoke(ctx, event)
	if err != nil || res.FunctionError != "" {
		w.stop()
	} else {
		pl.put(key, w)
	}
	return res, err
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

// take returns an idle process of key that is still running, or nil.
func (pl *Pool) take(key string) *warmProcess {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for ws := pl.idle[key]; len(ws) > 0; ws = pl.idle[key] {
		w := ws[len(ws)-1]
		pl.idle[key] = ws[:len(ws)-1]
		select {
		case <-w.exited:
			go w.stop()
		default:
			return w
		}
	}
	return nil
}

// put makes w idle for the next invocation of key, or ends it when the
// pool is closed.
func (pl *Pool) put(key string, w *warmProcess) {
	pl.mu.Lock()
	if pl.closed {
		pl.mu.Unlock()
		w.stop()
		return
	}
	if pl.idle == nil {
		pl.idle = map[string][]*warmProcess{}
	}
	pl.idle[key] = append(pl.idle[key], w)
	pl.mu.Unlock()
}

// Close ends the idle processes and makes the pool end each busy one when
// its invocation returns.
func (pl *Pool) Close() {
	pl.mu.Lock()
	idle := pl.idle
	pl.idle, pl.closed = nil, true
	pl.mu.Unlock()
	var wg sync.WaitGroup
	for _, ws := range idle {
		for _, w := range ws {
			wg.Go(w.stop)
		}
	}
	wg.Wait()
}
