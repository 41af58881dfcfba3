package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Metrics of one invocation, written as one line of CloudWatch's Embedded
// Metric Format (EMF) on stdout when the handler returns: CloudWatch Logs
// turns the line into metrics, with no AWS call and no latency for the
// request. See Metrics.

// Unit is the unit of a metric: one of CloudWatch's.
type Unit string

// CloudWatch's units.
const (
	UnitNone               Unit = "None"
	UnitCount              Unit = "Count"
	UnitPercent            Unit = "Percent"
	UnitSeconds            Unit = "Seconds"
	UnitMilliseconds       Unit = "Milliseconds"
	UnitMicroseconds       Unit = "Microseconds"
	UnitBytes              Unit = "Bytes"
	UnitKilobytes          Unit = "Kilobytes"
	UnitMegabytes          Unit = "Megabytes"
	UnitGigabytes          Unit = "Gigabytes"
	UnitTerabytes          Unit = "Terabytes"
	UnitBits               Unit = "Bits"
	UnitKilobits           Unit = "Kilobits"
	UnitMegabits           Unit = "Megabits"
	UnitGigabits           Unit = "Gigabits"
	UnitTerabits           Unit = "Terabits"
	UnitBytesPerSecond     Unit = "Bytes/Second"
	UnitKilobytesPerSecond Unit = "Kilobytes/Second"
	UnitMegabytesPerSecond Unit = "Megabytes/Second"
	UnitGigabytesPerSecond Unit = "Gigabytes/Second"
	UnitTerabytesPerSecond Unit = "Terabytes/Second"
	UnitBitsPerSecond      Unit = "Bits/Second"
	UnitKilobitsPerSecond  Unit = "Kilobits/Second"
	UnitMegabitsPerSecond  Unit = "Megabits/Second"
	UnitGigabitsPerSecond  Unit = "Gigabits/Second"
	UnitTerabitsPerSecond  Unit = "Terabits/Second"
	UnitCountPerSecond     Unit = "Count/Second"
)

var units = []Unit{UnitNone, UnitCount, UnitPercent, UnitSeconds, UnitMilliseconds, UnitMicroseconds,
	UnitBytes, UnitKilobytes, UnitMegabytes, UnitGigabytes, UnitTerabytes,
	UnitBits, UnitKilobits, UnitMegabits, UnitGigabits, UnitTerabits,
	UnitBytesPerSecond, UnitKilobytesPerSecond, UnitMegabytesPerSecond, UnitGigabytesPerSecond, UnitTerabytesPerSecond,
	UnitBitsPerSecond, UnitKilobitsPerSecond, UnitMegabitsPerSecond, UnitGigabitsPerSecond, UnitTerabitsPerSecond,
	UnitCountPerSecond}

// Limits of one EMF line, as CloudWatch documents them.
const (
	// MaxMetricDimensions is the most dimensions a metric has: the
	// defaults (service, stage, function) included.
	MaxMetricDimensions = 30
	// MaxMetricsPerLine is the most metrics of one line (one invocation).
	MaxMetricsPerLine = 100
	// MaxMetricValues is the most values a metric has in one line.
	MaxMetricValues = 100
	maxMetricName   = 255
	maxDimValue     = 1024
)

// coldStartMetric is the metric of a process's first invocation.
const coldStartMetric = "ColdStart"

// MetricSet is the metrics of one invocation: see Metrics. Its methods
// may be called from several goroutines. A value it refuses (a bad name
// or unit, a limit of EMF passed) is left out of the line; the reason is
// logged as an error line of the invocation (Logger) and returned by Err.
type MetricSet struct {
	mu      sync.Mutex
	inv     *invocation
	metrics []*metric
	dims    [][2]string
	props   [][2]any
	errs    []error
}

type metric struct {
	name   string
	unit   Unit
	values []float64
}

// Metrics returns the metrics of the invocation ctx belongs to (a route's
// Request.Context(), an event handler's ctx). What it records is written
// when the handler returns (for a streamed response, when its stream
// ends, with what the stream's body recorded), as one line of
// CloudWatch's Embedded Metric Format on stdout, in the namespace of the
// app's name, with the dimensions service (the app), stage and function
// (the function serving the handler: "api" for routes), plus request_id
// and xray_trace_id as properties; a process's first invocation adds the metric ColdStart (1,
// Count; dimensions service, stage and function). framework local shows
// the line as a readable summary (--json: a "metrics" event).
//
//	m := framework.Metrics(req.Context())
//	m.Add("OrdersPlaced", 1, framework.UnitCount)
//	m.Dimension("Channel", "web")
//
// Outside an invocation it returns a MetricSet that writes nothing.
func Metrics(ctx context.Context) *MetricSet {
	inv := invocationOf(ctx)
	if inv == nil {
		return &MetricSet{}
	}
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if ms, ok := inv.metrics.(*MetricSet); ok {
		return ms
	}
	ms := &MetricSet{inv: inv}
	inv.metrics = ms
	return ms
}

