package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --payload that is not JSON is refused before any AWS call, saying where
// the problem is (line and column) or that the input is empty, whether it
// comes from a file or from standard input.
func TestInvokePayloadNotJSON(t *testing.T) {
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte("{\n  \"httpMethod\": \"GET\",\n  \"path\": /\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ stdin, payload, want string }{
		{"", event, "Error: the payload from " + event + " is not JSON (line 3, column 11: invalid character '/' looking for beginning of value): Lambda takes a JSON event, such as {}\n"},
		{`{"httpMethod":`, "-", "Error: the payload from standard input is not JSON (line 1, column 15: unexpected end of input: a closing brace, bracket or quote is missing): Lambda takes a JSON event, such as {}\n"},
		{"", "-", "Error: the payload from standard input is not JSON (it is empty): Lambda takes a JSON event, such as {}\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := MainEnv([]string{"-C", dir, "invoke", "api", "--payload", tc.payload}, &Env{Stdin: strings.NewReader(tc.stdin), Stdout: &stdout, Stderr: &stderr})
		if code != 1 || stderr.String() != tc.want || stdout.Len() != 0 {
			t.Errorf("invoke --payload %s with stdin %q: exit %d\nstdout %q\nstderr %q\nwant   %q", tc.payload, tc.stdin, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestInvokeAndLogsUnreachableRegion: when the Lambda or CloudWatch Logs
// endpoint does not resolve (a misspelt region, no network), invoke and
// logs say "cannot reach AWS at <host>" with what to check, as deploy,
// diff and url do, instead of the SDK's "dial tcp: lookup ...". The hosts
// have a label over 63 characters, which Go's resolver refuses as no such
// host without asking the network.
func TestInvokeAndLogsUnreachableRegion(t *testing.T) {
	l := newLifecycle(t)
	l.expect([]string{"deploy"}, 0, "Initiating first time deployment...")
	bad := strings.Repeat("x", 64)
	lambdaHost, logsHost := "lambda."+bad+".amazonaws.com", "logs."+bad+".amazonaws.com"
	t.Setenv("AWS_ENDPOINT_URL_LAMBDA", "http://"+lambdaHost)
	t.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH_LOGS", "http://"+logsHost)
	for _, tc := range []struct {
		args []string
		host string
	}{{[]string{"invoke", "api"}, lambdaHost}, {[]string{"logs"}, logsHost}} {
		code, _, stderr := l.run(tc.args...)
		want := `cannot reach AWS at ` + tc.host + ` (no such host): check the region, "us-east-1" (--region, AWS_REGION or your profile's region), and your network connection`
		if code != 1 || !strings.HasPrefix(stderr, "Error: ") || !strings.Contains(stderr, want) {
			t.Errorf("framework %s: exit %d, stderr %q\nwant it to say %q", strings.Join(tc.args, " "), code, stderr, want)
		}
	}
}
