package framework_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
	"github.com/framework-dev/framework/internal/testutil"
)

// correlationKeys are the keys every framework.Logger record carries,
// routes and event handlers alike.
var correlationKeys = []string{"request_id", "function", "handler", "cold_start", "xray_trace_id", "stage", "service"}

// cloudWatchUnits are the units CloudWatch takes.
var cloudWatchUnits = strings.Split("Seconds Microseconds Milliseconds Bytes Kilobytes Megabytes Gigabytes Terabytes Bits Kilobits Megabits Gigabits Terabits Percent Count Bytes/Second Kilobytes/Second Megabytes/Second Gigabytes/Second Terabytes/Second Bits/Second Kilobits/Second Megabits/Second Gigabits/Second Terabits/Second Count/Second None", " ")

// emfMetric is one metric of an EMF line, checked against the format.
type emfMetric struct {
	unit   string
	dims   []string
	values []float64
}

// parseEMF parses one line as CloudWatch's Embedded Metric Format and
// checks it as CloudWatch would: the _aws metadata with a millisecond
// Timestamp and CloudWatchMetrics directives, each with a Namespace, at
// most 30 dimensions per set, at most 100 metrics, known units, and every
// dimension and metric a member of the root (a metric's value a number or
// an array of at most 100). It returns the metrics by name, and the root.
func parseEMF(t *testing.T, line string) (map[string]emfMetric, map[string]any) {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal([]byte(line), &root); err != nil {
		t.Fatalf("not JSON: %v: %s", err, line)
	}
	var doc struct {
		AWS *struct {
			Timestamp         *int64
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		} `json:"_aws"`
	}
	if err := json.Unmarshal([]byte(line), &doc); err != nil || doc.AWS == nil || doc.AWS.Timestamp == nil || len(doc.AWS.CloudWatchMetrics) == 0 {
		t.Fatalf("no _aws metadata with Timestamp and CloudWatchMetrics (%v): %s", err, line)
	}
	if ts := time.UnixMilli(*doc.AWS.Timestamp); time.Since(ts) > time.Hour || time.Until(ts) > time.Hour {
		t.Errorf("Timestamp %v is not now in milliseconds", ts)
	}
	out := map[string]emfMetric{}
	for _, d := range doc.AWS.CloudWatchMetrics {
		if d.Namespace == "" || len(d.Metrics) == 0 || len(d.Metrics) > 100 || len(d.Dimensions) == 0 {
			t.Errorf("directive %+v: a namespace, 1 to 100 metrics and a dimension set needed", d)
		}
		for _, set := range d.Dimensions {
			if len(set) > 30 {
				t.Errorf("a dimension set of %d: CloudWatch takes 30", len(set))
			}
			for _, k := range set {
				if _, ok := root[k].(string); !ok {
					t.Errorf("dimension %q is not a string member of the root", k)
				}
			}
		}
		for _, m := range d.Metrics {
			if !slices.Contains(cloudWatchUnits, m.Unit) {
				t.Errorf("metric %s: unit %q is not CloudWatch's", m.Name, m.Unit)
			}
			var vals []float64
			switch v := root[m.Name].(type) {
			case float64:
				vals = []float64{v}
			case []any:
				for _, x := range v {
					f, ok := x.(float64)
					if !ok {
						t.Errorf("metric %s: value %v is not a number", m.Name, x)
					}
					vals = append(vals, f)
				}
				if len(vals) > 100 {
					t.Errorf("metric %s: %d values, EMF takes 100", m.Name, len(vals))
				}
			default:
				t.Errorf("metric %s: no number member in the root: %v", m.Name, root[m.Name])
			}
			out[m.Name] = emfMetric{unit: m.Unit, dims: d.Dimensions[0], values: vals}
		}
	}
	return out, root
}

// jsonLines returns the JSON objects of out whose key has value.
func jsonLines(out, key, value string) []map[string]any {
	var lines []map[string]any
	for line := range strings.Lines(out) {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m[key] == value {
			lines = append(lines, m)
		}
	}
	return lines
}

