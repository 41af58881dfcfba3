package framework

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ScheduleExpression is when a scheduled handler runs: an EventBridge
// schedule expression built by Rate or Cron. A bad argument is kept and
// reported, naming the handler, by Validate.
type ScheduleExpression struct {
	expr string
	err  error
}

// String returns the expression as EventBridge takes it, for example
// "rate(5 minutes)" or "cron(0 12 * * ? *)".
func (s ScheduleExpression) String() string { return s.expr }

// Rate runs a handler every d, which must be a whole number of minutes, at
// least one: Rate(5*time.Minute) is "rate(5 minutes)", Rate(24*time.Hour)
// "rate(1 day)".
func Rate(d time.Duration) ScheduleExpression {
	if d < time.Minute || d%time.Minute != 0 {
		return ScheduleExpression{expr: fmt.Sprintf("rate(%s)", d), err: fmt.Errorf("rate %s: EventBridge runs schedules in whole minutes, at least one: use a multiple of time.Minute", d)}
	}
	n, unit := int64(d/time.Minute), "minute"
	switch {
	case d%(24*time.Hour) == 0:
		n, unit = int64(d/(24*time.Hour)), "day"
	case d%time.Hour == 0:
		n, unit = int64(d/time.Hour), "hour"
	}
	if n != 1 {
		unit += "s"
	}
	return ScheduleExpression{expr: fmt.Sprintf("rate(%d %s)", n, unit)}
}

var cronFieldRe = regexp.MustCompile(`^[0-9A-Za-z*?,/#-]+$`)

// cronFields names the six fields of an EventBridge cron expression.
var cronFields = []struct {
	name     string
	min, max int
}{{"minutes", 0, 59}, {"hours", 0, 23}, {"day-of-month", 1, 31}, {"month", 1, 12}, {"day-of-week", 1, 7}, {"year", 1970, 2199}}

// Cron runs a handler on an EventBridge cron expression of six fields,
// minutes hours day-of-month month day-of-week year, in UTC: Cron("0 12 * * ? *")
// runs every day at noon. One of day-of-month and day-of-week must be "?".
func Cron(fields string) ScheduleExpression {
	s := ScheduleExpression{expr: "cron(" + strings.TrimSpace(fields) + ")"}
	s.err = checkCron(fields)
	return s
}

func checkCron(expr string) error {
	f := strings.Fields(expr)
	if len(f) != 6 {
		return fmt.Errorf("cron %q has %d fields: EventBridge takes six, minutes hours day-of-month month day-of-week year, for example \"0 12 * * ? *\"", expr, len(f))
	}
	for i, v := range f {
		if !cronFieldRe.MatchString(v) {
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
	return nil
}
