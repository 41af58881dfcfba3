package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/names"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

func accessApp(t testing.TB) *App {
	app := New("shop")
	app.Route("/users/{name}", func(r *Request, name string) (any, error) {
		slog.InfoContext(r.Context(), "looking up", "name", name)
		slog.Info("without the context")
		if name == "missing" {
			return nil, NotFoundError{Message: "no user " + name}
		}
		return map[string]string{"name": name}, nil
	})
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	return app
}

func lambdaCtx(id string) context.Context {
	return lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: id})
}

func TestAccessLine(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	app := accessApp(t)
	tests := []struct {
		name, path string
		status     int
		wantPath   string
	}{
		{"found", "/users/ada", 200, "/users/ada"},
		{"error", "/users/missing", 404, "/users/missing"},
		{"escaped", "/users/a%22b%0Ac%E2%80%A8", 200, "/users/a\"b\nc\u2028"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			h := app.accessLogged(&out)
			ev := app.gatewayEvent("GET", tt.path, nil, map[string]string{"Accept": "application/json"}, "prod")
			ev.RequestContext.RequestID = "api-req-1"
			resp, err := h(lambdaCtx("8f5e2c1a-0000-4000-8000-000000000001"), ev)
			if err != nil || resp.StatusCode != tt.status {
				t.Fatalf("response %d, %v; want %d", resp.StatusCode, err, tt.status)
			}
			line := out.String()
			if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "}\n") || !strings.HasPrefix(line, `{"time":"`) {
				t.Fatalf("want one JSON line, got %q", line)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatalf("access line %q: %v", line, err)
			}
			want := map[string]any{"type": "access", "request_id": "8f5e2c1a-0000-4000-8000-000000000001", "method": "GET",
				"resource": "/users/{name}", "path": tt.wantPath, "status": float64(tt.status), "api_request_id": "api-req-1"}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v (line %s)", k, got[k], v, line)
				}
			}
			if d, ok := got["duration_ms"].(float64); !ok || d < 0 || d > 10000 {
				t.Errorf("duration_ms = %v", got["duration_ms"])
			}
		})
	}
}

func TestAccessLogSwitch(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	app := accessApp(t)
	ev := app.gatewayEvent("GET", "/users/ada", nil, nil, "prod")
	for _, tc := range []struct {
		value string
		lines int
	}{{"", 1}, {"true", 1}, {"false", 0}, {"0", 0}, {"off", 0}} {
		var out bytes.Buffer
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
		if _, err := app.lambdaServe(&out, tc.value)(lambdaCtx("r1"), ev); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), `"type":"access"`); n != tc.lines {
			t.Errorf("%s=%q: %d access lines, want %d:\n%s", names.EnvAccessLog, tc.value, n, tc.lines, out.String())
		}
	}
}

// TestSlogRequestID: in Lambda mode the app's slog records carry the
// request id, with or without the request's context; the default
// handler becomes JSON on stdout, an app's own handler is kept.
func TestSlogRequestID(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	app := accessApp(t)
	ev := app.gatewayEvent("GET", "/users/ada", nil, nil, "prod")

	// The app set no handler: JSON lines on stdout, before the access line.
	var stdout bytes.Buffer
	slog.SetDefault(initialLogger)
	h := app.lambdaServe(&stdout, "")
	if _, ok := slog.Default().Handler().(*RequestIDHandler); !ok {
		t.Fatalf("slog default handler is %T, want *RequestIDHandler", slog.Default().Handler())
	}
	if _, err := h(lambdaCtx("req-a"), ev); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("stdout:\n%s\nwant two slog lines and the access line", stdout.String())
	}
	for i, want := range []string{"looking up", "without the context"} {
		var rec map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &rec); err != nil {
			t.Fatalf("slog line %q: %v", lines[i], err)
		}
		if rec["msg"] != want || rec["request_id"] != "req-a" || rec["level"] != "INFO" {
			t.Errorf("slog line %s, want msg %q with request_id req-a", lines[i], want)
		}
	}
	if !strings.Contains(lines[2], `"type":"access","request_id":"req-a"`) {
		t.Errorf("third line %s, want the access line", lines[2])
	}
	slog.Info("between invocations")
	if strings.Contains(stdout.String(), `"msg":"between invocations","request_id"`) {
		t.Error("a record logged between invocations got a request id")
	}

	// The app's own handler is wrapped, not replaced.
	var own bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&own, nil)))
	stdout.Reset()
	h = app.lambdaServe(&stdout, "false")
	if _, err := h(lambdaCtx("req-b"), ev); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 || strings.Count(own.String(), "request_id=req-b") != 2 {
		t.Errorf("own handler got:\n%s\nstdout:\n%s", own.String(), stdout.String())
	}
}

