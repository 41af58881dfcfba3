package framework_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
)

// BenchmarkServer measures whole requests over loopback: GET / of
// examples/hello's route served by the local server (apphook's Serve, as
// framework local serves) and by a bare net/http server doing the same
// JSON work (test/localbench's), in one run, from 32 keep-alive
// connections. Compare ns/op within one run; test/localbench measures the
// same from another process with the real CLI.
func BenchmarkServer(b *testing.B) {
	b.Run("nethttp", func(b *testing.B) {
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			body, _ := json.Marshal(map[string]string{"hello": "world"})
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		})
		benchServer(b, func(ctx context.Context, l net.Listener) error {
			srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
			go func() { <-ctx.Done(); _ = srv.Close() }()
			return srv.Serve(l)
		})
	})
	b.Run("local", func(b *testing.B) {
		app := framework.New("hello")
		app.Route("/", func(r *framework.Request) (any, error) {
			return map[string]string{"hello": "world"}, nil
		})
		benchServer(b, func(ctx context.Context, l net.Listener) error {
			return apphook.Of(app).Serve(ctx, l, "dev")
		})
	})
}

// benchServer starts serve on a loopback listener and sends GET / on 32
// keep-alive connections, reading each answer whole.
func benchServer(b *testing.B, serve func(context.Context, net.Listener) error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	addr := l.Addr().String()
	req := []byte("GET / HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: bench\r\n\r\n")
	b.SetParallelism(16) // 32 connections on 2 CPUs
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		for pb.Next() {
			if _, err := conn.Write(req); err != nil {
				b.Error(err)
				return
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("GET / = %d", resp.StatusCode)
				return
			}
		}
	})
}
