package local

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/lockedbuf"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/testutil"
)

// A metrics line of the app (CloudWatch EMF, as framework.Metrics writes
// it) is shown by framework local as one readable line, or with --json as
// a "metrics" event on stdout; the app's other output passes through as
// written, a line split across writes included.
func TestMetricsLinesShown(t *testing.T) {
	const emf = `{"_aws":{"Timestamp":1700000000000,"CloudWatchMetrics":[{"Namespace":"shop","Dimensions":[["service","stage","function","Channel"]],"Metrics":[{"Name":"OrdersPlaced","Unit":"Count"},{"Name":"ChargeTime","Unit":"Milliseconds"}]},{"Namespace":"shop","Dimensions":[["service","stage","function"]],"Metrics":[{"Name":"ColdStart","Unit":"Count"}]}]},"service":"shop","stage":"dev","function":"api","Channel":"web","ColdStart":1,"OrdersPlaced":1,"ChargeTime":[12.5,3],"handler":"create-order","request_id":"r-1","xray_trace_id":"1-5759e988-bd862e3fe1be46a994272793"}` + "\n"
	for _, asJSON := range []bool{false, true} {
		var stdout, app bytes.Buffer
		s := &supervisor{o: Options{Stdout: &stdout, JSON: asJSON}}
		f := &emfFilter{w: &app, report: s.reportMetrics}
		for _, chunk := range []string{"12:00:00 INFO  hello\n", emf[:5], emf[5:40], emf[40:] + "12:00:01 INFO", "  bye\n", "Password: "} {
			if _, err := f.Write([]byte(chunk)); err != nil {
				t.Fatal(err)
			}
		}
		if want := "12:00:00 INFO  hello\n12:00:01 INFO  bye\nPassword: "; app.String() != want {
			t.Errorf("json=%v: the app's output %q, want %q", asJSON, app.String(), want)
		}
		if !asJSON {
			want := "metrics api/create-order: OrdersPlaced 1 Count, ChargeTime 12.5,3 Milliseconds, ColdStart 1 Count [Channel=web]\n"
			if stdout.String() != want {
				t.Errorf("readable line %q, want %q", stdout.String(), want)
			}
			continue
		}
		var ev struct {
			Event      string            `json:"event"`
			Function   string            `json:"function"`
			Handler    string            `json:"handler"`
			Dimensions map[string]string `json:"dimensions"`
			Metrics    []metricValue     `json:"metrics"`
			RequestID  string            `json:"request_id"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &ev); err != nil {
			t.Fatalf("the event %q: %v", stdout.String(), err)
		}
		if ev.Event != "metrics" || ev.Function != "api" || ev.Handler != "create-order" || ev.RequestID != "r-1" ||
			ev.Dimensions["Channel"] != "web" || ev.Dimensions["stage"] != "dev" || len(ev.Metrics) != 3 ||
			ev.Metrics[1].Name != "ChargeTime" || len(ev.Metrics[1].Values) != 2 || ev.Metrics[1].Unit != "Milliseconds" {
			t.Errorf("the event %s", strings.TrimSpace(stdout.String()))
		}
	}
}

// metricsApp is an app whose route records a metric.
const metricsApp = `package main

import "github.com/framework-dev/framework/framework"

func main() {
	app := framework.New("shop")
	app.Route("/orders", func(r *framework.Request) (any, error) {
		m := framework.Metrics(r.Context())
		m.Count("OrdersPlaced")
		m.Dimension("Channel", "web")
		return "ok", nil
	}, framework.Name("place-order"))
	app.Run()
}
`

// Under framework local, a route's metrics line reaches the terminal as
// its readable summary, not as the EMF JSON the deployed function writes.
func TestLocalShowsMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an app")
	}
	t.Setenv(names.EnvCacheDir, t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod -buildvcs=false") // the module's requirements come from the replace
	t.Setenv("GOPROXY", "off")
	dir := testutil.WriteModule(t, testutil.FrameworkModule(t, map[string]string{"main.go": metricsApp}))
	var out lockedbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{ProjectDir: dir, Port: 0, NoAutoreload: true, Stdout: &out, Stderr: &out})
	}()
	defer func() { cancel(); <-done }()
	wait := func(what string, ok func(string) bool) string {
		t.Helper()
		wctx, wcancel := context.WithTimeout(ctx, 3*time.Minute)
		defer wcancel()
		got, found := out.Wait(wctx, ok)
		if !found {
			t.Fatalf("no %s in the output:\n%s", what, got)
		}
		return got
	}
	served := wait("Serving on line", func(s string) bool {
		return strings.Contains(s, "Build failed") || regexp.MustCompile(`Serving on \S+\n`).MatchString(s)
	})
	if strings.Contains(served, "Build failed") {
		t.Fatalf("the app did not build:\n%s", served)
	}
	addr := regexp.MustCompile(`Serving on (\S+)\n`).FindStringSubmatch(served)[1]
	resp, err := http.Get("http://" + addr + "/orders")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := wait("metrics line", func(s string) bool {
		return strings.Contains(s, "metrics api/place-order:") && strings.HasSuffix(s, "\n")
	})
	if !strings.Contains(got, "metrics api/place-order: OrdersPlaced 1 Count, ColdStart 1 Count [Channel=web]\n") || strings.Contains(got, `{"_aws"`) {
		t.Errorf("output:\n%s\nwant the readable metrics line and no EMF JSON", got)
	}
}
