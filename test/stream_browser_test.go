package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/procgroup"
	"github.com/framework-dev/framework/internal/testutil"
)

// streamReport is what examples/streaming's page posts once its stream ends.
type streamReport struct {
	Outcome string   `json:"outcome"`
	Events  []string `json:"events"`
}

// TestStreamingBrowser: headless Chromium opens examples/streaming's page,
// served by `framework local`, whose EventSource reads a stream of 5
// events. On /paced the app sends event i+1 only after the page has
// acknowledged event i through another request, so the page receives all
// 5 only if each event reached it while the stream was still open: a
// buffered answer would deliver nothing until the handler ends, and the
// handler would wait for an acknowledgement that never comes (the app's
// bound then reports "failed"). /ticks is the 5 events 200 ms apart.
func TestStreamingBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("this test needs headless Chromium: install Debian's chromium package (apt-get install chromium): %v", err)
	}
	dir := filepath.Join(testutil.RepoRoot(t), "examples", "streaming")
	s := startLocal(t, dir, testEnv(t), "--no-autoreload")

	reports := make(chan streamReport, 1)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep streamReport
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &rep); err != nil {
			rep.Outcome = fmt.Sprintf("unreadable report %q: %v", b, err)
		}
		reports <- rep
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })

	want := []string{"tick 1", "tick 2", "tick 3", "tick 4", "tick 5"}
	for _, stream := range []string{"/paced", "/ticks"} {
		t.Run(stream, func(t *testing.T) {
			page := s.URL + "/?" + url.Values{"stream": {stream}, "report": {"http://" + l.Addr().String() + "/report"}}.Encode()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
				"--user-data-dir="+t.TempDir(), page)
			procgroup.Own(cmd)
			out := &lockedBuffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				// Chromium's renderers are its children: end its group.
				if !procgroup.Kill(cmd.Process.Pid) {
					_ = cmd.Process.Kill()
				}
				_ = cmd.Wait()
			}()
			select {
			case rep := <-reports:
				if rep.Outcome != "complete" || !slices.Equal(rep.Events, want) {
					t.Errorf("the page's EventSource got %q (%s), want %q", rep.Events, rep.Outcome, want)
				}
			case <-time.After(2 * time.Minute): // a bound on failure, not a measure
				t.Fatalf("no report from the page within 2 minutes; chromium said:\n%s\nframework local said:\n%s", out.String(), s.stderr.String())
			}
		})
	}
}