// emfLines returns the lines of out that are metrics lines.
func emfLines(out string) []string {
	var lines []string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, `{"_aws":`) {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

// waitOutput waits until out holds n lines that ok accepts and returns it.
func waitOutput(t *testing.T, out *lockedbuf.Buffer, what string, ok func(string) bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	written, done := out.Wait(ctx, ok)
	if !done {
		t.Fatalf("no %s in the function's output:\n%s", what, written)
	}
	return written
}

// TestObservabilityLambda runs testdata/obsapp built as deployed under the
// local Runtime API (the real aws-lambda-go loop, which gives each
// invocation its request id and X-Ray trace header): a route and an SQS
// handler each write one EMF line per invocation, ColdStart in the first
// only, and JSON log lines with the same correlation keys, which match the
// metrics line's request and trace ids.
func TestObservabilityLambda(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an app")
	}
	bin := testutil.BuildBootstrap(t, "testdata/obsapp")
	env := func(more ...string) []string {
		return build.AppEnviron(os.Environ(), append([]string{names.EnvStage + "=dev"}, more...)...)
	}
	order, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "POST", Path: "/orders", Resource: "/orders", Body: "{}",
		RequestContext: events.APIGatewayProxyRequestContext{RequestID: "api-1", ResourcePath: "/orders", HTTPMethod: "POST", Stage: "dev"}})
	sqs, err := os.ReadFile("../examples/events/testdata/sqs.json")
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string]map[string]any{} // the first log line of each function

	for _, tc := range []struct {
		name, handler, msg string
		event              []byte
		metric             string
		want               emfMetric
		dims               []string
	}{
		{name: "route", handler: "", msg: "order placed", event: order, metric: "CartValue",
			want: emfMetric{unit: "None", values: []float64{42.5, 7}}, dims: []string{"service", "stage", "function", "Channel"}},
		{name: "sqs", handler: "orders", msg: "messages received", event: sqs, metric: "MessagesProcessed",
			want: emfMetric{unit: "Count", values: []float64{2}}, dims: []string{"service", "stage", "function"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := testutil.StartFunction(t, bin, env(names.EnvHandler+"="+tc.handler), runtimeapi.WithTimeout(10*time.Second))
			for range 2 {
				if _, err := fn.Invoke(t.Context(), tc.event); err != nil {
					t.Fatalf("invoke: %v", err)
				}
			}
			var ids []string // the request ids of the metrics lines
			out := waitOutput(t, fn.Output, "two metrics lines", func(s string) bool { return len(emfLines(s)) == 2 })
			lines := emfLines(out)
			for i, line := range lines {
				metrics, root := parseEMF(t, line)
				if got := metrics[tc.metric]; got.unit != tc.want.unit || !slices.Equal(got.values, tc.want.values) || !slices.Equal(got.dims, tc.dims) {
					t.Errorf("invocation %d: %s = %+v, want %+v with dimensions %v", i, tc.metric, got, tc.want, tc.dims)
				}
				function := "api"
				if tc.handler != "" {
					function = tc.handler
				}
				id, _ := root["request_id"].(string)
				if root["service"] != "obsapp" || root["stage"] != "dev" || root["function"] != function || id == "" || slices.Contains(ids, id) {
					t.Errorf("invocation %d: service %v stage %v function %v request_id %q; want obsapp, dev, %s and the invocation's own request id", i, root["service"], root["stage"], root["function"], id, function)
				}
				ids = append(ids, id)
				cold, hasCold := metrics["ColdStart"]
				if (i == 0) != hasCold {
					t.Errorf("invocation %d: ColdStart metric %v, want it in the first line only", i, hasCold)
				}
				if hasCold && (cold.unit != "Count" || !slices.Equal(cold.values, []float64{1}) || !slices.Equal(cold.dims, []string{"service", "stage", "function"})) {
					t.Errorf("ColdStart %+v, want 1 Count by service, stage and function", cold)
				}
				trace, _ := root["xray_trace_id"].(string)
				if !strings.HasPrefix(trace, "1-") {
					t.Errorf("invocation %d: xray_trace_id %q, want the Root of the invocation's trace header", i, trace)
				}
				logLines := jsonLines(out, "msg", tc.msg)
				if len(logLines) != 2 {
					t.Fatalf("%d log lines %q, want 2 (JSON)", len(logLines), tc.msg)
				}
				l := logLines[i]
				for _, k := range correlationKeys {
					if _, ok := l[k]; !ok {
						t.Errorf("log line %v has no %s", l, k)
					}
				}
				if l["request_id"] != ids[i] || l["xray_trace_id"] != trace || l["cold_start"] != (i == 0) || l["stage"] != "dev" || l["function"] != function {
					t.Errorf("invocation %d: log line %v; want request_id %s, xray_trace_id %s (the metrics line's), cold_start %v", i, l, ids[i], trace, i == 0)
				}
				if i == 0 {
					logs[tc.name] = l
				}
			}
			if strings.Contains(out, "order detail") {
				t.Errorf("a debug line written at the default level info:\n%s", out)
			}
		})
	}
	// The route's and the event handler's lines carry the same keys.
	if r, e := logs["route"], logs["sqs"]; r != nil && e != nil {
		for _, k := range correlationKeys {
			if _, ok := e[k]; !ok {
				t.Errorf("the event handler's line has no %s, the route's has", k)
			}
		}
	}

	// log_level debug, or a sample rate of 1 at level info, lets the
	// debug line through.
	for _, v := range []string{names.EnvLogLevel + "=debug", names.EnvLogSampleRate + "=1"} {
		t.Run(v, func(t *testing.T) {
			fn := testutil.StartFunction(t, bin, env(v), runtimeapi.WithTimeout(10*time.Second))
			if _, err := fn.Invoke(t.Context(), order); err != nil {
				t.Fatal(err)
			}
			waitOutput(t, fn.Output, "the debug line", func(s string) bool { return len(jsonLines(s, "msg", "order detail")) == 1 })
		})
	}

	t.Run("refused metrics", func(t *testing.T) {
		fn := testutil.StartFunction(t, bin, env(), runtimeapi.WithTimeout(10*time.Second))
		bad, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/bad-metrics", Resource: "/bad-metrics",
			RequestContext: events.APIGatewayProxyRequestContext{RequestID: "api-2", ResourcePath: "/bad-metrics", HTTPMethod: "GET", Stage: "dev"}})
		if _, err := fn.Invoke(t.Context(), bad); err != nil {
			t.Fatal(err)
		}
		out := waitOutput(t, fn.Output, "the metrics line and two error lines", func(s string) bool {
			return len(emfLines(s)) == 1 && strings.Count(s, `"level":"ERROR"`) == 2
		})
		metrics, _ := parseEMF(t, emfLines(out)[0])
		if _, ok := metrics["Latency"]; ok {
			t.Errorf("Latency in unit Secs written")
		}
		if g := metrics["Good"]; len(g.dims) != 30 {
			t.Errorf("Good has %d dimensions, want 30 (the 31st refused)", len(g.dims))
		}
		for _, want := range []string{`metrics: metric \"Latency\": unit \"Secs\" is not a CloudWatch unit`, `metrics: dimension \"D27\": a metric has at most 30 dimensions`} {
			if !strings.Contains(out, want) {
				t.Errorf("no error line %s in:\n%s", want, out)
			}
		}
	})
}

