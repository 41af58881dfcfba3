package manifest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// cronFields names the six fields of an EventBridge cron expression.
var cronFields = []struct {
	name     string
	min, max int
}{{"minutes", 0, 59}, {"hours", 0, 23}, {"day-of-month", 1, 31}, {"month", 1, 12}, {"day-of-week", 1, 7}, {"year", 1970, 2199}}

// MaxScheduleLength is the longest schedule expression EventBridge takes,
// "rate(...)" or "cron(...)" included.
const MaxScheduleLength = 256

// CheckSchedule checks an EventBridge schedule expression, rate(...) or
// cron(...), as EventBridge would: at most MaxScheduleLength characters,
// the parts separated by single spaces, a rate of a positive whole number
// and its unit (minute, hour or day, singular for 1), a cron of six valid
// fields (CheckCron).
func CheckSchedule(expr string) error {
	if len(expr) > MaxScheduleLength {
		return fmt.Errorf("schedule %.40q... is %d characters long: EventBridge takes at most %d", expr, len(expr), MaxScheduleLength)
	}
	switch {
	case strings.HasPrefix(expr, "cron(") && strings.HasSuffix(expr, ")"):
		return CheckCron(expr[len("cron(") : len(expr)-1])
	case strings.HasPrefix(expr, "rate(") && strings.HasSuffix(expr, ")"):
		return checkRate(expr)
	}
	return fmt.Errorf("schedule %q is not a rate(...) or cron(...) expression: build it with framework.Rate or framework.Cron", expr)
}

// checkRate checks rate(N unit).
func checkRate(expr string) error {
	inner := expr[len("rate(") : len(expr)-1]
	n, unit, ok := strings.Cut(inner, " ")
	if !ok || strings.ContainsFunc(inner, isSpaceNotBlank) || strings.Contains(unit, " ") {
		return fmt.Errorf("rate %q: EventBridge takes a number and a unit separated by one space, such as \"rate(5 minutes)\"", expr)
	}
	v, err := strconv.Atoi(n)
	if err != nil || v < 1 || n[0] == '+' || n[0] == '0' {
		return fmt.Errorf("rate %q: %q is not a whole number of at least 1", expr, n)
	}
	want := map[string]string{"minute": "minutes", "hour": "hours", "day": "days"}
	plural := map[string]bool{"minutes": true, "hours": true, "days": true}
	switch {
	case v == 1 && want[unit] != "":
	case v > 1 && plural[unit]:
	case v == 1 && plural[unit]:
		return fmt.Errorf("rate %q: EventBridge wants the unit singular for 1: rate(1 %s)", expr, strings.TrimSuffix(unit, "s"))
	case v > 1 && want[unit] != "":
		return fmt.Errorf("rate %q: EventBridge wants the unit plural past 1: rate(%d %s)", expr, v, want[unit])
	default:
		return fmt.Errorf("rate %q: unit %q is not minute(s), hour(s) or day(s)", expr, unit)
	}
	return nil
}

// isSpaceNotBlank reports white space other than the plain space: a tab,
// a line break, a non-breaking space.
func isSpaceNotBlank(r rune) bool { return r != ' ' && unicode.IsSpace(r) }

// checkSeparators checks that the fields of cron expression expr are
// separated by single spaces, as EventBridge requires, naming where not.
func checkSeparators(expr string) error {
	field := func(i int) string {
		if i < len(cronFields) {
			return cronFields[i].name
		}
		return fmt.Sprintf("#%d", i+1)
	}
	i, prevSpace := 0, false // i: fields seen so far
	for pos, r := range expr {
		switch {
		case isSpaceNotBlank(r):
			where := "before the first field"
			if i > 0 {
				where = "after field " + field(i-1)
			}
			return fmt.Errorf("cron %q: %q %s: EventBridge separates the fields with single spaces", expr, string(r), where)
		case r == ' ' && (pos == 0 || prevSpace || pos == len(expr)-1):
			where := "before the first field"
			if i > 0 {
				where = "after field " + field(i-1)
			}
			return fmt.Errorf("cron %q: an extra space %s: EventBridge separates the fields with single spaces", expr, where)
		case r == ' ':
			prevSpace = true
		default:
			if prevSpace || pos == 0 {
				i++
			}
			prevSpace = false
		}
	}
	return nil
}