// initialLogger is slog's default before any test changes it.
var initialLogger = slog.Default()

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "tab\tnl\ncr\r\x00\x1f", "é€😀", "bad\xffutf8\xc3", "\u2028<&>"} {
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%q → %s: %v", s, b, err)
			continue
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); got != want {
			t.Errorf("%q → %s → %q, want %q", s, b, got, want)
		}
	}
}

// BenchmarkLambdaAccessLog compares HandleEvent alone with the handler Run
// serves Lambda events with: HandleEvent plus the access line (written to
// io.Discard) and the request id bookkeeping.
func BenchmarkLambdaAccessLog(b *testing.B) {
	app := New("bench")
	app.Route("/users/{name}", func(r *Request, name string) (any, error) {
		return map[string]string{"name": name}, nil
	})
	if err := app.Validate(); err != nil {
		b.Fatal(err)
	}
	ev := app.gatewayEvent("GET", "/users/ada", nil, map[string]string{"Accept": "application/json"}, "dev")
	ctx := lambdaCtx("8f5e2c1a-0000-4000-8000-000000000001")
	b.Run("handleevent", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = app.handleEvent(ctx, ev)
		}
	})
	b.Run("accesslog", func(b *testing.B) {
		h := app.accessLogged(io.Discard)
		b.ReportAllocs()
		for b.Loop() {
			_, _ = h(ctx, ev)
		}
	})
}

// TestLogPackageKept: the standard log package keeps its output when Run
// installs the slog handler (aws-lambda-go reports function errors with it).
func TestLogPackageKept(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	defer log.SetOutput(log.Writer())
	defer log.SetFlags(log.Flags())
	var logOut, stdout bytes.Buffer
	log.SetOutput(&logOut)
	log.SetFlags(0)
	slog.SetDefault(initialLogger)
	installLogHandler(&stdout, nil)
	log.Printf(`{"errorType":"X"}`)
	if logOut.String() != "{\"errorType\":\"X\"}\n" || stdout.Len() != 0 {
		t.Errorf("log output %q, stdout %q; want the line as written, on log's own output", logOut.String(), stdout.String())
	}
}

// TestDropErrorPayloads: in Lambda the standard log package keeps the app's
// own lines and loses only the runtime client's copy of an error payload.
func TestDropErrorPayloads(t *testing.T) {
	var out bytes.Buffer
	w := dropErrorPayloads{&out}
	for _, line := range []string{
		"2026/11/25 02:19:57 {\"errorMessage\":\"handler \\\"nightly\\\" panicked: boom\",\"errorType\":\"PanicError\"}\n",
		"2026/11/25 02:19:57 user line\n",
		"2026/11/25 02:19:57 saved {\"errorMessage\":\"x\",\"errorType\":\"y\"}\n",
		"failed to get the next invoke: connection refused\n",
	} {
		if n, err := w.Write([]byte(line)); n != len(line) || err != nil {
			t.Errorf("Write(%q) = %d, %v", line, n, err)
		}
	}
	want := "2026/11/25 02:19:57 user line\n2026/11/25 02:19:57 saved {\"errorMessage\":\"x\",\"errorType\":\"y\"}\nfailed to get the next invoke: connection refused\n"
	if out.String() != want {
		t.Errorf("passed on\n%s\nwant\n%s", out.String(), want)
	}
}
