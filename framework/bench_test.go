package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/framework-dev/framework/internal/apphook"

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
//   - lambda-json: App.Invoke with the event's JSON, as the deployed
//     function serves it (decoding the event, encoding the response).
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
	app.Route("/echo", echoUntyped, framework.Methods("POST"))
	if err := app.Validate(); err != nil {
		b.Fatal(err)
	}
	return app
}

// echoUntyped answers the benchPayload of the request's JSON body, which
// it decodes itself.
func echoUntyped(r *framework.Request) (any, error) {
	var p benchPayload
	if err := r.DecodeJSON(&p); err != nil {
		return nil, err
	}
	return p, nil
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
	b.Run("nethttp", func(b *testing.B) { benchHTTP(b, bareHandler(), c) })
	b.Run("local", func(b *testing.B) { benchHTTP(b, apphook.Of(app).Handler("dev"), c) })
	b.Run("lambda", func(b *testing.B) { benchLambda(b, app, c) })
	b.Run("lambda-json", func(b *testing.B) {
		// What the deployed function does per invocation: App.Invoke, the
		// one dispatch point, decodes the event and encodes the response.
		raw, err := json.Marshal(benchEvent(app, c))
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		resp, err := apphook.Of(app).Invoke(ctx, "", raw)
		var out events.APIGatewayProxyResponse
		if err != nil || json.Unmarshal(resp, &out) != nil || out.StatusCode != 200 || out.Body != c.wantBody {
			b.Fatalf("Invoke = %s, %v; want 200 %s", resp, err, c.wantBody)
		}
		b.ReportAllocs()
		for b.Loop() {
			_, _ = apphook.Of(app).Invoke(ctx, "", raw)
		}
	})
}

// benchHTTP serves c through h, as the local server does without a network.
func benchHTTP(b *testing.B, h http.Handler, c benchCase) {
	body := bytes.NewReader(nil)
	req := httptest.NewRequest(c.method, c.path, nil)
	for k, v := range c.headers {
		req.Header.Set(k, v)
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
	if rec := run(); rec.Code != 200 || !bytes.Equal(bytes.TrimSpace(rec.Body.Bytes()), []byte(c.wantBody)) {
		b.Fatalf("%s %s = %d %q, want 200 %s", c.method, c.path, rec.Code, rec.Body, c.wantBody)
	}
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}

// benchEvent is the API Gateway event of c.
func benchEvent(app *framework.App, c benchCase) events.APIGatewayProxyRequest {
	var body []byte
	if c.body != "" {
		body = []byte(c.body)
	}
	return apphook.Of(app).GatewayEvent(c.method, c.path, body, c.headers, "dev")
}

// benchLambda serves c's prepared event through HandleEvent.
func benchLambda(b *testing.B, app *framework.App, c benchCase) {
	ev := benchEvent(app, c)
	ctx := context.Background()
	if out, err := apphook.Of(app).HandleEvent(ctx, ev); err != nil || out.StatusCode != 200 || out.Body != c.wantBody {
		b.Fatalf("HandleEvent = %d %q, %v; want 200 %s", out.StatusCode, out.Body, err, c.wantBody)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = apphook.Of(app).HandleEvent(ctx, ev)
	}
}
