package framework

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/names"
)

// Error lines. Every uncaught error or panic writes one line to
// App.ErrorLog (stderr unless set), served locally or in Lambda, whatever
// Debug says. In Lambda (and in tests) it is one JSON object, which
// CloudWatch Logs keeps as one event, the stack of a panic one JSON string
// within it; served on this machine by Run, the readable local format
// (logtext.go), the stack indented after the line. The keys follow the
// access lines (accesslog.go): request_id is the Lambda request id (absent
// when serving locally), api_request_id API Gateway's (the local server
// makes one up), resource the route's pattern.
//
// A route's handler or middleware:
//
//	{"time":"2026-11-23T16:18:00.123Z","level":"ERROR","msg":"panic","request_id":"8f5e...","api_request_id":"c0a1...","method":"GET","resource":"/users/{name}","path":"/users/ada","handler":"getUser","error":"panic: boom","stack":"goroutine 7 [running]:\n..."}
//
// msg is "panic" for a panic (the only lines with a stack) and "uncaught
// error" for an error that is not a ViewError, a response that cannot be
// encoded and a body that is not UTF-8 under a non-binary Content-Type.
// ViewErrors (NotFoundError and the like) are answers, not failures: they
// write no line. An event handler's panic writes msg "panic" with
// request_id, kind, handler, error and stack; an error it returns (the
// whole invocation fails) the same without the stack, msg "uncaught
// error". Items reported as failed in a batch response are answers, not
// errors: they write no line.

// errorLogMu makes each error line one Write on the writer even when
// requests fail concurrently and the writer is not safe for concurrent use.
var errorLogMu sync.Mutex

// errorLogTime writes the time as access lines do: UTC, milliseconds.
func errorLogTime(groups []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey && len(groups) == 0 {
		return slog.String(slog.TimeKey, a.Value.Time().UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	return a
}

// errorLog is where the app's error lines go.
func (a *App) errorLog() io.Writer {
	if a.ErrorLog != nil {
		return a.ErrorLog
	}
	return os.Stderr
}

// logError writes one error line with msg and attrs, in a single Write.
func (a *App) logError(ctx context.Context, msg string, attrs ...slog.Attr) {
	var buf bytes.Buffer
	var h slog.Handler = slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: errorLogTime})
	if t := readableHandler(&buf, a.logFmt); t != nil {
		h = t
	}
	r := slog.NewRecord(time.Now(), slog.LevelError, msg, 0)
	r.AddAttrs(attrs...)
	_ = h.Handle(ctx, r)
	errorLogMu.Lock()
	defer errorLogMu.Unlock()
	_, _ = a.errorLog().Write(buf.Bytes())
}

// logUncaught writes the error line of an uncaught error of route, or of
// its panic when stack is not nil.
func (a *App) logUncaught(route *route, req *Request, err error, stack []byte) {
	ctx := req.Context()
	msg := "uncaught error"
	if stack != nil {
		msg = "panic"
	}
	attrs := make([]slog.Attr, 0, 9)
	if id := lambdaRequestID(ctx); id != "" {
		attrs = append(attrs, slog.String(names.RequestIDKey, id))
	}
	if id := req.GatewayContext.RequestID; id != "" {
		attrs = append(attrs, slog.String("api_request_id", id))
	}
	attrs = append(attrs,
		slog.String("method", req.Method),
		slog.String("resource", route.Path),
		slog.String("path", req.Path),
		slog.String("handler", route.Name),
		slog.String("error", err.Error()),
	)
	if stack != nil {
		attrs = append(attrs, slog.String("stack", string(stack)))
	}
	a.logError(ctx, msg, attrs...)
}

// logEventPanic writes the error line of an event handler's panic.
func (a *App) logEventPanic(ctx context.Context, f *function, pe *PanicError) {
	a.logEvent(ctx, "panic", f, pe, pe.Stack)
}

// logEventError writes the error line of an event handler's error: the
// whole invocation failed (Lambda retries it or sends it to its
// destination), and nothing else would say why in the function's log.
func (a *App) logEventError(ctx context.Context, f *function, err error) {
	a.logEvent(ctx, "uncaught error", f, err, nil)
}

// logEvent writes an event handler's error line; stack only for a panic.
func (a *App) logEvent(ctx context.Context, msg string, f *function, err error, stack []byte) {
	a.logInvocation(ctx, msg, f.Kind, f.Name, err, stack)
}

// logInvocation writes the error line of a failed invocation of the
// handler name of kind; stack only for a panic.
func (a *App) logInvocation(ctx context.Context, msg string, kind HandlerKind, name string, err error, stack []byte) {
	attrs := make([]slog.Attr, 0, 5)
	if id := lambdaRequestID(ctx); id != "" {
		attrs = append(attrs, slog.String(names.RequestIDKey, id))
	}
	attrs = append(attrs,
		slog.String("kind", string(kind)),
		slog.String("handler", name),
		slog.String("error", err.Error()),
	)
	if stack != nil {
		attrs = append(attrs, slog.String("stack", string(stack)))
	}
	a.logError(ctx, msg, attrs...)
}
