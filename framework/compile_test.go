package framework_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWrongHandlersDoNotCompile: an event handler or plain function whose
// signature does not fit its registration is a build error that names the
// type expected, not a start-up error.
func TestWrongHandlersDoNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds four programs")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{"sqs", []string{"main.go:11:", "func(ev events.SQSEvent) error", "func(context.Context, events.SQSEvent) error"}},
		{"s3", []string{"main.go:13:", "events.SNSEvent", "func(context.Context, events.S3Event) error"}},
		{"function", []string{"main.go:12:", "func(ctx context.Context, in []string) int", "func(context.Context, In) (Out, error)"}},
		{"authorizer", []string{"main.go:13:", "(bool, error)", "func(context.Context, framework.AuthRequest) (framework.AuthResult, error)"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			cmd := exec.Command(gobin, "vet", "./testdata/wronghandler/"+tc.dir)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("go vet accepted the %s fixture:\n%s", tc.dir, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the compiler's message does not say %q:\n%s", w, out)
				}
			}
		})
	}
}