// CheckCron checks the six fields of an EventBridge cron expression (the
// text between "cron(" and ")") and says what is wrong with them.
func CheckCron(expr string) error {
	if err := checkSeparators(expr); err != nil {
		return err
	}
	f := strings.Fields(expr)
	if len(f) != 6 {
		return fmt.Errorf("cron %q has %d fields: EventBridge takes six, minutes hours day-of-month month day-of-week year, for example \"0 12 * * ? *\"", expr, len(f))
	}
	for i, v := range f {
		if !cronText(v) {
			return fmt.Errorf("cron %q: field %s %q has characters EventBridge does not allow: use digits, names and , - * ? / L W #", expr, cronFields[i].name, v)
		}
		if n, err := strconv.Atoi(v); err == nil && (n < cronFields[i].min || n > cronFields[i].max) {
			return fmt.Errorf("cron %q: field %s is %d, out of its range %d to %d", expr, cronFields[i].name, n, cronFields[i].min, cronFields[i].max)
		}
		if v == "?" && i != 2 && i != 4 {
			return fmt.Errorf("cron %q: \"?\" is only allowed in day-of-month or day-of-week, not in %s", expr, cronFields[i].name)
		}
	}
	if (f[2] == "?") == (f[4] == "?") {
		return fmt.Errorf("cron %q: exactly one of day-of-month (%s) and day-of-week (%s) must be \"?\": for every day write \"* ? *\" in place of \"* * *\"", expr, f[2], f[4])
	}
	// Lists, ranges, steps and the day forms, as the timer reads them.
	_, err := ParseCron(expr)
	return err
}

// Cron is an EventBridge cron expression as a timer: it holds, per
// field, the values at which it fires (see ParseCron).
type Cron struct {
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

// ParseCron reads the six fields of an EventBridge cron expression (the
// text between "cron(" and ")"), in UTC as EventBridge reads them, with
// the day forms it takes: L (the last day of the month; in day-of-week,
// Saturday), nW (the weekday nearest day n, in the same month), LW (the
// last weekday of the month), nL in day-of-week (the month's last day n of
// the week) and n#k (its k-th day n of the week). Its errors name the
// field and what is wrong with it.
func ParseCron(expr string) (*Cron, error) {
	f := strings.Fields(expr)
	if len(f) != 6 {
		return nil, fmt.Errorf("cron(%s) needs 6 fields (minutes hours day-of-month month day-of-week year)", expr)
	}
	c := &Cron{anyDom: f[2] == "?" || f[2] == "*", anyDow: f[4] == "?" || f[4] == "*"}
	fail := func(i int, err error) (*Cron, error) {
		return nil, fmt.Errorf("cron(%s): field %s: %w", expr, cronFields[i].name, err)
	}
	var err error
	if c.domFn, err = domForm(f[2]); err != nil {
		return fail(2, err)
	}
	if c.dowFn, err = dowForm(f[4]); err != nil {
		return fail(4, err)
	}
	sets := []*map[int]bool{&c.minute, &c.hour, &c.dom, &c.month, &c.dow, &c.year}
	for i, set := range sets {
		if (i == 2 && c.domFn != nil) || (i == 4 && c.dowFn != nil) {
			continue
		}
		names := map[int]map[string]int{3: monthNames, 4: dayNames}[i]
		if *set, err = cronField(f[i], cronFields[i].min, cronFields[i].max, names); err != nil {
			return fail(i, err)
		}
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

// Next is the first time after t at which c fires.
func (c *Cron) Next(t time.Time) time.Time {
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
func (c *Cron) day(t time.Time) bool {
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
