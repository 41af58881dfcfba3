package framework

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/framework-dev/framework/internal/names"
)

// Log lines. An app's request lines (RequestLogger), error lines and the
// records of its default slog logger share one format per process:
//
//   - in Lambda, JSON (one object per line, as CloudWatch Logs Insights
//     reads them);
//   - served on this machine (`framework local`, `invoke --local`, or the
//     app run by itself), one readable line per record on stderr:
//
//     15:04:05 INFO  request request_id=c0a1... method=GET path=/users/ada status=200 duration_ms=0.412
//
//     with the level colored when stderr is a terminal and NO_COLOR is not
//     set, plain otherwise; a panic's stack follows its line, indented.
//
// names.EnvLogFormat, which `framework local` and `invoke --local` set for
// the processes they start, chooses the format explicitly.

// logFormat returns the log format of this process: names.EnvLogFormat
// when it is set, else JSON in Lambda, else text, colored when stderr is a
// terminal and NO_COLOR is not set.
func logFormat() string {
	switch v := os.Getenv(names.EnvLogFormat); v {
	case names.LogJSON, names.LogText, names.LogColor:
		return v
	}
	if os.Getenv(names.EnvLambdaRuntimeAPI) != "" {
		return names.LogJSON
	}
	if os.Getenv("NO_COLOR") == "" && isTerminal(os.Stderr) {
		return names.LogColor
	}
	return names.LogText
}

// isTerminal reports whether f is a character device, as a terminal is.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newLogHandler returns the handler of format writing to w (JSON lines
// for names.LogJSON, readable lines otherwise).
//
// The Lambda build (-tags lambda.norpc) has no readable format:
// textLogHandler is set by run_local.go only, so the linker leaves the
// text handler out of the deployed binary, which always logs JSON (the
// local commands run host builds, which have it).
func newLogHandler(format string, w io.Writer) slog.Handler {
	if format == names.LogJSON || textLogHandler == nil {
		return slog.NewJSONHandler(w, nil)
	}
	return textLogHandler(w, format == names.LogColor)
}

// textLogHandler makes the readable local format's handler; nil in the
// Lambda build.
var textLogHandler func(w io.Writer, color bool) slog.Handler

// readableHandler returns the readable format's handler writing to w when
// format is one of its two forms and the build has it; nil otherwise.
func readableHandler(w io.Writer, format string) slog.Handler {
	if textLogHandler == nil || (format != names.LogText && format != names.LogColor) {
		return nil
	}
	return textLogHandler(w, format == names.LogColor)
}

// textHandler is the slog.Handler of the readable local format: time,
// level, message, then key=value attributes; a "stack" attribute of
// several lines follows the line, indented.
type textHandler struct {
	mu    *sync.Mutex // shared by the handlers WithAttrs and WithGroup derive
	w     io.Writer
	color bool
	attrs []byte // the attributes given to WithAttrs, formatted
	group string // the open groups, "a.b." (WithGroup)
}

func newTextHandler(w io.Writer, color bool) *textHandler {
	return &textHandler{mu: &sync.Mutex{}, w: w, color: color}
}

// ANSI escapes of the colored format.
const (
	ansiReset  = "\x1b[0m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
)

// Enabled reports whether records of level are written: Info and above,
// as slog's own handlers by default.
func (h *textHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelInfo
}

// WithAttrs returns a handler that writes attrs on every record.
func (h *textHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	h2 := *h
	h2.attrs = append([]byte(nil), h.attrs...)
	for _, a := range attrs {
		h2.attrs, _ = h2.appendAttr(h2.attrs, h.group, a, nil)
	}
	return &h2
}

// WithGroup returns a handler that qualifies the keys of later attributes
// with name.
func (h *textHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.group = h.group + name + "."
	return &h2
}

