package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/nodeshim"
	"github.com/framework-dev/framework/internal/synth"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestServeAnswersEveryRequest: `framework-synth serve` answers each
// request of its stdin in turn (an app's error too) and ends when stdin
// does, with status 0.
func TestServeAnswersEveryRequest(t *testing.T) {
	// Serve starts Node.js through this binary (nodeshim.Enable sets these
	// for the process): the tests after this one must not inherit it.
	for _, k := range []string{nodeshim.EnvNode, nodeshim.EnvPIDFile, "JSII_NODE"} {
		t.Setenv(k, os.Getenv(k))
	}
	hello := filepath.Join(testutil.RepoRoot(t), "examples", "hello")
	broken := testutil.WriteModule(t, map[string]string{
		"main.go":                "package main\n\nfunc main() { undefinedCall() }\n",
		".framework/config.json": `{"version": "1.0", "app_name": "broken"}`,
	})
	var in bytes.Buffer
	for _, o := range []synth.Options{
		{ProjectDir: hello, OutDir: t.TempDir()},
		{ProjectDir: broken, OutDir: t.TempDir()},
		{ProjectDir: hello, Stage: "prod", OutDir: t.TempDir()},
	} {
		b, _ := json.Marshal(synth.Request{Protocol: synth.Protocol, Options: o})
		in.Write(append(b, '\n'))
	}
	var out, errOut bytes.Buffer
	if code := Serve(context.Background(), []string{synth.CommandServe}, &in, &out, &errOut); code != 0 {
		t.Fatalf("serve exited %d:\n%s%s", code, out.String(), errOut.String())
	}
	var answers []synth.Reply
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r synth.Reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		if r.Result != nil || r.Error != "" {
			answers = append(answers, r)
		}
	}
	if len(answers) != 3 {
		t.Fatalf("%d answers to 3 requests:\n%s", len(answers), out.String())
	}
	if a := answers[0]; a.Result == nil || a.Result.StackName != "hello-dev" {
		t.Errorf("first answer %+v, want stack hello-dev", a)
	}
	if a := answers[1]; !strings.Contains(a.Error, "undefinedCall") {
		t.Errorf("second answer %+v, want the compiler's error", a)
	}
	if a := answers[2]; a.Result == nil || a.Result.StackName != "hello-prod" {
		t.Errorf("third answer %+v, want stack hello-prod after the error", a)
	}
}
