package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/framework-dev/framework/internal/policy/scan"
	"github.com/framework-dev/framework/internal/synth"
)

// Main is the engine program's entry point (cli/framework-synth), whose
// main must call nodeshim.Run first. See Serve.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() { <-ctx.Done(); stop() }() // a second signal ends the program at once
	os.Exit(Serve(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Serve runs the engine program with args, one command: `synth` reads a
// synth.Request (one JSON object) from stdin and writes synth.Reply lines
// to stdout: ready once loaded, the progress lines, then the result or the
// error; `scan` reads one too and answers with the report of the AWS SDK
// calls of the app in its Options.ProjectDir (for `framework gen-policy`).
// It returns the exit code: 0 with an answer, 1 with an error, 2 for a
// wrong call. Cancelling ctx (the CLI's SIGTERM) stops the synthesis.
func Serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != synth.CommandSynth && args[0] != synth.CommandScan && args[0] != synth.CommandServe {
		fmt.Fprintf(stderr, "framework-synth is the synthesis engine of the framework CLI, which runs it: `framework synth`, `diff`, `deploy` and `gen-policy`.\nusage: framework-synth synth|scan|serve < request.json (JSON lines on stdout)\n")
		return 2
	}
	var mu sync.Mutex
	reply := func(r synth.Reply) {
		b, err := json.Marshal(r)
		if err != nil {
			b, _ = json.Marshal(synth.Reply{Error: "encode the engine's reply: " + err.Error()})
		}
		mu.Lock()
		defer mu.Unlock()
		stdout.Write(append(b, '\n'))
	}
	reply(synth.Reply{Ready: true})
	// jsii-runtime-go unpacked its JavaScript runtime when the program
	// started; a synthesis prepares it again with the environment it sets.
	Close()
	defer Close()
	dec := json.NewDecoder(stdin)
	if args[0] == synth.CommandServe {
		return serveMany(ctx, dec, reply)
	}
	var req synth.Request
	if err := dec.Decode(&req); err != nil {
		reply(synth.Reply{Error: "the synthesis engine could not read its request: " + err.Error()})
		return 2
	}
	if req.Protocol != synth.Protocol {
		reply(synth.Reply{Error: protocolMismatch(req.Protocol)})
		return 2
	}
	o := req.Options
	if args[0] == synth.CommandScan {
		rep, err := scan.Scan(o.ProjectDir)
		if err != nil {
			reply(synth.Reply{Error: err.Error()})
			return 1
		}
		reply(synth.Reply{Report: rep})
		return 0
	}
	o.NodeShim = true
	o.Progress = &lineWriter{line: func(s string) { reply(synth.Reply{Progress: s}) }}
	res, err := Synth(ctx, o)
	if err != nil {
		reply(synth.Reply{Error: err.Error()})
		return 1
	}
	reply(synth.Reply{Result: res})
	return 0
}

// serveMany answers synth requests read from dec until it ends (0) or ctx
// does (1), keeping Node.js and the CDK loaded in between. After a
// synthesis the CDK itself failed, Node.js is stopped, so that the next
// one starts it again rather than go on in a state nobody knows.
func serveMany(ctx context.Context, dec *json.Decoder, reply func(synth.Reply)) int {
	for ctx.Err() == nil {
		var req synth.Request
		if err := dec.Decode(&req); err == io.EOF {
			return 0
		} else if err != nil {
			reply(synth.Reply{Error: "the synthesis engine could not read its request: " + err.Error()})
			return 2
		}
		if req.Protocol != synth.Protocol {
			reply(synth.Reply{Error: protocolMismatch(req.Protocol)})
			return 2
		}
		o := req.Options
		o.NodeShim = true
		o.Progress = &lineWriter{line: func(s string) { reply(synth.Reply{Progress: s}) }}
		res, err := Synth(ctx, o)
		if err != nil {
			reply(synth.Reply{Error: err.Error()})
			var cdk *cdkFailure
			if errors.As(err, &cdk) {
				Close()
			}
			continue
		}
		reply(synth.Reply{Result: res})
	}
	return 1
}

// protocolMismatch is the error of a request in another protocol.
func protocolMismatch(theirs int) string {
	return fmt.Sprintf("the synthesis engine speaks protocol %d and the CLI %d: it was built for another version of framework; unset FRAMEWORK_ENGINE or point it at the engine of this version", synth.Protocol, theirs)
}

// lineWriter calls line for each complete line written to it.
type lineWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	line func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.line(s[:i])
		w.buf.Next(i + 1)
	}
}
