package framework

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBodiesInFlightAreBounded: with more large bodies arriving at once
// than the budget holds, only as many as fit are read and handled at a
// time; the others wait unread, and every request is answered.
func TestBodiesInFlightAreBounded(t *testing.T) {
	const size, fit, requests = 2 * smallBody, 3, 8 // bodies counted in the budget of large ones
	saved := bodies
	defer func() { bodies = saved }()
	bodies = newBudget(fit * size)
	waits := make(chan struct{}, requests)
	bodies.onWait = func() { waits <- struct{}{} }

	entered := make(chan struct{}, requests)
	release := make(chan struct{})
	app := New("bodies")
	app.Route("/upload", func(r *Request) (any, error) {
		entered <- struct{}{}
		<-release
		return len(r.RawBody), nil
	}, Methods("POST"), ContentTypes("application/octet-stream"))
	srv := httptest.NewServer(app.httpHandler("dev"))
	defer srv.Close()

	var wg sync.WaitGroup
	answers := make(chan string, requests)
	for range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+"/upload", "application/octet-stream", bytes.NewReader(make([]byte, size)))
			if err != nil {
				answers <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers <- fmt.Sprintf("%d %s", resp.StatusCode, b)
		}()
	}
	// Each request either enters the handler with its body read or waits:
	// at most fit may be inside at once.
	in, waiting := 0, 0
	for in+waiting < requests {
		select {
		case <-entered:
			in++
			if in > fit {
				close(release)
				wg.Wait()
				t.Fatalf("%d handlers held %d MiB bodies at once; the budget holds %d", in, size>>20, fit)
			}
		case <-waits:
			waiting++
		}
	}
	if in != fit || waiting != requests-fit {
		t.Errorf("%d handlers ran and %d requests waited, want %d and %d", in, waiting, fit, requests-fit)
	}
	close(release)
	wg.Wait()
	close(answers)
	for a := range answers {
		if a != fmt.Sprintf("200 %d", size) {
			t.Errorf("answer %q, want 200 %d", a, size)
		}
	}
	if bodies.free != fit*size {
		t.Errorf("%d bytes of the budget free after every answer, want %d", bodies.free, fit*size)
	}
}

// stalledUpload opens a connection to srv and sends a POST /upload that
// announces size bytes of body and sends one.
func stalledUpload(t *testing.T, srv *httptest.Server, size int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: local\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\nx", size); err != nil {
		t.Fatal(err)
	}
	return conn
}

// uploadApp serves POST /upload and POST /small, each answering its body's length.
func uploadApp() *App {
	app := New("bodies")
	length := func(r *Request) (any, error) { return len(r.RawBody), nil }
	app.Route("/upload", length, Methods("POST"), ContentTypes("application/octet-stream"))
	app.Route("/small", length, Methods("POST"), ContentTypes("application/octet-stream"))
	return app
}

// TestStalledUploadsDoNotHoldUpSmallBodies: uploads that announce large
// bodies and stall hold the budget of large bodies, and one more waits for
// it; a small POST that comes next is read and answered at once instead
// of queueing behind them.
func TestStalledUploadsDoNotHoldUpSmallBodies(t *testing.T) {
	const big = 2 * smallBody
	saved, savedSmall := bodies, smallBodies
	defer func() { bodies, smallBodies = saved, savedSmall }()
	bodies, smallBodies = newBudget(2*big), newBudget(maxSmallBodiesInFlight)
	largeWaits, smallWaits := make(chan struct{}, 8), make(chan struct{}, 8)
	bodies.onWait = func() { largeWaits <- struct{}{} }
	smallBodies.onWait = func() { smallWaits <- struct{}{} }

	h := uploadApp().frontDoorHandler("dev", "").(*localHandler)
	h.stall = time.Hour // the uploads stay stalled while the small POST is made
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var conns []net.Conn
	for range 3 {
		conns = append(conns, stalledUpload(t, srv, big))
	}
	<-largeWaits // two uploads hold the budget, the third waits

	answer := make(chan string, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/small", "application/octet-stream", bytes.NewReader(make([]byte, 100)))
		if err != nil {
			answer <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answer <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	select {
	case a := <-answer:
		if a != "200 100" {
			t.Errorf("the small POST got %q, want 200 100", a)
		}
	case <-largeWaits:
		t.Error("the small POST waited behind the stalled uploads")
	case <-smallWaits:
		t.Error("the small POST waited for the budget of small bodies, which nothing holds")
	}
	for _, c := range conns {
		c.Close()
	}
	srv.Close() // waits for every handler
	if bodies.free != 2*big || smallBodies.free != maxSmallBodiesInFlight {
		t.Errorf("budgets free after every answer: %d and %d, want %d and %d", bodies.free, smallBodies.free, 2*big, maxSmallBodiesInFlight)
	}
}

// TestStalledBodyIsCut: a body that stops arriving is answered 408 and its
// connection closed once no byte came for the stall time, which gives its
// share of the budget to the upload waiting for it (cut in turn).
func TestStalledBodyIsCut(t *testing.T) {
	const big = 2 * smallBody
	saved := bodies
	defer func() { bodies = saved }()
	bodies = newBudget(2 * big)

	h := uploadApp().frontDoorHandler("dev", "").(*localHandler)
	h.stall = 20 * time.Millisecond
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the connections' Cleanup closed them
	var conns []net.Conn
	for range 3 {
		conns = append(conns, stalledUpload(t, srv, big))
	}
	for i, c := range conns {
		// A safety net only: with the fix each answer comes after the stall time.
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("upload %d: no answer to a stalled body: %v", i, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout || !resp.Close || !strings.Contains(string(b), "no byte of the request body arrived for 0.02 s") {
			t.Errorf("upload %d: %d (close %v) %s, want 408 closing the connection", i, resp.StatusCode, resp.Close, b)
		}
	}
	srv.Close()
	if bodies.free != 2*big {
		t.Errorf("%d bytes of the budget free after every answer, want %d", bodies.free, 2*big)
	}
}

// TestTricklingBodyIsCut: a body still not all there once the whole-body
// time has passed is answered 408 too, however often its bytes came (the
// pause allowed here is an hour).
func TestTricklingBodyIsCut(t *testing.T) {
	h := uploadApp().frontDoorHandler("dev", "").(*localHandler)
	h.stall, h.slow = time.Hour, 20*time.Millisecond
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := stalledUpload(t, srv, 100)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a safety net only
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to a body over its time: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close || !strings.Contains(string(b), "the request body did not arrive within 0.02 s") {
		t.Errorf("%d (close %v) %s, want 408 closing the connection", resp.StatusCode, resp.Close, b)
	}
}
