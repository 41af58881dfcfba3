package manifest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var cronFieldRe = regexp.MustCompile(`^[0-9A-Za-z*?,/#-]+$`)

// cronFields names the six fields of an EventBridge cron expression.
var cronFields = []struct {
	name     string
	min, max int
}{{"minutes", 0, 59}, {"hours", 0, 23}, {"day-of-month", 1, 31}, {"month", 1, 12}, {"day-of-week", 1, 7}, {"year", 1970, 2199}}

// CheckCron checks the six fields of an EventBridge cron expression (the
// text between "cron(" and ")") and says what is wrong with them.
func CheckCron(expr string) error {
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
