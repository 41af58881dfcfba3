package framework

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/framework-dev/framework/internal/names"
)

// Structured runtime logs of a deployed app. In Lambda, Run serves each
// API event through accessLogged (inside invokeNamed's dispatch), which
// writes one JSON access line per request to stdout (Lambda sends stdout to CloudWatch Logs), and makes
// log/slog records carry the invocation's request id.
//
// An access line:
//
//	{"time":"2026-11-23T16:18:00.123Z","type":"access","request_id":"8f5e...","method":"GET","resource":"/users/{name}","path":"/users/ada","status":200,"duration_ms":3.214,"api_request_id":"c0a1..."}

// accessLogOff reports whether the value of names.EnvAccessLog turns the access
// lines off.
func accessLogOff(v string) bool {
	switch v {
	case "false", "0", "off", "no", "FALSE", "False", "OFF":
		return true
	}
	return false
}

// current is the request id of the invocation being served: Lambda sends
// a process one event at a time, so a slog record logged without the
// request's context still belongs to it.
var current struct {
	sync.RWMutex
	id string
}

func setCurrent(id string) {
	current.Lock()
	current.id = id
	current.Unlock()
}

// beginInvocation makes the Lambda request id of ctx ("" outside Lambda)
// the current one until setCurrent("") ends the invocation, and returns it.
func beginInvocation(ctx context.Context) string {
	var id string
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		id = lc.AwsRequestID
	}
	setCurrent(id)
	return id
}

// accessLogged returns handleEvent plus one access line per event written
// to access (none when access is nil), with the invocation's request id
// known to RequestIDHandler while it runs: how the deployed API's function
// serves its events.
func (a *App) accessLogged(access io.Writer) func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	return logAccess(access, a.handleEvent, func(ev events.APIGatewayProxyRequest, resp events.APIGatewayProxyResponse) (*events.APIGatewayProxyRequest, int) {
		return &ev, resp.StatusCode
	})
}

// logAccess returns serve with the invocation's request id known to
// RequestIDHandler while it runs, and one access line per event written
// to access (none when access is nil): line gives the request the line
// describes and the answer's status.
func logAccess[E, R any](access io.Writer, serve func(context.Context, E) (R, error), line func(E, R) (*events.APIGatewayProxyRequest, int)) func(context.Context, E) (R, error) {
	return func(ctx context.Context, ev E) (R, error) {
		start := time.Now()
		id := beginInvocation(ctx)
		resp, err := serve(ctx, ev)
		setCurrent("")
		if access != nil {
			req, status := line(ev, resp)
			writeAccessLine(access, start, time.Since(start), id, req, status)
		}
		return resp, err
	}
}

