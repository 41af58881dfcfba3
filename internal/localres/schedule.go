package localres

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/manifest"
)

// Schedule is an EventBridge schedule expression's timer.
type Schedule interface {
	// Next is the first time after t at which the schedule fires.
	Next(t time.Time) time.Time
}

// ParseSchedule reads "rate(N unit)" or "cron(M H DoM Mon DoW Y)" (UTC, as
// EventBridge reads it; see manifest.ParseCron).
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
		return manifest.ParseCron(expr[len("cron(") : len(expr)-1])
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
