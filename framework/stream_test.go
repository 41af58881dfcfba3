package framework_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/lockedbuf"
)

// streamServer serves a on 127.0.0.1 as framework local does, behind the
// front door apiType.
func streamServer(t *testing.T, a *framework.App, apiType string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: apphook.Of(a).FrontDoorHandler("dev", apiType)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String()
}

// TestStreamArrivesIncrementally: each event of a streamed route reaches
// the client before the handler writes the next one. The handler waits,
// before it writes event i+1, until the client has read event i (no
// timing): were the body buffered, the client would never read event 1
// and the test would hang at the first read.
func TestStreamArrivesIncrementally(t *testing.T) {
	for _, door := range []string{"rest", "function_url"} {
		t.Run(door, func(t *testing.T) {
			seen := make(chan int)
			a := framework.New("t")
			a.API.CORS = true
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
				c.Request.SetResponseHeader("X-Mw", "yes")
				return next(c)
			})
			a.Route("/events", func(r *framework.Request) (*framework.Response, error) {
				return framework.EventStream(func(w *framework.EventWriter) error {
					for i := 1; i <= 5; i++ {
						if err := w.Send(framework.Event{ID: fmt.Sprint(i), Data: fmt.Sprintf("tick %d", i)}); err != nil {
							return err
						}
						if i < 5 {
							select {
							case got := <-seen:
								if got != i {
									return fmt.Errorf("the client saw %d, want %d", got, i)
								}
							case <-r.Context().Done():
								return r.Context().Err()
							case <-time.After(time.Minute): // a bound on failure, not a measure
								return fmt.Errorf("the client did not read event %d", i)
							}
						}
					}
					return nil
				}), nil
			}, framework.Streaming())
			base := streamServer(t, a, door)
			resp, err := http.Get(base + "/events")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if resp.Header.Get("X-Mw") != "yes" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("headers of middleware and CORS missing: %v", resp.Header)
			}
			if resp.ContentLength != -1 {
				t.Errorf("ContentLength %d, want unknown (chunked)", resp.ContentLength)
			}
			br := bufio.NewReader(resp.Body)
			for i := 1; i <= 5; i++ {
				ev := readEvent(t, br)
				want := fmt.Sprintf("id: %d\ndata: tick %d\n", i, i)
				if ev != want {
					t.Fatalf("event %d: %q, want %q", i, ev, want)
				}
				if i < 5 {
					seen <- i
				}
			}
			if rest, _ := io.ReadAll(br); len(rest) != 0 {
				t.Errorf("after the 5 events: %q", rest)
			}
		})
	}
}

// readEvent reads one Server-Sent Event, up to its blank line.
func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var b strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading an event: %v (so far %q)", err, b.String())
		}
		if line == "\n" {
			return b.String()
		}
		b.WriteString(line)
	}
}

// TestStreamErrors: an error before the first byte is the route's error
// answer (with the middleware's and CORS headers); one after it cuts the
// stream (the client reads an unexpected EOF) and is logged; a route not
// declared Streaming that streams gets a 500 saying to declare it.
func TestStreamErrors(t *testing.T) {
	var logged lockedbuf.Buffer // written by the server's goroutines
	a := framework.New("t")
	a.API.CORS = true
	a.ErrorLog = &logged
	a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		c.Request.SetResponseHeader("X-Mw", "yes")
		return next(c)
	})
	a.Route("/early", func(r *framework.Request) (*framework.Response, error) {
		return framework.Stream("text/plain", func(w *framework.StreamWriter) error {
			return framework.NotFoundError{Message: "no such feed"}
		}), nil
	}, framework.Streaming())
	a.Route("/late", func(r *framework.Request) (*framework.Response, error) {
		return framework.Stream("text/plain", func(w *framework.StreamWriter) error {
			w.WriteString("part one\n")
			return errors.New("the feed broke")
		}), nil
	}, framework.Streaming())
	a.Route("/undeclared", func(r *framework.Request) (*framework.Response, error) {
		return framework.Stream("text/plain", func(w *framework.StreamWriter) error { return nil }), nil
	})
	base := streamServer(t, a, "rest")

	resp, err := http.Get(base + "/early")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "no such feed") || resp.Header.Get("X-Mw") != "yes" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("early error: %d %s %v", resp.StatusCode, body, resp.Header)
	}

	resp, err = http.Get(base + "/late")
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "part one\n" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("late error: %d %q, read error %v; want 200, the part, then an unexpected EOF", resp.StatusCode, body, err)
	}
	if !strings.Contains(logged.String(), "the stream ended after 9 bytes: the feed broke") {
		t.Errorf("the late error is not logged: %s", logged.String())
	}

	resp, err = http.Get(base + "/undeclared")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(logged.String(), "framework.Streaming()") {
		t.Errorf("undeclared: %d, log %s", resp.StatusCode, logged.String())
	}
}

// TestStreamBufferedByNonStreamingDoors: frameworktest and other callers
// that do not stream get the whole body.
func TestStreamBufferedByNonStreamingDoors(t *testing.T) {
	a := framework.New("t")
	a.Route("/s", func(r *framework.Request) (*framework.Response, error) {
		return framework.Stream("text/plain", func(w *framework.StreamWriter) error {
			w.WriteString("a")
			w.WriteString("b")
			return nil
		}), nil
	}, framework.Streaming())
	c := frameworktest.New(a)
	if r := c.Lambda("GET", "/s", nil, nil); r.StatusCode != 200 || string(r.Body) != "ab" {
		t.Errorf("buffered: %d %q", r.StatusCode, r.Body)
	}
	m, err := apphook.Of(a).Manifest()
	if err != nil || !m.Routes[0].Streaming {
		t.Errorf("manifest: %v %+v", err, m)
	}
}
