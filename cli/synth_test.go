package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestSynthCommand(t *testing.T) {
	offlineGo(t)
	t.Setenv("FRAMEWORK_CACHE_DIR", t.TempDir())
	t.Setenv("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
	hello, err := filepath.Abs(filepath.Join("..", "examples", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()

	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-C", hello, "synth", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	want := "Stack:     hello-dev\nTemplate:  " + filepath.Join(out, "hello-dev.template.json") + "\nResources: 6\n"
	if !strings.HasSuffix(stdout.String(), want) {
		t.Errorf("stdout %q, want it to end with %q", stdout.String(), want)
	}
	for _, step := range []string{"Building the app", "Synthesizing stack hello-dev"} {
		if !strings.Contains(stdout.String(), step) {
			t.Errorf("progress %q lacks %q", stdout.String(), step)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q, want nothing: progress and result go to stdout", stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	if code := Main([]string{"-C", hello, "synth", "--out", out, "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--json: exit %d, stderr %s", code, stderr.String())
	}
	var res synthResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json output %q: %v", stdout.String(), err)
	}
	if res.Stack != "hello-dev" || res.App != "hello" || res.Stage != "dev" || res.ResourceCount != 6 || !res.Reused ||
		res.AssemblyDir != out || res.Template != filepath.Join(out, "hello-dev.template.json") {
		t.Errorf("--json result %+v", res)
	}
	if stderr.Len() != 0 || strings.Count(stdout.String(), "\n") != 1 {
		t.Errorf("--json printed more than one line: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

func TestSynthWithoutNodeIsOneLine(t *testing.T) {
	offlineGo(t)
	t.Setenv("FRAMEWORK_CACHE_DIR", t.TempDir())
	t.Setenv("JSII_NODE", filepath.Join(t.TempDir(), "node"))
	hello, err := filepath.Abs(filepath.Join("..", "examples", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"-C", hello, "synth", "--out", t.TempDir(), "--json"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	msg := stderr.String()
	if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "Node.js") || !strings.Contains(msg, "install Node.js") {
		t.Errorf("stderr %q, want one line saying what to install", msg)
	}
}
