package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/framework-dev/framework/internal/names"
)

// TestLocalPortOutOfRange: every --port outside 0 to 65535 is a usage
// error (exit 2) saying which ports work; "-1" as a separate argument is
// the flag's value, not a short flag.
func TestLocalPortOutOfRange(t *testing.T) {
	t.Parallel()
	const use = "use 1 to 65535 (or 0 for any free port)\n"
	for _, tt := range []struct{ args, want string }{
		{"--port -1", "framework: --port: -1 is not a TCP port: " + use},
		{"--port=-1", "framework: --port: -1 is not a TCP port: " + use},
		{"--port 70000", "framework: --port: 70000 is not a TCP port: " + use},
		{"--port=65536", "framework: --port: 65536 is not a TCP port: " + use},
		{"--port 99999999999999999999", "framework: --port: 99999999999999999999 is not a TCP port: " + use},
		{"--port http", `framework: --port: "http" is not a number: give a TCP port, 1 to 65535 (or 0 for any free port)` + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"-C", t.TempDir(), "local"}, strings.Fields(tt.args)...)
		code := MainEnv(args, &Env{Stdout: &stdout, Stderr: &stderr})
		if code != 2 || stderr.String() != tt.want || stdout.Len() != 0 {
			t.Errorf("framework local %s: exit %d, stdout %q, stderr %q\nwant exit 2 and stderr %q", tt.args, code, stdout.String(), stderr.String(), tt.want)
		}
	}
}

// TestLocalPortValues: 0 (any free port) and the ends of the range parse,
// and the default is 8000.
func TestLocalPortValues(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]int{"": 8000, "--port 0": 0, "--port=1": 1, "--port 65535": 65535, "--port +80": 80} {
		var root CLI
		parser, err := kong.New(&root, kong.Vars{"version": Version, "default_stage": names.DefaultStage})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(append([]string{"local"}, strings.Fields(args)...)); err != nil || int(root.Local.Port) != want {
			t.Errorf("local %s: port %d, %v; want %d", args, root.Local.Port, err, want)
		}
	}
}
