package synth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/framework-dev/framework/internal/procgroup"
)

// SessionSyntheses is how many syntheses one engine program serves in a
// Session before the session starts another: jsii keeps every object a
// synthesis created on the Node.js side, so its memory grows with each.
const SessionSyntheses = 25

// Session synthesizes again and again in one engine program (`framework-
// synth serve`), which keeps Node.js and the AWS CDK loaded between
// syntheses: after an edit that saves their start (about half a second of
// CPU time, a second process competing with the app's two builds on a
// 2-core machine). `framework deploy --watch` synthesizes every change
// with one. A Session is not safe for concurrent use; Close ends it.
type Session struct {
	e *Engine
	// max is the number of syntheses an engine program serves.
	max int

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	replies *bufio.Scanner
	stderr  *bytes.Buffer
	release func()
	served  int
	// started counts the engine programs the session started.
	started int
}

// Session returns a Session of the engine; it starts the engine program,
// building it first when missing, at its first synthesis.
func (e *Engine) Session() *Session { return &Session{e: e, max: SessionSyntheses} }

// Synth synthesizes o as Engine.Synth does, in the session's engine
// program, started (and built) when there is none. An error the engine
// answers (the app does not compile, CDK refused the stack) keeps the
// program for the next synthesis; a program that ended, or a synthesis
// stopped by ctx, ends it, and the next synthesis starts another.
func (s *Session) Synth(ctx context.Context, o Options) (*Result, error) {
	var st stepTimes
	if s.cmd == nil {
		if err := s.start(ctx, o, st.add); err != nil {
			return nil, err
		}
	}
	r, err := s.request(ctx, o)
	s.served++
	if err != nil || s.served >= s.max {
		s.Close()
	}
	if err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	r.Result.Timings = append(st.list(), r.Result.Timings...)
	return r.Result, nil
}

// start starts the engine program in serve mode and waits until it is ready.
func (s *Session) start(ctx context.Context, o Options, timed func(string, time.Duration)) error {
	bin, release, err := s.e.acquireBuilding(ctx, o, timed)
	if err != nil {
		return err
	}
	// Its own context: it outlives this synthesis (next stops a synthesis).
	cmd := exec.CommandContext(context.Background(), bin, CommandServe)
	s.stderr = &bytes.Buffer{}
	cmd.Stderr = s.stderr
	procgroup.Own(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		release()
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		release()
		return err
	}
	begin := time.Now()
	if err := startRunning(cmd, bin); err != nil {
		release()
		return err
	}
	s.cmd, s.stdin, s.release, s.served = cmd, stdin, release, 0
	s.started++
	s.replies = bufio.NewScanner(stdout)
	s.replies.Buffer(make([]byte, 64*1024), 16<<20)
	r, err := s.next(ctx, nil)
	if err != nil || !r.Ready {
		s.Close()
		if err == nil {
			err = s.ended(bin)
		}
		return err
	}
	timed("synthesis engine start (CDK bindings load, jsii unpacks its runtime)", time.Since(begin))
	return nil
}

// request sends o to the engine and returns its answer: a reply with a
// result, or with an error.
func (s *Session) request(ctx context.Context, o Options) (*Reply, error) {
	req, err := json.Marshal(Request{Protocol: Protocol, Options: o})
	if err != nil {
		return nil, err
	}
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		return nil, s.ended(s.cmd.Path)
	}
	for {
		r, err := s.next(ctx, o.Progress)
		if err != nil {
			return nil, err
		}
		if r.Result != nil || r.Error != "" {
			return r, nil
		}
	}
}

// next returns the engine's next reply other than progress, which it
// passes on to progress. When ctx ends first, the engine is asked to stop
// (as the first Ctrl-C would) and the session is over.
func (s *Session) next(ctx context.Context, progress io.Writer) (*Reply, error) {
	stop := context.AfterFunc(ctx, func() { _ = interruptEngine(s.cmd.Process) })
	defer stop()
	for s.replies.Scan() {
		var r Reply
		if err := json.Unmarshal(s.replies.Bytes(), &r); err != nil {
			continue // not ours
		}
		if r.Progress != "" {
			if progress != nil {
				fmt.Fprintln(progress, r.Progress)
			}
			continue
		}
		if ctx.Err() != nil {
			break
		}
		return &r, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("the synthesis engine stopped: %w", ctx.Err())
	}
	return nil, s.ended(s.cmd.Path)
}

// ended is the error of an engine program that stopped answering.
func (s *Session) ended(bin string) error {
	s.Close()
	return fmt.Errorf("the synthesis engine %s ended without an answer: %s; if it persists, remove it to have it built again", bin, lastLines(s.stderr.String(), 4))
}

// Close ends the session's engine program, if any: it closes its stdin
// and waits for it to stop Node.js and exit (killing it after a while).
func (s *Session) Close() {
	if s.cmd == nil {
		return
	}
	cmd := s.cmd
	s.cmd = nil
	s.stdin.Close()
	done := make(chan struct{})
	go func() {
		for s.replies.Scan() { // let it write its last lines
		}
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		procgroup.Kill(cmd.Process.Pid)
		<-done
	}
	running.Lock()
	if running.cmd == cmd {
		running.cmd = nil
	}
	running.Unlock()
	s.release()
}
