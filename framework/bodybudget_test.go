package framework

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestBodiesInFlightAreBounded: with more large bodies arriving at once
// than the budget holds, only as many as fit are read and handled at a
// time; the others wait unread, and every request is answered.
func TestBodiesInFlightAreBounded(t *testing.T) {
	const size, fit, requests = 1 << 20, 3, 8
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
