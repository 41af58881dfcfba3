package framework

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/names"
)

// TestFunctionTimeoutLocally: the function's lambda_timeout
// (FRAMEWORK_LAMBDA_TIMEOUT, which framework local sets; 60 s when
// unset) applies to a route served locally: the handler's context ends
// then, and when it comes before the front door's integration timeout
// the client gets the front door's answer to a failed invocation (REST
// API 502, HTTP API 500, function URL 502), the handler's own answer,
// when it comes, dropped.
func TestFunctionTimeoutLocally(t *testing.T) {
	t.Run("from the environment", func(t *testing.T) {
		t.Setenv(names.EnvLambdaTimeout, "")
		if h := New("a").frontDoorHandler("dev", "").(*localHandler); h.fnTimeout != 60*time.Second {
			t.Errorf("without %s the function's timeout is %v, want the default 60s", names.EnvLambdaTimeout, h.fnTimeout)
		}
		t.Setenv(names.EnvLambdaTimeout, "1")
		if h := New("a").frontDoorHandler("dev", doorHTTP).(*localHandler); h.fnTimeout != time.Second {
			t.Errorf("with %s=1 the function's timeout is %v, want 1s", names.EnvLambdaTimeout, h.fnTimeout)
		}
	})
	for _, c := range []struct {
		door, contentType, want string
		status                  int
	}{
		{doorREST, "application/json", `{"message": "Internal server error"}`, 502},
		{doorHTTP, "application/json", `{"message":"Internal Server Error"}`, 500},
		{doorFunctionURL, "text/plain; charset=utf-8", `Internal Server Error`, 502},
	} {
		t.Run("door "+c.door, func(t *testing.T) {
			release, ended := make(chan struct{}), make(chan error, 1)
			app := New("slow")
			app.Route("/slow", func(r *Request) (any, error) {
				<-r.Context().Done()
				ended <- r.Context().Err()
				<-release
				return "late", nil
			})
			h := app.frontDoorHandler("dev", c.door).(*localHandler)
			if c.door != doorFunctionURL {
				h.timeout = time.Hour // the integration timeout does not come
			}
			h.fnTimeout = time.Millisecond
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handler

			client := &http.Client{Timeout: 30 * time.Second} // a safety net
			resp, err := client.Get(srv.URL + "/slow")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || string(b) != c.want || resp.Header.Get("Content-Type") != c.contentType {
				t.Errorf("GET /slow past the function's timeout = %d %q %s, want %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), b, c.status, c.contentType, c.want)
			}
			if err := <-ended; !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the handler's context ended with %v, want its deadline (context.DeadlineExceeded)", err)
			}
		})
	}
	t.Run("answer at the deadline", func(t *testing.T) {
		// A handler that answers as soon as its context ends answers
		// once the invocation has ended: its answer is lost.
		app := New("slow")
		app.Route("/slow", func(r *Request) (any, error) {
			<-r.Context().Done()
			return "too late", nil
		})
		h := app.frontDoorHandler("dev", doorREST).(*localHandler)
		h.timeout, h.fnTimeout = time.Hour, time.Millisecond
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/slow", nil))
		if rec.Code != 502 || rec.Body.String() != `{"message": "Internal server error"}` {
			t.Errorf("GET /slow answered at its deadline = %d %s, want 502 {\"message\": \"Internal server error\"}", rec.Code, rec.Body)
		}
	})
	t.Run("integration timeout first", func(t *testing.T) {
		release := make(chan struct{})
		app := New("slow")
		app.Route("/slow", func(r *Request) (any, error) {
			<-release
			return "late", nil
		})
		h := app.frontDoorHandler("dev", doorREST).(*localHandler)
		h.timeout, h.fnTimeout = time.Millisecond, time.Hour
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		t.Cleanup(func() { close(release) })
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(srv.URL + "/slow")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 504 || string(b) != `{"message": "Endpoint request timed out"}` {
			t.Errorf("a function timeout longer than the integration timeout: %d %s, want the 504 of the integration timeout", resp.StatusCode, b)
		}
	})
}

// TestHandlerOutlivesClient: after the front door's timeout answer, a
// client that closes its connection does not end the handler's context:
// deployed, the function runs on until it returns or reaches its own
// timeout, whatever the client does.
func TestHandlerOutlivesClient(t *testing.T) {
	release := make(chan struct{})
	handlerCtx, serverCtx := make(chan context.Context, 1), make(chan context.Context, 1)
	finished := make(chan error, 1)
	app := New("slow")
	app.Route("/slow", func(r *Request) (any, error) {
		handlerCtx <- r.Context()
		<-release
		finished <- r.Context().Err()
		return "late", nil
	})
	h := app.frontDoorHandler("dev", doorREST).(*localHandler)
	h.timeout, h.fnTimeout = time.Millisecond, time.Hour
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serverCtx <- r.Context() // ends when the client's connection closes
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Get(srv.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 504 {
		t.Fatalf("GET /slow = %d, want the front door's 504", resp.StatusCode)
	}
	tr.CloseIdleConnections()
	<-(<-serverCtx).Done() // the server saw the client go away
	ctx := <-handlerCtx
	if err := ctx.Err(); err != nil {
		t.Errorf("the client went away and the handler's context ended (%v): Lambda would run the function on", err)
	}
	if _, ok := ctx.Deadline(); !ok {
		t.Error("the handler's context has no deadline: it ends at the function's timeout")
	}
	close(release)
	if err := <-finished; err != nil {
		t.Errorf("the handler's context ended (%v) before it returned", err)
	}
}
