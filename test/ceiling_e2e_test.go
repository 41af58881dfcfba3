package test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/testutil"
)

// ceilingErrors are what synth and local say of testdata/ceiling: each
// call beyond a declaration with its file:line, handler, resource and the
// Allow to add.
var ceilingErrors = []string{
	`main.go:25: handler "admin" calls resource.Secret.Value (secretsmanager:GetSecretValue) on secret "adminToken", but the handler has no access to it`,
	`add adminToken.Allow("admin")`,
	`main.go:33: handler "importCsv" calls s3.PutObject (s3:PutObject) on bucket "imports", beyond the declared read`,
	`add imports.Allow(resource.ReadWrite, "importCsv")`,
}

// TestDeclarationsAreTheCeiling: an app whose route reads a secret without
// Allow and whose S3 handler writes to a bucket it may only read is
// refused by framework synth, and framework local does not start it, both
// naming each call site and the fix.
func TestDeclarationsAreTheCeiling(t *testing.T) {
	needsCDK(t)
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "ceiling")
	env := standinEnv(t, nil)
	run := cliRunner(t, dir, env)
	out := run(1, "synth", "-o", t.TempDir())
	for _, want := range ceilingErrors {
		if !strings.Contains(out, want) {
			t.Errorf("synth lacks %q:\n%s", want, out)
		}
	}

	// framework local, with the engine synth built: the same errors, and
	// the app is not started.
	s := startLocal(t, dir, env, "--no-autoreload")
	ev := s.seenEvent("permission_error") // before the server says it serves
	if ev == nil {
		ev = s.waitEvent(t, "permission_error", time.Minute)
	}
	if running, _ := s.seenEvent("serving")["running"].(bool); running {
		t.Error("framework local started the app")
	}
	msg, _ := ev["error"].(string)
	for _, want := range ceilingErrors {
		if !strings.Contains(msg, want) {
			t.Errorf("local's start-up error lacks %q:\n%s", want, msg)
		}
	}
}
