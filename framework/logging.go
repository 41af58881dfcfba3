package framework

import (
	"log/slog"
	"os"
	"time"

	"github.com/framework-dev/framework/internal/names"
)

// RequestLogger returns middleware that logs one line per request with
// log/slog at level Info (Error for a 5xx): the message "request" and the
// attributes request_id (API Gateway's, or the local server's), method,
// path, route, handler, status and duration_ms. With a nil logger it logs
// JSON lines on stdout inside Lambda (CloudWatch Logs keeps one event per
// line) and, served on this machine, the readable lines the app's other
// logs take there too, on stderr (see logtext.go).
//
// The status is the one the handler's response or error answers with; a
// panic is logged as 500 and then answered as usual. Registered for an event
// kind (App.UseFor), it logs the message "invocation" with request_id (the
// Lambda request ID), kind, handler, ok and duration_ms. Register it first
// (App.Use) to time the other middleware too.
func RequestLogger(logger *slog.Logger) Middleware {
	if logger == nil {
		logger = defaultRequestLogger()
	}
	return func(c *Call, next Next) (resp *Response, err error) {
		start := time.Now()
		status := 500
		defer func() {
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			duration := slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000)
			r := c.Request
			if r == nil {
				// An event handler (UseFor an event kind or KindAll).
				logger.LogAttrs(c.Context(), level, "invocation",
					slog.String("request_id", c.RequestID),
					slog.String("kind", string(c.Kind)),
					slog.String("handler", c.Handler),
					slog.Bool("ok", status < 500),
					duration,
				)
				return
			}
			logger.LogAttrs(r.Context(), level, "request",
				slog.String("request_id", c.RequestID),
				slog.String("method", r.Method),
				slog.String("path", r.Path),
				slog.String("route", r.GatewayContext.ResourcePath),
				slog.Int("status", status),
				duration,
			)
		}()
		resp, err = next(c)
		status = statusOf(resp, err)
		return resp, err
	}
}

// defaultRequestLogger is RequestLogger's logger when none is given.
func defaultRequestLogger() *slog.Logger {
	f := logFormat()
	if f == names.LogJSON && os.Getenv(names.EnvLambdaRuntimeAPI) != "" {
		return slog.New(slog.NewJSONHandler(os.Stdout, nil))
	}
	return slog.New(newLogHandler(f, os.Stderr))
}

// defaultRequestIDHeader is the header RequestID echoes by default.
const defaultRequestIDHeader = "X-Request-Id"

// RequestID returns middleware that sets the response header header
// (defaultRequestIDHeader when empty) on every answer of the function,
// errors included: the request's own value of that header when the client
// sent one, else API Gateway's request ID (the local server makes one up
// the same way). Clients and logs can then name the same request.
func RequestID(header string) Middleware {
	if header == "" {
		header = defaultRequestIDHeader
	}
	return func(c *Call, next Next) (*Response, error) {
		if r := c.Request; r != nil {
			id := r.Headers.Get(header)
			if id == "" {
				id = c.RequestID
			}
			r.SetResponseHeader(header, id)
		}
		return next(c)
	}
}
