package framework

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"
)

// BenchmarkLogHandler: RequestLogger's line through the local format's
// handler, against slog's text handler RequestLogger(nil) used locally
// before and the JSON handler it uses in Lambda.
func BenchmarkLogHandler(b *testing.B) {
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{
		{"local", newTextHandler(io.Discard, false)},
		{"local-color", newTextHandler(io.Discard, true)},
		{"slog-text", slog.NewTextHandler(io.Discard, nil)},
		{"slog-json", slog.NewJSONHandler(io.Discard, nil)},
	} {
		b.Run(h.name, func(b *testing.B) {
			logger := slog.New(h.h)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				logger.LogAttrs(ctx, slog.LevelInfo, "request",
					slog.String("request_id", "c0a1b2c3-d4e5-f6a7-b8c9-d0e1f2a3b4c5"),
					slog.String("method", "GET"),
					slog.String("path", "/users/ada"),
					slog.String("route", "/users/{name}"),
					slog.Int("status", 200),
					slog.Float64("duration_ms", 0.412),
				)
			}
		})
	}
}

// TestTextHandler: the local format's line for attributes of each kind,
// WithAttrs and WithGroup, quoting, a stack and colors.
func TestTextHandler(t *testing.T) {
	var b strings.Builder
	logger := slog.New(newTextHandler(&b, false)).With("app", "shop").WithGroup("req")
	logger.Info("hello world", "user", "ada lovelace", "n", 3, "ok", true, "empty", "", "d", 1500*time.Millisecond, slog.Group("g", "k", "v"))
	logger.Debug("not shown")
	slog.New(newTextHandler(&b, false)).Error("panic", "error", errors.New("boom"), "stack", "goroutine 1 [running]:\nmain.main()\n")
	got := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d `).ReplaceAllString(b.String(), "T ")
	want := "T INFO  hello world app=shop req.user=\"ada lovelace\" req.n=3 req.ok=true req.empty=\"\" req.d=1.5s req.g.k=v\n" +
		"T ERROR panic error=boom\n    goroutine 1 [running]:\n    main.main()\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	slog.New(newTextHandler(&b, true)).Warn("careful", "k", "v")
	if s := b.String(); !strings.Contains(s, "\x1b[33mWARN\x1b[0m  careful \x1b[2mk=\x1b[0mv\n") {
		t.Errorf("colored: %q", s)
	}
}
