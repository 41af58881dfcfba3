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
// error. It returns the exit code: 0 with an answer, 1 with an error, 2 for a
// wrong call. Cancelling ctx (the CLI's SIGTERM) stops the synthesis.
func Serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] != synth.CommandSynth && args[0] != synth.CommandServe {
		fmt.Fprintf(stderr, "framework-synth is the synthesis engine of the framework CLI, which runs it: `framework synth`, `diff` and `deploy`.\nusage: framework-synth synth|serve < request.json (JSON lines on stdout)\n")
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
	o, err := readRequest(dec, reply)
	if err != nil {
		return 2
	}
	if synthAnswer(ctx, o, reply) != nil {
		return 1
	}
	return 0
}

// readRequest reads one request from dec; an error (io.EOF when there is
// none) is answered, but for io.EOF.
func readRequest(dec *json.Decoder, reply func(synth.Reply)) (synth.Options, error) {
	var req synth.Request
	if err := dec.Decode(&req); err == io.EOF {
		return synth.Options{}, err
	} else if err != nil {
		reply(synth.Reply{Error: "the synthesis engine could not read its request: " + err.Error()})
		return synth.Options{}, err
	}
	if req.Protocol != synth.Protocol {
		msg := protocolMismatch(req.Protocol)
		reply(synth.Reply{Error: msg})
		return synth.Options{}, errors.New(msg)
	}
	return req.Options, nil
}

// synthAnswer synthesizes o, its progress and then its result or error
// answered, and returns the error.
func synthAnswer(ctx context.Context, o synth.Options, reply func(synth.Reply)) error {
	o.NodeShim = true
	o.Progress = &lineWriter{line: func(s string) { reply(synth.Reply{Progress: s}) }}
	res, err := Synth(ctx, o)
	if err != nil {
		reply(synth.Reply{Error: err.Error()})
		return err
	}
	reply(synth.Reply{Result: res})
	return nil
}

// serveMany answers synth requests read from dec until it ends (0) or ctx
// does (1), keeping Node.js and the CDK loaded in between. After a
// synthesis the CDK itself failed, Node.js is stopped, so that the next
// one starts it again rather than go on in a state nobody knows.
func serveMany(ctx context.Context, dec *json.Decoder, reply func(synth.Reply)) int {
	for ctx.Err() == nil {
		o, err := readRequest(dec, reply)
		if err == io.EOF {
			return 0
		} else if err != nil {
			return 2
		}
		var cdk *cdkFailure
		if err := synthAnswer(ctx, o, reply); errors.As(err, &cdk) {
			Close()
		}
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
