package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

const policyFixture = "../internal/policy/testdata/fixture"

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
	want, err := os.ReadFile("../internal/policy/testdata/fixture.policy.json")
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
		"logs:PutLogEvents\t(always: the function writes its logs)",
		"s3:ListBucket\tblob/blob.go:15:10\ts3.ListObjectsV2 (paginator)",
		"s3:GetObject\tmain.go:27:19\ts3.HeadObject (call)",
		"dynamodb:PutItem\tstore/store.go:33:18\tdynamodb.PutItem (interface)",
	} {
		if !strings.Contains(stdout.String(), line+"\n") {
			t.Errorf("explanation lacks %q:\n%s", line, stdout.String())
		}
	}
}

// TestGenPolicyExplainJSON: the explanation as data, for a script that
// checks which line of the app needs which action.
func TestGenPolicyExplainJSON(t *testing.T) {
	offlineGo(t)
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", policyFixture, "gen-policy", "--explain", "--json"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	var uses []actionUse
	jsonLine(t, "gen-policy --explain --json", stdout.String(), &uses)
	want := map[actionUse]bool{
		{Action: "logs:PutLogEvents", Via: "always: the function writes its logs"}:                                                  false,
		{Action: "s3:ListBucket", Position: "blob/blob.go:15:10", Service: "s3", Operation: "ListObjectsV2", Via: "paginator"}:      false,
		{Action: "dynamodb:PutItem", Position: "store/store.go:33:18", Service: "dynamodb", Operation: "PutItem", Via: "interface"}: false,
	}
	for _, u := range uses {
		if _, ok := want[u]; ok {
			want[u] = true
		}
	}
	for u, seen := range want {
		if !seen {
			t.Errorf("explanation lacks %+v:\n%s", u, stdout.String())
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
