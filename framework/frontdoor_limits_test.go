package framework

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestIntegrationTimeout: a handler that outlives the front door's
// integration timeout leaves the client with the front door's answer (a
// REST API's 504, an HTTP API's 503), the connection closed; its own
// answer, when it comes, is dropped. The timeout is shortened here; by
// default it is API Gateway's (29 s REST, 30 s HTTP API), and a function
// URL has none of its own.
func TestIntegrationTimeout(t *testing.T) {
	for _, c := range []struct {
		door, want string
		status     int
		def        time.Duration
	}{
		{doorREST, `{"message": "Endpoint request timed out"}`, 504, 29 * time.Second},
		{doorHTTP, `{"message":"Service Unavailable"}`, 503, 30 * time.Second},
	} {
		t.Run("door "+c.door, func(t *testing.T) {
			release, finished := make(chan struct{}), make(chan struct{})
			app := New("slow")
			app.Route("/slow", func(r *Request) (any, error) {
				defer close(finished)
				<-release
				return "late", nil
			})
			h := app.frontDoorHandler("dev", c.door).(*localHandler)
			if h.timeout != c.def {
				t.Errorf("default integration timeout %v, want %v", h.timeout, c.def)
			}
			h.timeout = time.Millisecond
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handler

			// The client's timeout is a safety net: the handler answers
			// only once the test ends.
			client := &http.Client{Timeout: 30 * time.Second}
			resp, err := client.Get(srv.URL + "/slow")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || string(b) != c.want || !resp.Close {
				t.Errorf("GET /slow past the timeout = %d (close %v) %s, want %d %s closing the connection", resp.StatusCode, resp.Close, b, c.status, c.want)
			}
			select {
			case <-finished:
				t.Error("the handler was not running when the front door answered")
			default:
			}
		})
	}
	t.Run("function URL", func(t *testing.T) {
		app := New("slow")
		app.Route("/", func(r *Request) (any, error) { return "ok", nil })
		if h := app.frontDoorHandler("dev", doorFunctionURL).(*localHandler); h.timeout != 0 {
			t.Errorf("a function URL's integration timeout is %v, want none (the function's own timeout ends it)", h.timeout)
		}
	})
	t.Run("answer in time", func(t *testing.T) {
		app := New("fast")
		app.Route("/fast", func(r *Request) (any, error) { return "fast", nil })
		h := app.frontDoorHandler("dev", "").(*localHandler)
		h.timeout = time.Hour
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/fast", nil))
		if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `"fast"` {
			t.Errorf("GET /fast = %d %s, want 200 \"fast\"", rec.Code, rec.Body)
		}
	})
}

// TestHeadersTooLarge: a REST or HTTP API refuses a request whose request
// line and header values exceed 10240 bytes with 431, before the handler
// runs; a function URL passes it on.
func TestHeadersTooLarge(t *testing.T) {
	for _, c := range []struct {
		door   string
		status int
	}{{doorREST, 431}, {doorHTTP, 431}, {doorFunctionURL, 200}} {
		app := New("headers")
		app.Route("/", func(r *Request) (any, error) { return len(r.Headers.Get("x-big")), nil })
		h := app.frontDoorHandler("dev", c.door)
		for _, size := range []int{9 << 10, 11 << 10} {
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("X-Big", strings.Repeat("a", size))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			want := 200
			if size > maxHeaderBytes {
				want = c.status
			}
			if rec.Code != want {
				t.Errorf("door %q, a %d-byte header: %d %s, want %d", c.door, size, rec.Code, rec.Body, want)
			}
			if rec.Code == 431 && strings.TrimSpace(rec.Body.String()) != `{"message":"Request Header Fields Too Large"}` {
				t.Errorf("door %q: 431 body %s", c.door, rec.Body)
			}
		}
	}
}
