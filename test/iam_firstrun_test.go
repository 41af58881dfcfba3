package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// TestLocalIAMCheckOnFirstRun: on a machine where the synthesis engine was
// never built (an empty cache, no FRAMEWORK_ENGINE), the very first
// `framework local --aws-endpoint` against moto checks the functions' AWS
// calls: the route handler's GetItem, which its role allows, reaches moto,
// and its DeleteItem, which the role would refuse, gets DynamoDB's
// AccessDeniedException and an iam_denied line. Nothing waited for, or
// built, the engine (it used to be what scanned the code: until it was
// built, no call was checked).
func TestLocalIAMCheckOnFirstRun(t *testing.T) {
	moto := mototest.Start(t)
	var env []string
	cache := ""
	for _, kv := range motoEnv(t, moto) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case names.EnvEngine:
			continue // no engine built elsewhere: this machine has none
		case names.EnvCacheDir:
			cache = v
		}
		env = append(env, kv)
	}
	if cache == "" {
		t.Fatalf("the test environment sets no %s", names.EnvCacheDir)
	}
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "iamapp")
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")

	if got := s.call(t, "GET", "/notes/n1"); got["ok"] != true {
		t.Errorf("GetItem, which the route's handler may do: %v", got)
	}
	got := s.call(t, "DELETE", "/notes/n1")
	if msg, _ := got["error"].(string); got["ok"] != false || !strings.Contains(msg, "AccessDeniedException") ||
		!strings.Contains(msg, "dynamodb:DeleteItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/iamapp-dev-notes") {
		t.Errorf("DeleteItem, which the API function's role would refuse, on the first run: %v, want DynamoDB's AccessDeniedException naming the action and the table", got)
	}
	if ev := s.waitDenied(t, "api", 10*time.Second); ev["action"] != "dynamodb:DeleteItem" {
		t.Errorf("iam_denied event %v, want dynamodb:DeleteItem", ev)
	}
	for _, kind := range []string{"permission_check_skipped", "permission_check_failed", "iam_problem"} {
		if ev := s.seenEvent(kind); ev != nil {
			t.Errorf("first run: %v, want the calls checked without a problem", ev)
		}
	}
	s.stop(t)
	if _, err := os.Stat(filepath.Join(cache, build.EngineCacheName)); !os.IsNotExist(err) {
		t.Errorf("framework local built (or began to build) the synthesis engine in %s (%v): its check must not need it", cache, err)
	}
}
