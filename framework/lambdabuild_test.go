package framework_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestLambdaBuildLinksNotTheDeployChecks: the deployed function is built
// with the Lambda build's tags, and every byte of it is downloaded and
// loaded at each cold start. The checks of what a deploy creates
// (manifest.Validate: functions, cron expressions, filter policies,
// authorizers, resource names and ARNs) run in the CLI, before synth and
// framework local go on, and are left out of that build; examples/hello
// was 1.111 times a bare aws-lambda-go function with them, 1.087 times
// without (go run ./test/coldbench). The route table's own check stays:
// the function refuses at start a table it cannot route.
func TestLambdaBuildLinksNotTheDeployChecks(t *testing.T) {
	t.Parallel()
	bin := testutil.BuildBootstrap(t, "../examples/hello")
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	const pkg = "github.com/framework-dev/framework/internal/manifest."
	linked := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.HasPrefix(f[len(f)-1], pkg) {
			linked[strings.TrimPrefix(f[len(f)-1], pkg)] = true
		}
	}
	if len(linked) == 0 {
		t.Fatalf("go tool nm found no symbol of package manifest in %s:\n%.2000s", bin, out)
	}
	if !linked["(*Manifest).routeErrors"] {
		t.Errorf("the Lambda build of examples/hello does not link the route table's check, manifest.(*Manifest).routeErrors")
	}
	for _, sym := range []string{
		"Validate",
		"(*Manifest).validateFunctions",
		"(*Manifest).validateWebSocket",
		"(*Manifest).validateAuthorizers",
		"(*Manifest).validateResources",
		"CheckSchedule",
		"ParseCron",
		"CheckFilterPolicy",
	} {
		if linked[sym] {
			t.Errorf("the Lambda build of examples/hello links manifest.%s, a check of what the deploy creates that the CLI runs", sym)
		}
	}
}

// TestLambdaBuildRefusesBadRoutes: a function built for Lambda still
// refuses at start, before it asks the Runtime API for an event, a route
// table it cannot route, naming the route.
func TestLambdaBuildRefusesBadRoutes(t *testing.T) {
	t.Parallel()
	bin := testutil.BuildBootstrap(t, "testdata/badroutes")
	cmd := exec.CommandContext(t.Context(), bin)
	// Nothing listens there: a function that got past its checks would
	// fail to reach it, with another exit status and message.
	cmd.Env = build.AppEnviron(os.Environ(), names.EnvLambdaRuntimeAPI+"=127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("the Lambda build with bad routes: %v, output %q; want exit status 2", err, out)
	}
	for _, want := range []string{
		"badroutes: 2 invalid declarations:",
		`route /a/{id (handler "get_a_id"`,
		`route /things: method GET is served by both "a" and "b"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output %q does not contain %q", out, want)
		}
	}
}
