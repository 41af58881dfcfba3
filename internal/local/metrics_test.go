package local

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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
