package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
)

// The benchmarks measure the framework's cost per request against a bare
// net/http handler doing the same work, in the same run:
//
//   - nethttp: a plain http.Handler (the floor);
//   - local: the framework's local http.Handler (API Gateway emulation and
//     the pipeline), through httptest without a network;
//   - lambda: HandleEvent with a prepared API Gateway event;
//   - lambda-json: HandleEvent plus the event's JSON decoding and the
//     response's JSON encoding, the work aws-lambda-go adds per invocation.
//
// Compare ns/op and allocs/op within one Benchmark.

const benchBody = `{"name":"ada","age":36,"tags":["x","y"]}`

type benchPayload struct {
	Name string   `json:"name"`
	Age  int      `json:"age"`
	Tags []string `json:"tags"`
}

func benchApp(b *testing.B) *framework.App {
	app := framework.New("bench")
	app.Route("/", func(r *framework.Request) (any, error) {
		return map[string]string{"hello": "world"}, nil
	})
	app.Route("/echo", func(r *framework.Request) (any, error) {
		var p benchPayload
		if err := r.DecodeJSON(&p); err != nil {
			return nil, err
		}
		return p, nil
	}, framework.Methods("POST"))
	if err := app.Validate(); err != nil {
		b.Fatal(err)
	}
	return app
}

// bareHandler does the benchmarked work with net/http alone.
func bareHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"hello": "world"})
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		var p benchPayload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p)
	})
	return mux
}

type benchCase struct {
	method, path, body string
	headers            map[string]string
	wantBody           string
}

var (
	benchGet  = benchCase{method: "GET", path: "/", headers: map[string]string{"Accept": "application/json"}, wantBody: `{"hello":"world"}`}
	benchPost = benchCase{method: "POST", path: "/echo", body: benchBody,
		headers: map[string]string{"Accept": "application/json", "Content-Type": "application/json"}, wantBody: `{"name":"ada","age":36,"tags":["x","y"]}`}
)

func BenchmarkGetRoot(b *testing.B) { runBench(b, benchGet) }

func BenchmarkPostJSON(b *testing.B) { runBench(b, benchPost) }

func runBench(b *testing.B, c benchCase) {
	app := benchApp(b)
	serveHTTP := func(b *testing.B, h http.Handler) {
		body := bytes.NewReader([]byte(c.body))
		req := httptest.NewRequest(c.method, c.path, nil)
		for k, v := range c.headers {
			req.Header.Set(k, v)
		}
		check := func(rec *httptest.ResponseRecorder) {
			if rec.Code != 200 || !bytes.Equal(bytes.TrimSpace(rec.Body.Bytes()), []byte(c.wantBody)) {
				b.Fatalf("%s %s = %d %q, want 200 %s", c.method, c.path, rec.Code, rec.Body, c.wantBody)
			}
		}
		run := func() *httptest.ResponseRecorder {
			if c.body != "" {
				body.Reset([]byte(c.body))
				req.Body, req.ContentLength = io.NopCloser(body), int64(len(c.body))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		check(run())
		b.ReportAllocs()
		for b.Loop() {
			run()
		}
	}
	b.Run("nethttp", func(b *testing.B) { serveHTTP(b, bareHandler()) })
	b.Run("local", func(b *testing.B) { serveHTTP(b, app.Handler("dev")) })

	var reqBody []byte
	if c.body != "" {
		reqBody = []byte(c.body)
	}
	ev := app.GatewayEvent(c.method, c.path, reqBody, c.headers, "dev")
	ctx := context.Background()
	b.Run("lambda", func(b *testing.B) {
		out, err := app.HandleEvent(ctx, ev)
		if err != nil || out.StatusCode != 200 || out.Body != c.wantBody {
			b.Fatalf("HandleEvent = %d %q, %v; want 200 %s", out.StatusCode, out.Body, err, c.wantBody)
		}
		b.ReportAllocs()
		for b.Loop() {
			_, _ = app.HandleEvent(ctx, ev)
		}
	})
	b.Run("lambda-json", func(b *testing.B) {
		raw, err := json.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		invoke := func() []byte {
			var in events.APIGatewayProxyRequest
			if err := json.Unmarshal(raw, &in); err != nil {
				b.Fatal(err)
			}
			out, _ := app.HandleEvent(ctx, in)
			resp, err := json.Marshal(out)
			if err != nil {
				b.Fatal(err)
			}
			return resp
		}
		var out events.APIGatewayProxyResponse
		if err := json.Unmarshal(invoke(), &out); err != nil || out.StatusCode != 200 || out.Body != c.wantBody {
			b.Fatalf("invoke = %d %q, %v", out.StatusCode, out.Body, err)
		}
		b.ReportAllocs()
		for b.Loop() {
			invoke()
		}
	})
}
