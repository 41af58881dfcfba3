package localres

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is an EventBridge schedule expression's timer.
type Schedule interface {
	// Next is the first time after t at which the schedule fires.
	Next(t time.Time) time.Time
}

// ParseSchedule reads "rate(N unit)" or "cron(M H DoM Mon DoW Y)" (UTC, as
// EventBridge reads it), with the day forms EventBridge takes: L (the last
// day of the month; in day-of-week, Saturday), nW (the weekday nearest day
// n, in the same month), LW (the last weekday of the month), nL in
// day-of-week (the month's last day n of the week) and n#k (its k-th day
// n of the week).
func ParseSchedule(expr string) (Schedule, error) {
	switch {
	case strings.HasPrefix(expr, "rate(") && strings.HasSuffix(expr, ")"):
		f := strings.Fields(expr[len("rate(") : len(expr)-1])
		if len(f) == 2 {
			n, err := strconv.Atoi(f[0])
			unit := map[string]time.Duration{"minute": time.Minute, "minutes": time.Minute, "hour": time.Hour, "hours": time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour}[f[1]]
			if err == nil && n > 0 && unit > 0 {
				return rate{every: time.Duration(n) * unit, from: time.Now()}, nil
			}
		}
	case strings.HasPrefix(expr, "cron(") && strings.HasSuffix(expr, ")"):
		return parseCron(expr[len("cron(") : len(expr)-1])
	}
	return nil, fmt.Errorf("schedule %q is not a rate(N minutes|hours|days) or cron(...) expression", expr)
}

// rate fires every `every` from the start of `framework local`.
type rate struct {
	every time.Duration
	from  time.Time
}

func (r rate) Next(t time.Time) time.Time {
	n := t.Sub(r.from)/r.every + 1
	return r.from.Add(n * r.every)
}

// cron holds, per field, the values at which it fires.
type cron struct {
	minute, hour, dom, month, dow, year map[int]bool
	anyDom, anyDow                      bool
	// domFn and dowFn, when set, match a day by an L, W or # form
	// instead of dom and dow.
	domFn, dowFn func(time.Time) bool
}

