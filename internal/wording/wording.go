// Package wording spells the counts and durations of the CLI's messages the
// same way wherever they are printed (the deploy command and the deploy
// engine's progress lines).
package wording

import (
	"fmt"
	"time"
)

// Plural returns one when n is 1 and many otherwise, for messages such as
// "1 function" and "3 functions".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Seconds formats d as seconds with one decimal: "2.5s".
func Seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