// Add records value for the metric name in unit. A metric added several
// times in an invocation has every value (up to MaxMetricValues), in one
// unit.
func (m *MetricSet) Add(name string, value float64, unit Unit) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fail := func(format string, args ...any) {
		m.errs = append(m.errs, fmt.Errorf("metric %q: "+format, append([]any{name}, args...)...))
	}
	if err := checkMetricName(name); err != nil {
		fail("%v", err)
		return
	}
	if !slices.Contains(units, unit) {
		fail("unit %q is not a CloudWatch unit: use one of the framework.Unit constants (%s, ...)", unit, "Count, Milliseconds, Bytes, Percent, None")
		return
	}
	if math.IsNaN(value) || math.IsInf(value, 0) {
		fail("value %v is not a number CloudWatch takes: give a finite one", value)
		return
	}
	for _, d := range m.dims {
		if d[0] == name {
			fail("it has the name of a dimension: give it another")
			return
		}
	}
	for _, mt := range m.metrics {
		if mt.name != name {
			continue
		}
		if mt.unit != unit {
			fail("added in %s before, now in %s: a metric has one unit", mt.unit, unit)
			return
		}
		if len(mt.values) >= MaxMetricValues {
			fail("more than %d values in one invocation, EMF's limit for a metric", MaxMetricValues)
			return
		}
		mt.values = append(mt.values, value)
		return
	}
	if len(m.metrics) >= MaxMetricsPerLine {
		fail("more than %d metrics in one invocation, EMF's limit for one line", MaxMetricsPerLine)
		return
	}
	m.metrics = append(m.metrics, &metric{name: name, unit: unit, values: []float64{value}})
}

// Count adds 1 to the metric name, in UnitCount.
func (m *MetricSet) Count(name string) { m.Add(name, 1, UnitCount) }

// Duration records d in UnitMilliseconds.
func (m *MetricSet) Duration(name string, d time.Duration) {
	m.Add(name, float64(d.Microseconds())/1000, UnitMilliseconds)
}

// Dimension adds the dimension name=value to every metric of the
// invocation but ColdStart (setting it again replaces its value). A
// metric has at most MaxMetricDimensions dimensions, the three defaults
// included.
func (m *MetricSet) Dimension(name, value string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fail := func(format string, args ...any) {
		m.errs = append(m.errs, fmt.Errorf("dimension %q: "+format, append([]any{name}, args...)...))
	}
	if err := checkDimension(name, value); err != nil {
		fail("%v", err)
		return
	}
	if reservedMetricKey(name) || slices.ContainsFunc(m.metrics, func(mt *metric) bool { return mt.name == name }) {
		fail("the name is taken by the line's %s: give another", "defaults or metrics")
		return
	}
	for i, d := range m.dims {
		if d[0] == name {
			m.dims[i][1] = value
			return
		}
	}
	if len(m.dims)+3 >= MaxMetricDimensions {
		fail("a metric has at most %d dimensions, service, stage and function included: use a property (MetricSet.Property) for the others", MaxMetricDimensions)
		return
	}
	m.dims = append(m.dims, [2]string{name, value})
}

// Property adds key=value to the line without making it a dimension: it
// is searchable in CloudWatch Logs Insights but not part of the metrics'
// identity (an order id, say). value must encode as JSON.
func (m *MetricSet) Property(key string, value any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if key == "" || key == "_aws" || reservedMetricKey(key) {
		m.errs = append(m.errs, fmt.Errorf("property %q: the key is empty or taken by the line's defaults: give another", key))
		return
	}
	m.props = append(m.props, [2]any{key, value})
}

// Err returns what the MetricSet refused, or nil.
func (m *MetricSet) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return errors.Join(m.errs...)
}

func reservedMetricKey(k string) bool {
	switch k {
	case keyService, keyStage, keyFunction, keyHandler, keyRequestID, keyTraceID, coldStartMetric, "_aws":
		return true
	}
	return false
}

// checkMetricName checks a metric's name as CloudWatch does.
func checkMetricName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("the name is empty: give one")
	case len(name) > maxMetricName:
		return fmt.Errorf("the name has %d bytes: CloudWatch allows %d", len(name), maxMetricName)
	case !utf8.ValidString(name):
		return errors.New("the name is not valid UTF-8")
	case reservedMetricKey(name):
		return errors.New("the name is the framework's (service, stage, function, handler, request_id, xray_trace_id, ColdStart): give another")
	}
	return nil
}