// TestObservabilityLocal runs testdata/obsapp as framework local runs it
// (a host build, the readable format): the route, served by the local
// server, and the SQS handler, under the local Runtime API, log readable
// lines with the same correlation keys.
func TestObservabilityLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an app")
	}
	t.Setenv(build.CacheDirEnv, t.TempDir())
	bin, err := build.Host(t.Context(), "testdata/obsapp", "app")
	if err != nil {
		t.Fatal(err)
	}
	env := build.AppEnviron(os.Environ(), names.EnvStage+"=dev", names.EnvLogFormat+"="+names.LogText, names.EnvAddr+"=127.0.0.1:0")
	keysOf := func(t *testing.T, out, msg string) map[string]string {
		t.Helper()
		var text strings.Builder // the metrics lines are framework local's to show
		for line := range strings.Lines(out) {
			if !strings.HasPrefix(line, `{"_aws":`) {
				text.WriteString(line)
			}
		}
		for _, l := range textLines(t, text.String()) {
			if l.msg == msg {
				return l.attrs
			}
		}
		t.Fatalf("no readable line %q in:\n%s", msg, out)
		return nil
	}

	// The route, on the local server.
	cmd := exec.Command(bin)
	cmd.Env = env
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("no output from the local server; stderr %s", stderr.String())
	}
	port, ok := strings.CutPrefix(sc.Text(), "Serving on localhost:")
	if !ok {
		t.Fatalf("first line %q", sc.Text())
	}
	var appOut lockedbuf.Buffer
	go func() { _, _ = io.Copy(&appOut, stdout) }()
	resp, err := http.Post("http://127.0.0.1:"+port+"/orders", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	out := waitOutput(t, stderr, "the route's line", func(s string) bool { return strings.Contains(s, "order placed") && strings.HasSuffix(s, "\n") })
	route := keysOf(t, out, "order placed")
	// Its metrics line, on stdout as deployed (framework local shows it).
	metricsOut := waitOutput(t, &appOut, "the metrics line", func(s string) bool { return len(emfLines(s)) == 1 })
	_, root := parseEMF(t, emfLines(metricsOut)[0])
	if root["request_id"] != route["request_id"] || root["xray_trace_id"] != route["xray_trace_id"] || root["stage"] != "dev" {
		t.Errorf("metrics line %v, log line %v: want the same request_id and xray_trace_id, stage dev", root, route)
	}

	// The SQS handler, under the local Runtime API as framework local runs it.
	sqs, err := os.ReadFile("../examples/events/testdata/sqs.json")
	if err != nil {
		t.Fatal(err)
	}
	fn := testutil.StartFunction(t, bin, append(env, names.EnvHandler+"=orders"), runtimeapi.WithTimeout(10*time.Second))
	if _, err := fn.Invoke(t.Context(), sqs); err != nil {
		t.Fatal(err)
	}
	out = waitOutput(t, fn.Output, "the handler's line", func(s string) bool { return strings.Contains(s, "messages received") })
	event := keysOf(t, out, "messages received")
	for _, k := range correlationKeys {
		if route[k] == "" || event[k] == "" {
			t.Errorf("%s: route line %q, event line %q; want both set", k, route[k], event[k])
		}
	}
	if route["cold_start"] != "true" || event["function"] != "orders" || route["function"] != "api" || event["stage"] != "dev" {
		t.Errorf("route line %v, event line %v", route, event)
	}
}