// lastDay is the last day of t's month.
func lastDay(t time.Time) int {
	return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// domForm returns the matcher of a day-of-month field in an L or W form
// (L, LW, nW), nil for another field, or an error for a malformed one.
func domForm(s string) (func(time.Time) bool, error) {
	if !strings.ContainsAny(s, "LW") {
		return nil, nil
	}
	switch {
	case s == "L":
		return func(t time.Time) bool { return t.Day() == lastDay(t) }, nil
	case s == "LW":
		return func(t time.Time) bool { return t.Day() == nearestWeekday(t, lastDay(t)) }, nil
	case strings.HasSuffix(s, "W"):
		n, err := strconv.Atoi(strings.TrimSuffix(s, "W"))
		if err != nil || n < 1 || n > 31 {
			return nil, fmt.Errorf("%q: W follows a day from 1 to 31 (15W: the weekday nearest the 15th)", s)
		}
		return func(t time.Time) bool { return t.Day() == nearestWeekday(t, min(n, lastDay(t))) }, nil
	}
	return nil, fmt.Errorf("%q: day-of-month takes L, LW or nW alone, not in a list or range", s)
}

// nearestWeekday is the day of t's month, Monday to Friday, nearest day
// n, without leaving the month: a Saturday gives the Friday before (the
// Monday after, on the 1st), a Sunday the Monday after (the Friday
// before, on the last day).
func nearestWeekday(t time.Time, n int) int {
	switch time.Date(t.Year(), t.Month(), n, 0, 0, 0, 0, time.UTC).Weekday() {
	case time.Saturday:
		if n == 1 {
			return 3
		}
		return n - 1
	case time.Sunday:
		if n == lastDay(t) {
			return n - 2
		}
		return n + 1
	}
	return n
}

// dowForm returns the matcher of a day-of-week field in an L or # form
// (L, nL, n#k; n a number from 1, Sunday, to 7 or a name), nil for
// another field, or an error for a malformed one.
func dowForm(s string) (func(time.Time) bool, error) {
	if !strings.ContainsAny(s, "L#") {
		return nil, nil
	}
	day := func(v string) (time.Weekday, error) {
		if n, ok := dayNames[strings.ToUpper(v)]; ok {
			return time.Weekday(n - 1), nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 7 {
			return 0, fmt.Errorf("%q: %q is not a day of the week (1 to 7, SUN to SAT)", s, v)
		}
		return time.Weekday(n - 1), nil
	}
	switch {
	case s == "L":
		return func(t time.Time) bool { return t.Weekday() == time.Saturday }, nil
	case strings.HasSuffix(s, "L") && !strings.ContainsAny(s, ",-/#"):
		wd, err := day(strings.TrimSuffix(s, "L"))
		if err != nil {
			return nil, err
		}
		return func(t time.Time) bool { return t.Weekday() == wd && t.Day()+7 > lastDay(t) }, nil
	case strings.Count(s, "#") == 1 && !strings.ContainsAny(s, ",-/L"):
		d, k, _ := strings.Cut(s, "#")
		wd, err := day(d)
		if err != nil {
			return nil, err
		}
		nth, err := strconv.Atoi(k)
		if err != nil || nth < 1 || nth > 5 {
			return nil, fmt.Errorf("%q: # is followed by 1 to 5 (3#2: the second Tuesday)", s)
		}
		return func(t time.Time) bool { return t.Weekday() == wd && (t.Day()-1)/7+1 == nth }, nil
	}
	return nil, fmt.Errorf("%q: day-of-week takes L, nL or n#k alone, not in a list or range", s)
}

var (
	monthNames = map[string]int{"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6, "JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12}
	dayNames   = map[string]int{"SUN": 1, "MON": 2, "TUE": 3, "WED": 4, "THU": 5, "FRI": 6, "SAT": 7}
)

func parseCron(expr string) (Schedule, error) {
	f := strings.Fields(expr)
	if len(f) != 6 {
		return nil, fmt.Errorf("cron(%s) needs 6 fields (minutes hours day-of-month month day-of-week year)", expr)
	}
	c := &cron{anyDom: f[2] == "?" || f[2] == "*", anyDow: f[4] == "?" || f[4] == "*"}
	var err error
	if c.domFn, err = domForm(f[2]); err != nil {
		return nil, fmt.Errorf("cron(%s): %w", expr, err)
	}
	if c.dowFn, err = dowForm(f[4]); err != nil {
		return nil, fmt.Errorf("cron(%s): %w", expr, err)
	}
	parse := func(s string, lo, hi int, names map[string]int) map[int]bool {
		if err != nil {
			return nil
		}
		var m map[int]bool
		m, err = cronField(s, lo, hi, names)
		return m
	}
	c.minute = parse(f[0], 0, 59, nil)
	c.hour = parse(f[1], 0, 23, nil)
	if c.domFn == nil {
		c.dom = parse(f[2], 1, 31, nil)
	}
	c.month = parse(f[3], 1, 12, monthNames)
	if c.dowFn == nil {
		c.dow = parse(f[4], 1, 7, dayNames)
	}
	c.year = parse(f[5], 1970, 2199, nil)
	if err != nil {
		return nil, fmt.Errorf("cron(%s): %w", expr, err)
	}
	return c, nil
}

// cronField reads one field: *, ?, and comma lists of values, ranges
// (a-b) and steps (*/n, a/n, a-b/n).
func cronField(s string, lo, hi int, names map[string]int) (map[int]bool, error) {
	out := map[int]bool{}
	val := func(v string) (int, error) {
		if n, ok := names[strings.ToUpper(v)]; ok {
			return n, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%q is not a value from %d to %d", v, lo, hi)
		}
		return n, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		step := 1
		if i := strings.Index(part, "/"); i >= 0 {
			n, err := strconv.Atoi(part[i+1:])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("step %q is not a positive number", part[i+1:])
			}
			step, part = n, part[:i]
		}
		a, b := lo, hi
		switch {
		case part == "*" || part == "?":
		case strings.Contains(part, "-"):
			i := strings.Index(part, "-")
			var err error
			if a, err = val(part[:i]); err != nil {
				return nil, err
			}
			if b, err = val(part[i+1:]); err != nil {
				return nil, err
			}
		default:
			n, err := val(part)
			if err != nil {
				return nil, err
			}
			a = n
			if step == 1 {
				b = n
			}
		}
		for v := a; v <= b; v += step {
			out[v] = true
		}
	}
	return out, nil
}

func (c *cron) Next(t time.Time) time.Time {
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	for end := t.AddDate(5, 0, 0); t.Before(end); {
		if !c.year[t.Year()] || !c.month[int(t.Month())] || !c.day(t) {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
			continue
		}
		if !c.hour[t.Hour()] {
			t = t.Truncate(time.Hour).Add(time.Hour)
			continue
		}
		if c.minute[t.Minute()] {
			return t
		}
		t = t.Add(time.Minute)
	}
	return t.AddDate(100, 0, 0) // never within five years
}

// day reports whether t's day matches the day-of-month and day-of-week
// fields (one of them is ? in EventBridge).
func (c *cron) day(t time.Time) bool {
	dom, dow := c.dom[t.Day()], c.dow[int(t.Weekday())+1]
	if c.domFn != nil {
		dom = c.domFn(t)
	}
	if c.dowFn != nil {
		dow = c.dowFn(t)
	}
	switch {
	case c.anyDom && c.anyDow:
		return true
	case c.anyDom:
		return dow
	case c.anyDow:
		return dom
	}
	return dom && dow
}