// checkDimension checks a dimension as CloudWatch does: ASCII without
// control characters, not blank, the name at most 255 bytes and not
// starting with a colon, the value at most 1024.
func checkDimension(name, value string) error {
	check := func(what, s string, max int) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("the %s is empty or blank: CloudWatch needs a non-whitespace character", what)
		}
		if len(s) > max {
			return fmt.Errorf("the %s has %d bytes: CloudWatch allows %d", what, len(s), max)
		}
		for _, c := range []byte(s) {
			if c < 0x20 || c >= 0x7f {
				return fmt.Errorf("the %s %q has a character CloudWatch refuses: use printable ASCII", what, s)
			}
		}
		return nil
	}
	if err := check("name", name, maxMetricName); err != nil {
		return err
	}
	if strings.HasPrefix(name, ":") {
		return errors.New("the name starts with a colon, which CloudWatch refuses")
	}
	return check("value", value, maxDimValue)
}

// metricsOut receives the metrics lines; nil means os.Stdout (tests set it).
var metricsOut io.Writer

// end writes the invocation's metrics line, and logs what was refused.
func (m *MetricSet) end(inv *invocation) {
	id, trace := inv.ids()
	m.mu.Lock()
	line := m.line(inv, id, trace, time.Now())
	errs := m.errs
	m.mu.Unlock()
	if line != nil {
		w := metricsOut
		if w == nil {
			w = os.Stdout
		}
		_, _ = w.Write(line)
	}
	if len(errs) > 0 {
		log := inv.log()
		for _, err := range errs {
			log.Error("metrics: " + err.Error() + " (left out of the metrics line)")
		}
	}
}

// line is the EMF line of the invocation (nil when there is nothing to
// write): one object whose _aws metadata names the metrics and their
// dimensions, with the values as members.
func (m *MetricSet) line(inv *invocation, requestID, traceID string, now time.Time) []byte {
	if len(m.metrics) == 0 && !inv.cold {
		return nil
	}
	stage := inv.stage()
	defaults := []string{keyService, keyStage, keyFunction}
	if stage == "" {
		defaults = []string{keyService, keyFunction} // a dimension needs a value
	}
	ns := inv.app.Name
	b := make([]byte, 0, 512)
	b = append(b, `{"_aws":{"Timestamp":`...)
	b = strconv.AppendInt(b, now.UnixMilli(), 10)
	b = append(b, `,"CloudWatchMetrics":[`...)
	appendDims := func(b []byte, extra bool) []byte {
		b = append(b, `,"Dimensions":[[`...)
		for i, d := range defaults {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, d)
		}
		if extra {
			for _, d := range m.dims {
				b = append(b, ',')
				b = appendJSONString(b, d[0])
			}
		}
		return append(b, "]]"...)
	}
	n := 0
	if len(m.metrics) > 0 {
		b = append(b, `{"Namespace":`...)
		b = appendJSONString(b, ns)
		b = appendDims(b, true)
		b = append(b, `,"Metrics":[`...)
		for i, mt := range m.metrics {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Name":`...)
			b = appendJSONString(b, mt.name)
			b = append(b, `,"Unit":`...)
			b = appendJSONString(b, string(mt.unit))
			b = append(b, '}')
		}
		b = append(b, "]}"...)
		n++
	}
	if inv.cold {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Namespace":`...)
		b = appendJSONString(b, ns)
		b = appendDims(b, false)
		b = append(b, `,"Metrics":[{"Name":"`+coldStartMetric+`","Unit":"Count"}]}`...)
	}
	b = append(b, "]}"...)
	str := func(k, v string) {
		b = append(b, ',')
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, v)
	}
	str(keyService, inv.app.Name)
	if stage != "" {
		str(keyStage, stage)
	}
	str(keyFunction, inv.function)
	for _, d := range m.dims {
		str(d[0], d[1])
	}
	if inv.cold {
		b = append(b, `,"`+coldStartMetric+`":1`...)
	}
	for _, mt := range m.metrics {
		b = append(b, ',')
		b = appendJSONString(b, mt.name)
		b = append(b, ':')
		if len(mt.values) == 1 {
			b = strconv.AppendFloat(b, mt.values[0], 'g', -1, 64)
			continue
		}
		b = append(b, '[')
		for i, v := range mt.values {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		b = append(b, ']')
	}
	str(keyHandler, inv.handler)
	str(keyRequestID, requestID)
	if traceID != "" {
		str(keyTraceID, traceID)
	}
	taken := func(k string) bool {
		return slices.ContainsFunc(m.dims, func(d [2]string) bool { return d[0] == k }) ||
			slices.ContainsFunc(m.metrics, func(mt *metric) bool { return mt.name == k })
	}
	for _, p := range m.props {
		if taken(p[0].(string)) {
			m.errs = append(m.errs, fmt.Errorf("property %q: a dimension or metric has that name: give another", p[0]))
			continue
		}
		v, err := encodeJSON(p[1])
		if err != nil {
			m.errs = append(m.errs, fmt.Errorf("property %q: %T does not encode as JSON: %v", p[0], p[1], err))
			continue
		}
		b = append(b, ',')
		b = appendJSONString(b, p[0].(string))
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, "}\n"...)
}
