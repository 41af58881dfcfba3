package framework

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/lockedbuf"
)

// TestStreamMetricsLocal: on framework local's server, the metrics a
// handler records before it returns a stream and those its body records
// are written as one EMF line on stdout when the stream ends, whether it
// ends well, with an error or with a panic; a process's first invocation
// adds ColdStart.
func TestStreamMetricsLocal(t *testing.T) {
	var out lockedbuf.Buffer
	metricsOut = &out
	defer func() { metricsOut = nil }()
	a := New("t")
	a.ErrorLog = io.Discard
	for name, end := range map[string]func() error{
		"ok":     func() error { return nil },
		"broke":  func() error { return errors.New("the feed broke") },
		"panics": func() error { panic("index out of range") },
	} {
		a.Route("/"+name, func(r *Request) (*Response, error) {
			Metrics(r.Context()).Count("Handled")
			return Stream("text/plain", func(w *StreamWriter) error {
				if _, err := w.WriteString("part"); err != nil {
					return err
				}
				Metrics(w.Request().Context()).Count("Body_" + name)
				return end()
			}), nil
		}, Streaming())
	}
	srv := httptest.NewServer(a.frontDoorHandler("dev", doorFunctionURL))
	defer srv.Close()
	warm.Store(false) // the next invocation is the process's first
	for i, name := range []string{"ok", "broke", "panics"} {
		resp, err := http.Get(srv.URL + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		written, ok := out.Wait(ctx, func(s string) bool { return strings.Count(s, "\n") > i })
		cancel()
		if !ok {
			t.Fatalf("%s: no metrics line after the stream ended; written:\n%s", name, written)
		}
		line := strings.Split(written, "\n")[i]
		for _, want := range []string{`"Handled":1`, `"Body_` + name + `":1`} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: the line %s lacks %s", name, line, want)
			}
		}
		if cold := strings.Contains(line, `"ColdStart":1`); cold != (i == 0) {
			t.Errorf("%s: ColdStart in %s: %v, want it in the first invocation's only", name, line, cold)
		}
	}
}
