package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/testutil"
)

const policyFixture = "../policy/testdata/fixture"

// offlineGo keeps the go commands the tests start (package loading, builds)
// off the network. It sets the process's environment, which those commands
// inherit, so the tests using it do not run in parallel.
func offlineGo(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=readonly")
	t.Setenv("GOWORK", "off")
}

func TestGenPolicyPrintsTheGeneratedPolicy(t *testing.T) {
	offlineGo(t)
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", policyFixture, "gen-policy"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	// The policy package's golden file for the same fixture: the command
	// prints exactly the document deploy would use.
	want, err := os.ReadFile("../policy/testdata/fixture.policy.json")
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	// The progress line alone: the policy is stdout.
	if !strings.HasPrefix(stderr.String(), "Building the app") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want the building line alone", stderr.String())
	}
}

func TestGenPolicyExplain(t *testing.T) {
	offlineGo(t)
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", policyFixture, "gen-policy", "--explain"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	for _, line := range []string{
		"function api (http)",
		"  Allow logs:CreateLogGroup, logs:CreateLogStream, logs:PutLogEvents on function api's log group, the log streams of function api's log group",
		"    logging (its own log group in CloudWatch Logs)",
		"    scan s3.ListObjectsV2 at blob/blob.go:15",
		"    scan s3.HeadObject at main.go:27",
		"    scan dynamodb.PutItem at store/store.go:33",
	} {
		if !strings.Contains(stdout.String(), line+"\n") {
			t.Errorf("explanation lacks %q:\n%s", line, stdout.String())
		}
	}
}

// TestGenPolicyExplainJSON: the explanation as data, for a script that
// checks which line of the app needs which action in which function.
func TestGenPolicyExplainJSON(t *testing.T) {
	offlineGo(t)
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", policyFixture, "gen-policy", "--explain", "--json"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	var p perms.Policies
	jsonLine(t, "gen-policy --explain --json", stdout.String(), &p)
	api := p.Function("api")
	if api == nil {
		t.Fatalf("no API function:\n%s", stdout.String())
	}
	found := map[string]bool{}
	for _, s := range api.Statements {
		for _, r := range s.Reasons {
			for _, a := range s.Actions {
				found[a+" "+string(r.Kind)+" "+r.Call+" "+r.Pos] = true
			}
		}
	}
	for _, want := range []string{
		"logs:PutLogEvents logging  ",
		"s3:ListBucket scan s3.ListObjectsV2 blob/blob.go:15",
		"dynamodb:PutItem scan dynamodb.PutItem store/store.go:33",
	} {
		if !found[want] {
			t.Errorf("explanation lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestGenPolicyCompileErrorIsOneLine(t *testing.T) {
	offlineGo(t)
	dir := testutil.WriteModule(t, map[string]string{
		"go.mod":  "module example.com/broken\n\ngo 1.24\n",
		"main.go": "package main\n\nfunc main() {\n\tundefinedCall()\n}\n",
	})
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", dir, "gen-policy"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("printed a policy for an app that does not compile:\n%s", stdout.String())
	}
	building, msg, _ := strings.Cut(stderr.String(), "\n")
	if !strings.HasPrefix(building, "Building the app") || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "main.go:4:2: undefined: undefinedCall") || !strings.Contains(msg, "does not compile") {
		t.Errorf("stderr = %q, want one line naming main.go:4:2", msg)
	}
}
