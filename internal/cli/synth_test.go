package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/synth"
)

func TestSynthCommand(t *testing.T) {
	offlineGo(t)
	t.Setenv(names.EnvCacheDir, t.TempDir())
	t.Setenv("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
	hello, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()

	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr}
	if code := MainEnv([]string{"-C", hello, "synth", "--out", out}, env); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	want := "Stack:     hello-dev\nTemplate:  " + filepath.Join(out, "hello-dev.template.json") + "\nResources: 7\n"
	if !strings.HasSuffix(stdout.String(), want) {
		t.Errorf("stdout %q, want it to end with %q", stdout.String(), want)
	}
	for _, step := range []string{"Building the app and its Lambda package for linux/arm64 (the first build on this machine takes about a minute)...\n", "Synthesizing stack hello-dev"} {
		if !strings.Contains(stdout.String(), step) {
			t.Errorf("progress %q lacks %q", stdout.String(), step)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q, want nothing: progress and result go to stdout", stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	if code := MainEnv([]string{"-C", hello, "synth", "--out", out, "--json"}, env); code != 0 {
		t.Fatalf("--json: exit %d, stderr %s", code, stderr.String())
	}
	var res synthResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json output %q: %v", stdout.String(), err)
	}
	if res.Stack != "hello-dev" || res.App != "hello" || res.Stage != "dev" || res.ResourceCount != 7 || !res.Reused ||
		res.AssemblyDir != out || res.Template != filepath.Join(out, "hello-dev.template.json") {
		t.Errorf("--json result %+v", res)
	}
	if stderr.Len() != 0 || strings.Count(stdout.String(), "\n") != 1 {
		t.Errorf("--json printed more than one line: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

func TestSynthWithoutNodeIsOneLine(t *testing.T) {
	offlineGo(t)
	t.Setenv(names.EnvCacheDir, t.TempDir())
	t.Setenv("JSII_NODE", filepath.Join(t.TempDir(), "node"))
	hello, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := MainEnv([]string{"-C", hello, "synth", "--out", t.TempDir(), "--json"}, &Env{Stdout: &stdout, Stderr: &stderr})
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "Node.js") || !strings.Contains(msg, "install Node.js") {
		t.Errorf("stderr %q, want one line saying what to install", msg)
	}
}

func TestSynthCommandPassesFlagsAndPrintsTheResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var got []synth.Options
	env := &Env{Synth: func(_ context.Context, o synth.Options) (*synth.Result, error) {
		got = append(got, o)
		return &synth.Result{App: "shop", Stage: o.Stage, StackName: "shop-" + o.Stage, AssemblyDir: o.OutDir,
			TemplatePath: filepath.Join(o.OutDir, "shop-"+o.Stage+".template.json"), ResourceCount: 9, Reused: true}, nil
	}}
	var stdout bytes.Buffer
	env.Stdout = &stdout
	out := filepath.Join(dir, "out")
	if code := MainEnv([]string{"-C", dir, "synth", "--stage", "prod", "--out", out, "--no-autogen-policy"}, env); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "Stack:     shop-prod (unchanged, assembly reused)\nTemplate:  " + filepath.Join(out, "shop-prod.template.json") + "\nResources: 9\n"
	if stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	o := got[0]
	if o.ProjectDir != dir || o.Stage != "prod" || o.OutDir != out || !o.NoAutogenPolicy || o.Progress != env.Stdout {
		t.Errorf("synth.Options %+v: want project %s, stage prod, out %s, no autogen policy, progress on stdout", o, dir, out)
	}

	stdout.Reset()
	if code := MainEnv([]string{"-C", dir, "synth", "--json"}, env); code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	if o := got[1]; o.Stage != names.DefaultStage || o.Progress != nil {
		t.Errorf("--json: synth.Options %+v, want stage %s and no progress lines", o, names.DefaultStage)
	}
	if strings.Count(stdout.String(), "\n") != 1 || !strings.Contains(stdout.String(), `"stack":"shop-dev"`) {
		t.Errorf("--json printed %q, want one JSON line naming the stack", stdout.String())
	}
}

func TestSynthStopsOnTheFirstSignal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	env := &Env{
		Stderr:  &stderr,
		Signals: func() (context.Context, context.CancelFunc) { return ctx, cancel },
		Synth: func(ctx context.Context, _ synth.Options) (*synth.Result, error) {
			cancel() // the user presses Ctrl-C while the stack synthesizes
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("synthesis stopped: %w", ctx.Err())
			case <-time.After(10 * time.Second):
				return nil, fmt.Errorf("synthesis went on after the signal")
			}
		},
	}
	if code := MainEnv([]string{"-C", t.TempDir(), "synth"}, env); code != 130 {
		t.Errorf("exit %d, want 130 (interrupted), as deploy and diff", code)
	}
	// It says what was interrupted, not the step's "context canceled".
	if want := "Error: interrupted while building and synthesizing the app: no stack was synthesized\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
