package testutil

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
)

// Function is an app binary running as a Lambda function against a Runtime
// API stand-in of its own, whose Invoke sends it events.
type Function struct {
	*runtimeapi.Server
	// Output is what the process writes on stdout and stderr.
	Output *lockedbuf.Buffer

	done chan struct{}
	err  error
}

// StartFunction runs the binary bin (BuildBootstrap) as Lambda runs a
// function: with env, plus AWS_LAMBDA_RUNTIME_API naming a new Runtime API
// stand-in made with opts. The process is killed when the test ends, and
// its output then goes to the test's log if the test failed.
func StartFunction(t testing.TB, bin string, env []string, opts ...runtimeapi.Option) *Function {
	t.Helper()
	s, err := runtimeapi.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	f := &Function{Server: s, Output: &lockedbuf.Buffer{}, done: make(chan struct{})}
	cmd := exec.Command(bin)
	cmd.Env = append(slices.Clip(env), names.EnvLambdaRuntimeAPI+"="+s.Addr())
	cmd.Stdout, cmd.Stderr = f.Output, f.Output
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		f.err = cmd.Wait()
		close(f.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-f.done
		if t.Failed() {
			t.Logf("function output:\n%s", f.Output.String())
		}
	})
	return f
}

// Done is closed when the process has ended.
func (f *Function) Done() <-chan struct{} { return f.done }

// Err returns how the process ended (exec.Cmd.Wait's error) once Done is
// closed.
func (f *Function) Err() error {
	<-f.done
	return f.err
}
