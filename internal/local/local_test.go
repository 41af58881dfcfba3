package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
)

// crashingApp is an app that tells the supervisor it serves (the ready
// pipe is descriptor 4), then exits with status 3.
const crashingApp = `package main

import "os"

func main() {
	os.NewFile(4, "ready").Write([]byte("ready\n"))
	os.Exit(3)
}
`

// TestRestartAdvice: when the app exits, or its first build fails, the
// line printed says what will restart it: a save with autoreload; with
// --no-autoreload, where saving does nothing, running the command again.
func TestRestartAdvice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an app")
	}
	t.Setenv(names.EnvCacheDir, t.TempDir())
	const again = "fix it, then stop this server with Ctrl-C and run `framework local` again (with --no-autoreload, saving does not restart it)"
	tests := []struct {
		name         string
		main         string
		noAutoreload bool
		want         string
	}{
		{"exit with autoreload", crashingApp, false,
			"The app exited (exit status 3); fix it and save to restart it. Meanwhile requests get 503.\n"},
		{"exit without autoreload", crashingApp, true,
			"The app exited (exit status 3); " + again + ". Meanwhile requests get 503.\n"},
		{"broken build with autoreload", "package main\n\nfunc main() { x }\n", false,
			"The app is not running; requests get 503 until a build succeeds.\n"},
		{"broken build without autoreload", "package main\n\nfunc main() { x }\n", true,
			"The app is not running; requests get 503. To restart it, " + again + ".\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range map[string]string{"go.mod": "module app\n\ngo 1.21\n", "main.go": tt.main} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out lockedbuf.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, Options{ProjectDir: dir, Port: 0, NoAutoreload: tt.noAutoreload, Stdout: &out, Stderr: &out})
			}()
			defer func() { cancel(); <-done }()
			deadline := time.After(2 * time.Minute)
			for !strings.Contains(out.String(), "requests get 503") {
				select {
				case err := <-done:
					t.Fatalf("Run returned %v before the app stopped; output:\n%s", err, out.String())
				case <-deadline:
					t.Fatalf("no line about the app not running within 2 minutes; output:\n%s", out.String())
				case <-time.After(20 * time.Millisecond):
				}
			}
			if got := out.String(); !strings.Contains(got, tt.want) {
				t.Errorf("output:\n%s\nwant the line\n%s", got, tt.want)
			}
		})
	}
}
