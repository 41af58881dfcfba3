package framework

import (
	"fmt"
	"strings"
	"time"
)

// ScheduleExpression is when a scheduled handler runs: an EventBridge
// schedule expression built by Rate or Cron. A bad argument is reported,
// naming the handler, by Validate.
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

// Cron runs a handler on an EventBridge cron expression of six fields,
// minutes hours day-of-month month day-of-week year, in UTC: Cron("0 12 * * ? *")
// runs every day at noon. One of day-of-month and day-of-week must be "?".
func Cron(fields string) ScheduleExpression {
	// The manifest's rules check the fields, once, with the handler named.
	return ScheduleExpression{expr: "cron(" + strings.TrimSpace(fields) + ")"}
}