// lambdaServe prepares the process for serving Lambda events: the slog
// default gets the request id (installLogHandler), and access lines go to
// stdout unless names.EnvAccessLog turns them off.
func (a *App) lambdaServe(stdout io.Writer, accessLog string) func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	// The function run on this machine: its logs as the local server's.
	local := readableHandler(os.Stderr, a.logFmt)
	installLogHandler(stdout, local)
	if accessLogOff(accessLog) {
		a.apiEventsV2 = a.accessLoggedV2(nil)
		return a.accessLogged(nil)
	}
	a.apiEventsV2 = a.accessLoggedV2(stdout)
	return a.accessLogged(stdout)
}

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeAccessLine writes the access line of one event in a single Write.
func writeAccessLine(w io.Writer, start time.Time, d time.Duration, id string, ev *events.APIGatewayProxyRequest, status int) {
	bp := linePool.Get().(*[]byte)
	b := (*bp)[:0]
	b = append(b, `{"time":"`...)
	b = start.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	b = append(b, `","type":"`+names.AccessLogType+`","`+names.RequestIDKey+`":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, ev.HTTPMethod)
	resource := ev.Resource
	if resource == "" {
		resource = ev.RequestContext.ResourcePath
	}
	b = append(b, `,"resource":`...)
	b = appendJSONString(b, resource)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, unescapeSegment(ev.Path)) // decoded, as Request.Path and the error line
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 3, 64)
	if ev.RequestContext.RequestID != "" {
		b = append(b, `,"api_request_id":`...)
		b = appendJSONString(b, ev.RequestContext.RequestID)
	}
	b = append(b, "}\n"...)
	_, _ = w.Write(b)
	*bp = b
	linePool.Put(bp)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// lambdaRequestID returns the Lambda request id of the invocation ctx
// belongs to, or of the invocation Run is serving when ctx carries none; ""
// when serving locally.
func lambdaRequestID(ctx context.Context) string {
	if ctx != nil {
		if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
			return lc.AwsRequestID
		}
	}
	current.RLock()
	defer current.RUnlock()
	return current.id
}

// RequestIDHandler is a slog.Handler that adds the attribute request_id
// (the Lambda request id of the record's context, or of the invocation
// being served) to every record it passes on to its
// Handler. Run installs one in Lambda mode; wrap your own handler with it
// to keep the request id when you set the slog default after Run started.
type RequestIDHandler struct {
	// Handler receives the records.
	Handler slog.Handler
}

// Enabled reports whether the wrapped handler handles records of level.
func (h *RequestIDHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.Handler.Enabled(ctx, level)
}

// Handle adds request_id to r, when there is one, and passes it on.
func (h *RequestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := lambdaRequestID(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String(names.RequestIDKey, id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs returns a RequestIDHandler around the wrapped handler's WithAttrs.
func (h *RequestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &RequestIDHandler{Handler: h.Handler.WithAttrs(attrs)}
}

// WithGroup returns a RequestIDHandler around the wrapped handler's WithGroup.
func (h *RequestIDHandler) WithGroup(name string) slog.Handler {
	return &RequestIDHandler{Handler: h.Handler.WithGroup(name)}
}

// installLogHandler makes the slog default add the request id: an app
// that set its own default handler before Run keeps it, wrapped; otherwise
// the default becomes JSON lines on stdout, which CloudWatch Logs Insights
// reads field by field, or local when not nil (a function run on this
// machine by `framework local` or `invoke --local`). The standard log
// package keeps its output and flags (slog.SetDefault would send it
// through the new handler), except with local, whose format it takes, less
// the error payloads aws-lambda-go logs for each failed invocation: the
// app's own error line already reports the failure.
func installLogHandler(stdout io.Writer, local slog.Handler) {
	h := slog.Default().Handler()
	if _, ok := h.(*RequestIDHandler); ok {
		return
	}
	w, flags := log.Writer(), log.Flags()
	if !isDefaultHandler(h) {
		local, appLogHandler = nil, h
	} else if local != nil {
		h = local
	} else {
		h = slog.NewJSONHandler(stdout, nil)
	}
	slog.SetDefault(slog.New(&RequestIDHandler{Handler: h}))
	if local != nil {
		w, flags = log.Writer(), log.Flags() // the log package through h
	}
	log.SetOutput(dropErrorPayloads{w})
	log.SetFlags(flags)
}

// isDefaultHandler reports whether h is the handler slog starts with, not
// the app's choice.
func isDefaultHandler(h slog.Handler) bool {
	return fmt.Sprintf("%T", h) == "*slog.defaultHandler"
}

// installLocalLogHandler makes the slog default (and through it the
// standard log package) write the local format (logtext.go) on stderr,
// unless the app set its own default before Run.
func installLocalLogHandler(format string, stderr io.Writer) {
	if h := slog.Default().Handler(); isDefaultHandler(h) {
		slog.SetDefault(slog.New(newLogHandler(format, stderr)))
	} else {
		appLogHandler = h
	}
}

// dropErrorPayloads passes on what the standard log package writes, except
// the line aws-lambda-go's invoke loop logs for a failed invocation: its
// error payload, {"errorMessage":...,"errorType":...}, after the log
// package's date and time.
type dropErrorPayloads struct{ w io.Writer }

func (d dropErrorPayloads) Write(p []byte) (int, error) {
	if i := bytes.Index(p, []byte(`{"errorMessage":`)); i >= 0 &&
		len(bytes.Trim(p[:i], "0123456789/:. ")) == 0 &&
		bytes.Contains(p[i:], []byte(`"errorType":`)) && bytes.HasSuffix(bytes.TrimSpace(p), []byte("}")) {
		return len(p), nil
	}
	return d.w.Write(p)
}
