package framework

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveLocal serves app on l as `framework local` does, until the returned
// stop is called; stop returns when the server has shut down.
func serveLocal(t *testing.T, app *App, l net.Listener) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.serve(ctx, l, "dev", nil) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
}

// TestSmugglingPatternClosesTheConnection: a request with both
// Content-Length and Transfer-Encoding is answered, and its connection
// closed after the answer (RFC 9112 section 6.1): a request pipelined
// after it is not served.
func TestSmugglingPatternClosesTheConnection(t *testing.T) {
	app := New("smuggle")
	app.Route("/", func(r *Request) (any, error) {
		return map[string]any{"body": string(r.RawBody)}, nil
	}, Methods("GET", "POST"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer serveLocal(t, app, l)()

	for _, tc := range []struct {
		name, headers string
		answers       int
	}{
		{"both", "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", 1},
		{"both, other case and order", "transfer-encoding: chunked\r\nCONTENT-LENGTH: 4\r\n", 1},
		{"chunked only", "Transfer-Encoding: chunked\r\n", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// A guard against a hang, not a measure: the answers come at once.
			c.SetDeadline(time.Now().Add(30 * time.Second))
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s\r\n2\r\n{}\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", tc.headers)
			br := bufio.NewReader(c)
			answers := 0
			for {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Fatalf("after %d answers: %v (want the connection closed)", answers, err)
					}
					break
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answers++
				if answers == 2 {
					break
				}
			}
			if answers != tc.answers {
				t.Errorf("%d answers, want %d", answers, tc.answers)
			}
		})
	}
}

// TestSwapDropsNoRequest does what `framework local` does on each reload,
// with clients polling on fresh connections all the while: a new version
// of the app starts serving on the same socket, then the previous one
// shuts down. Every request must get its answer, from one version or the
// other; none may see its connection closed without a response.
func TestSwapDropsNoRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("many requests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lf, err := l.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	version := func(n int) (stop func()) {
		app := New("swap")
		app.Route("/", func(r *Request) (any, error) { return n, nil })
		// Each version serves its own descriptor of the one socket (a
		// duplicate of lf), as each app process does.
		vl, err := net.FileListener(lf)
		if err != nil {
			t.Fatal(err)
		}
		return serveLocal(t, app, vl)
	}

	var answered, dropped atomic.Int64
	var firstDrop atomic.Value
	stopPolling := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for {
				select {
				case <-stopPolling:
					return
				default:
				}
				resp, err := client.Get("http://" + l.Addr().String() + "/")
				if err != nil {
					dropped.Add(1)
					firstDrop.CompareAndSwap(nil, err.Error())
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					dropped.Add(1)
					firstDrop.CompareAndSwap(nil, resp.Status)
					continue
				}
				answered.Add(1)
			}
		}()
	}
	stop := version(0)
	const swaps = 40
	for n := 1; n <= swaps; n++ {
		next := version(n)
		stop()
		stop = next
	}
	close(stopPolling)
	wg.Wait()
	stop()
	if d := dropped.Load(); d > 0 {
		t.Errorf("%d of %d requests got no answer across %d swaps; the first: %v", d, d+answered.Load(), swaps, firstDrop.Load())
	}
	if answered.Load() == 0 {
		t.Error("no request was answered")
	}
	if msg := fmt.Sprint(firstDrop.Load()); strings.Contains(msg, "refused") {
		t.Errorf("a connection was refused: the socket must stay open across swaps")
	}
}
