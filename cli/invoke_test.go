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
