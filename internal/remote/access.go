package remote

import (
	"encoding/json"
	"strconv"
	"strings"
)

// AccessLine is the JSON line the framework's Lambda adapter writes for
// each request it answers (names.AccessLogType).
type AccessLine struct {
	Time         string  `json:"time"`
	Type         string  `json:"type"`
	RequestID    string  `json:"request_id"`
	Method       string  `json:"method"`
	Resource     string  `json:"resource"`
	Path         string  `json:"path"`
	Status       int     `json:"status"`
	DurationMS   float64 `json:"duration_ms"`
	APIRequestID string  `json:"api_request_id,omitempty"`
}

// ParseAccessLine reads msg as an access line; ok is false for any other
// message.
func ParseAccessLine(msg string) (l AccessLine, ok bool) {
	if !strings.HasPrefix(msg, "{") || !strings.Contains(msg, `"type":"access"`) {
		return l, false
	}
	if err := json.Unmarshal([]byte(msg), &l); err != nil || l.Type != "access" || l.Method == "" || l.Status == 0 {
		return AccessLine{}, false
	}
	return l, true
}

// Compact returns an access line as "GET /users/{name} 200 3.2ms
// req=8f5e2c1a" (the resource path API Gateway matched, or the request's
// path when there is none, and the first 8 characters of the Lambda
// request id), and any other message as it is.
func Compact(msg string) string {
	l, ok := ParseAccessLine(msg)
	if !ok {
		return msg
	}
	path := l.Resource
	if path == "" {
		path = l.Path
	}
	var b strings.Builder
	b.WriteString(l.Method)
	b.WriteByte(' ')
	b.WriteString(path)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(l.Status))
	b.WriteByte(' ')
	b.WriteString(FormatDuration(l.DurationMS))
	if id := l.RequestID; id != "" {
		if len(id) > 8 {
			id = id[:8]
		}
		b.WriteString(" req=")
		b.WriteString(id)
	}
	return b.String()
}

// FormatDuration writes milliseconds compactly: 0.04ms, 3.2ms, 48ms, 1.25s.
func FormatDuration(ms float64) string {
	switch {
	case ms < 1:
		return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
	default:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + "s"
	}
}