// Handle writes r as one line (plus a stack's lines) in a single Write.
func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	bp := linePool.Get().(*[]byte)
	b := (*bp)[:0]
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	if h.color {
		b = append(b, ansiDim...)
	}
	b = t.AppendFormat(b, "15:04:05")
	if h.color {
		b = append(b, ansiReset...)
	}
	b = append(b, ' ')
	b = h.appendLevel(b, r.Level)
	b = append(b, ' ')
	b = append(b, r.Message...)
	b = append(b, h.attrs...)
	var stack []string
	r.Attrs(func(a slog.Attr) bool {
		b, stack = h.appendAttr(b, h.group, a, stack)
		return true
	})
	b = append(b, '\n')
	for _, s := range stack {
		for line := range strings.Lines(s) {
			if h.color {
				b = append(b, ansiDim...)
			}
			b = append(b, "    "...)
			b = append(b, strings.TrimRight(line, "\n")...)
			if h.color {
				b = append(b, ansiReset...)
			}
			b = append(b, '\n')
		}
	}
	h.mu.Lock()
	_, err := h.w.Write(b)
	h.mu.Unlock()
	*bp = b
	linePool.Put(bp)
	return err
}

// appendLevel appends the level, padded to five characters.
func (h *textHandler) appendLevel(b []byte, l slog.Level) []byte {
	s := l.String()
	color := ansiGreen
	switch {
	case l >= slog.LevelError:
		color = ansiRed
	case l >= slog.LevelWarn:
		color = ansiYellow
	case l < slog.LevelInfo:
		color = ansiBlue
	}
	if h.color {
		b = append(b, color...)
	}
	b = append(b, s...)
	if h.color {
		b = append(b, ansiReset...)
	}
	for i := len(s); i < 5; i++ {
		b = append(b, ' ')
	}
	return b
}

// appendAttr appends " key=value" for a, its key qualified by group; a
// group's attributes each; a stack of several lines goes to stack instead,
// to follow the line.
func (h *textHandler) appendAttr(b []byte, group string, a slog.Attr, stack []string) ([]byte, []string) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return b, stack
	}
	if a.Value.Kind() == slog.KindGroup {
		inner := group
		if a.Key != "" {
			inner += a.Key + "."
		}
		for _, ga := range a.Value.Group() {
			b, stack = h.appendAttr(b, inner, ga, stack)
		}
		return b, stack
	}
	if a.Key == "stack" && a.Value.Kind() == slog.KindString && strings.Contains(a.Value.String(), "\n") {
		return b, append(stack, a.Value.String())
	}
	b = append(b, ' ')
	if h.color {
		b = append(b, ansiDim...)
	}
	b = append(b, group...)
	b = append(b, a.Key...)
	b = append(b, '=')
	if h.color {
		b = append(b, ansiReset...)
	}
	v := a.Value
	switch v.Kind() {
	case slog.KindString:
		b = appendText(b, v.String())
	case slog.KindInt64:
		b = strconv.AppendInt(b, v.Int64(), 10)
	case slog.KindUint64:
		b = strconv.AppendUint(b, v.Uint64(), 10)
	case slog.KindFloat64:
		b = strconv.AppendFloat(b, v.Float64(), 'f', -1, 64)
	case slog.KindBool:
		b = strconv.AppendBool(b, v.Bool())
	case slog.KindDuration:
		b = append(b, v.Duration().String()...)
	case slog.KindTime:
		b = v.Time().AppendFormat(b, time.RFC3339Nano)
	default:
		x := v.Any()
		if err, ok := x.(error); ok {
			b = appendText(b, err.Error())
		} else {
			b = appendText(b, fmt.Sprint(x))
		}
	}
	return b, stack
}

// appendText appends s as it is when it reads unambiguously as one value,
// else quoted (Go syntax).
func appendText(b []byte, s string) []byte {
	if needsQuote(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuote(s string) bool {
	if s == "" {
		return true
	}
	for _, r := range s {
		if r == ' ' || r == '=' || r == '"' || r == utf8.RuneError || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}
