package wording

import (
	"testing"
	"time"
)

func TestWording(t *testing.T) {
	for n, want := range map[int]string{0: "functions", 1: "function", 2: "functions"} {
		if got := Plural(n, "function", "functions"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.0s", 2500 * time.Millisecond: "2.5s", 61 * time.Second: "61.0s"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", d, got, want)
		}
	}
}
