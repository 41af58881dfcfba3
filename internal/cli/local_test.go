package cli

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/framework-dev/framework/internal/config"
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
		parser, err := kong.New(&root, vars())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parser.Parse(append([]string{"local"}, strings.Fields(args)...)); err != nil || int(root.Local.Port) != want {
			t.Errorf("local %s: port %d, %v; want %d", args, root.Local.Port, err, want)
		}
	}
}

// TestLocalListenErrors: a --host that is not an IP address and does not
// resolve, or is not an address of this machine, gets a message about the
// host; only a port in use asks whether another `framework local` has it.
// A --host other than a loopback address is first warned about: it would
// make the app reachable from the network (no warning for 127.0.0.1).
func TestLocalListenErrors(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	takenPort := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	const portHint = "is another `framework local` or server using it?"
	const anotherLocal = "another `framework local`"
	tests := []struct {
		args    string
		want    []string
		notWant string
	}{
		{"--host 256.1.1.1 --port 8123", []string{
			"Error: cannot listen on 256.1.1.1:8123: --host 256.1.1.1 is not an IP address and does not resolve to one (lookup 256.1.1.1",
			"give an address of this machine, such as 127.0.0.1 (the default) or 0.0.0.0 for every interface\n"}, anotherLocal},
		{"--host 192.0.2.1 --port 8123", []string{
			"Error: cannot listen on 192.0.2.1:8123: --host 192.0.2.1 is not an address of this machine (cannot assign requested address): give one of its addresses, such as 127.0.0.1 (the default) or 0.0.0.0 for every interface\n"}, anotherLocal},
		{"--port " + takenPort, []string{
			"Error: cannot listen on 127.0.0.1:" + takenPort + ": port " + takenPort + " is already in use: " + portHint + " Stop it, or choose another port with --port (0 picks a free one)\n"}, "--host"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		env := &Env{Stderr: &stderr, Signals: func() (context.Context, context.CancelFunc) {
			// Should the listen succeed, the command stops instead of serving on.
			return context.WithTimeout(context.Background(), 20*time.Second)
		}}
		code := MainEnv(append([]string{"-C", t.TempDir(), "local"}, strings.Fields(tt.args)...), env)
		got := stderr.String()
		lines := 1
		if host, ok := strings.CutPrefix(tt.args, "--host "); ok {
			lines = 2
			warning := "Warning: --host " + strings.Fields(host)[0] + " makes the app reachable from the network: anyone who reaches this machine on port 8123 can call it"
			if !strings.HasPrefix(got, warning) {
				t.Errorf("framework local %s: stderr %q\nwant it to start with %q", tt.args, got, warning)
			}
		} else if strings.Contains(got, "Warning") {
			t.Errorf("framework local %s: stderr %q warns, for 127.0.0.1", tt.args, got)
		}
		if code != 1 || strings.Contains(got, tt.notWant) || strings.Count(got, "\n") != lines {
			t.Errorf("framework local %s: exit %d, stderr %q; want exit 1 and %d lines without %q", tt.args, code, got, lines, tt.notWant)
		}
		for _, want := range tt.want {
			if !strings.Contains(got, want) {
				t.Errorf("framework local %s: stderr %q\ndoes not contain %q", tt.args, got, want)
			}
		}
	}
}

// TestLocalRefusesAStageTypo: --stage devv with dev declared is refused
// before anything is built or created in an emulator, as deploy refuses
// it, naming the stage meant; an undeclared stage that is no slip of a
// declared one is still served with the top-level settings.
func TestLocalRefusesAStageTypo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := config.Default("hello").Write(dir); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	stopped := func() (context.Context, context.CancelFunc) {
		// Should the stage be served, the command stops at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	code := MainEnv([]string{"-C", dir, "local", "--stage", "devv", "--port", "0"}, &Env{Stderr: &stderr, Signals: stopped})
	want := `Error: stage "devv" is not declared in ` + config.FilePath(dir) + ` (it declares dev): did you mean "dev"? To use a new stage "devv", declare it there ("stages": {"devv": {}})` + "\n"
	if code != 1 || stderr.String() != want {
		t.Errorf("local --stage devv: exit %d, stderr %q\nwant exit 1, %q", code, stderr.String(), want)
	}
}
