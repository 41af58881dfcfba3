package remote

import (
	"testing"
	"time"
)

func TestCompact(t *testing.T) {
	tests := []struct{ msg, want string }{
		{`{"time":"2026-11-23T16:18:00.123Z","type":"access","request_id":"8f5e2c1a-0000-4000-8000-000000000001","method":"GET","resource":"/users/{name}","path":"/users/ada","status":200,"duration_ms":3.214,"api_request_id":"c0a1"}`,
			"GET /users/{name} 200 3.2ms req=8f5e2c1a"},
		{`{"time":"2026-11-23T16:18:00.123Z","type":"access","request_id":"r1","method":"POST","resource":"","path":"/nowhere","status":404,"duration_ms":0.04}`,
			"POST /nowhere 404 0.04ms req=r1"},
		{`{"type":"access","request_id":"","method":"PUT","resource":"/items","path":"/items","status":500,"duration_ms":1250}`,
			"PUT /items 500 1.25s"},
		{`{"type":"access","method":"GET","resource":"/","status":200,"duration_ms":48.4}`, "GET / 200 48ms"},
		// Not access lines: as they are.
		{`{"time":"2026-11-23T16:18:00Z","level":"INFO","msg":"looking up","request_id":"r1"}`, `{"time":"2026-11-23T16:18:00Z","level":"INFO","msg":"looking up","request_id":"r1"}`},
		{`{"type":"access","note":"a user's own line"}`, `{"type":"access","note":"a user's own line"}`},
		{`{"type":"access", broken`, `{"type":"access", broken`},
		{"START RequestId: 1 Version: $LATEST", "START RequestId: 1 Version: $LATEST"},
	}
	for _, tt := range tests {
		if got := Compact(tt.msg); got != tt.want {
			t.Errorf("Compact(%s) = %q, want %q", tt.msg, got, tt.want)
		}
	}
	e := Event{Time: time.Date(2026, 11, 23, 16, 18, 0, 123e6, time.UTC), Stream: "2026/11/23/[$LATEST]0123456789abcdef", Message: tests[0].msg}
	if got, want := e.Line(), "2026-11-23T16:18:00.123Z 01234567 GET /users/{name} 200 3.2ms req=8f5e2c1a"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
}
