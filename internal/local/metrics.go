package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/framework-dev/framework/internal/names"
)

// The app writes its metrics as CloudWatch Embedded Metric Format lines on
// stdout, locally as deployed (framework.Metrics). framework local takes
// those lines out of the app's output and shows each as one readable
// line, or, with --json, as a "metrics" event.

// emfPrefix starts every metrics line the framework writes.
var emfPrefix = []byte(`{"_aws":`)

// emfFilter passes what is written to w, except whole lines starting with
// emfPrefix, which go to report instead.
type emfFilter struct {
	mu      sync.Mutex
	w       io.Writer
	report  func(line []byte)
	pending []byte // the start of a line that may be a metrics line
}

func (f *emfFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	buf := p
	if len(f.pending) > 0 {
		buf = append(f.pending, p...)
		f.pending = nil
	}
	var out []byte
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			// A line not finished: held back only while it may be a
			// metrics line, so that a prompt without a newline shows.
			n := min(len(buf), len(emfPrefix))
			if bytes.HasPrefix(emfPrefix, buf[:n]) {
				f.pending = append([]byte(nil), buf...)
			} else {
				out = append(out, buf...)
			}
			break
		}
		line := buf[:i+1]
		buf = buf[i+1:]
		if bytes.HasPrefix(line, emfPrefix) && json.Valid(line) {
			if len(out) > 0 {
				if _, err := f.w.Write(out); err != nil {
					return len(p), err
				}
				out = nil
			}
			f.report(line)
			continue
		}
		out = append(out, line...)
	}
	if len(out) > 0 {
		if _, err := f.w.Write(out); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// emfLine is a metrics line as the framework writes it.
type emfLine struct {
	AWS struct {
		CloudWatchMetrics []struct {
			Namespace  string
			Dimensions [][]string
			Metrics    []struct{ Name, Unit string }
		}
	} `json:"_aws"`
	root map[string]json.RawMessage
}

// metricValue is one metric of a line, as the "metrics" event has it.
type metricValue struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	Values []float64 `json:"values"`
}

// reportMetrics shows one metrics line of the app: a readable line, or a
// "metrics" event with --json.
func (s *supervisor) reportMetrics(line []byte) {
	var l emfLine
	if json.Unmarshal(line, &l) != nil || json.Unmarshal(line, &l.root) != nil {
		s.printf("%s", line)
		return
	}
	str := func(k string) string {
		var v string
		_ = json.Unmarshal(l.root[k], &v)
		return v
	}
	var metrics []metricValue
	dims := map[string]string{}
	namespace := ""
	for _, d := range l.AWS.CloudWatchMetrics {
		namespace = d.Namespace
		for _, set := range d.Dimensions {
			for _, k := range set {
				dims[k] = str(k)
			}
		}
		for _, m := range d.Metrics {
			var vs []float64
			raw := l.root[m.Name]
			var one float64
			if json.Unmarshal(raw, &one) == nil {
				vs = []float64{one}
			} else {
				_ = json.Unmarshal(raw, &vs)
			}
			metrics = append(metrics, metricValue{Name: m.Name, Unit: m.Unit, Values: vs})
		}
	}
	fields := map[string]any{"namespace": namespace, "function": str("function"), "handler": str("handler"),
		"dimensions": dims, "metrics": metrics, names.RequestIDKey: str(names.RequestIDKey), "xray_trace_id": str("xray_trace_id")}
	// The readable line: metrics function/handler: name value unit, ...
	// [dimension=value ...], the defaults (service, stage, function) left out.
	var b strings.Builder
	fmt.Fprintf(&b, "metrics %s", str("function"))
	if h := str("handler"); h != "" && h != str("function") {
		fmt.Fprintf(&b, "/%s", h)
	}
	b.WriteString(":")
	for i, m := range metrics {
		if i > 0 {
			b.WriteString(",")
		}
		vals := make([]string, len(m.Values))
		for j, v := range m.Values {
			vals[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		fmt.Fprintf(&b, " %s %s %s", m.Name, strings.Join(vals, ","), m.Unit)
	}
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(dims)) {
		if k != "service" && k != "stage" && k != "function" {
			extra = append(extra, k+"="+dims[k])
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(extra, " "))
	}
	s.event(names.MetricsEventType, fields, "%s", b.String())
}
