package localres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/manifest"
)

func TestScheduleNext(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct{ expr, from, want string }{
		{"cron(0 12 * * ? *)", "2026-03-01 11:59", "2026-03-01 12:00"},
		{"cron(0 12 * * ? *)", "2026-03-01 12:00", "2026-03-02 12:00"},
		{"cron(15 10 ? * MON-FRI *)", "2026-11-27 11:00", "2026-11-30 10:15"}, // a Friday, then Monday
		{"cron(0/15 * * * ? *)", "2026-01-01 00:16", "2026-01-01 00:30"},
		{"cron(0 8 1 JAN,JUL ? *)", "2026-02-01 00:00", "2026-07-01 08:00"},
		{"cron(0 0 29 2 ? 2028)", "2026-01-01 00:00", "2028-02-29 00:00"},
		// The L, W and # forms.
		{"cron(0 12 L * ? *)", "2026-02-10 00:00", "2026-02-28 12:00"},     // the last day
		{"cron(0 12 L * ? *)", "2026-02-28 12:00", "2026-03-31 12:00"},     // and the next month's
		{"cron(0 9 15W * ? *)", "2026-08-01 00:00", "2026-08-14 09:00"},    // the 15th is a Saturday: Friday
		{"cron(0 9 1W * ? *)", "2026-07-31 10:00", "2026-08-03 09:00"},     // the 1st is a Saturday: Monday the 3rd
		{"cron(0 9 31W * ? *)", "2026-05-01 00:00", "2026-05-29 09:00"},    // the 31st is a Sunday, the last day: Friday
		{"cron(0 9 LW * ? *)", "2026-01-02 00:00", "2026-01-30 09:00"},     // the last day is a Saturday
		{"cron(0 10 ? * 6L *)", "2026-11-01 00:00", "2026-11-27 10:00"},    // the last Friday
		{"cron(0 10 ? * FRIL *)", "2026-11-28 00:00", "2026-12-25 10:00"},  // by name, next month
		{"cron(0 10 ? * 3#2 *)", "2026-12-01 00:00", "2026-12-08 10:00"},   // the second Tuesday
		{"cron(0 10 ? * TUE#5 *)", "2026-11-26 00:00", "2026-12-29 10:00"}, // a fifth Tuesday, skipping November
		{"cron(0 10 ? * L *)", "2026-11-25 11:00", "2026-11-28 10:00"},     // the last day of the week, Saturday
	} {
		s, err := ParseSchedule(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := s.Next(at(c.from)); !got.Equal(at(c.want)) {
			t.Errorf("%s after %s: %s, want %s", c.expr, c.from, got.Format("2006-01-02 15:04 Mon"), c.want)
		}
	}
	r, err := ParseSchedule("rate(5 minutes)")
	if err != nil {
		t.Fatal(err)
	}
	start := r.(rate).from
	if got := r.Next(start.Add(7 * time.Minute)); !got.Equal(start.Add(10 * time.Minute)) {
		t.Errorf("rate(5 minutes) 7 min in: next in %s, want 10m", got.Sub(start))
	}
	for _, bad := range []string{"rate(0 minutes)", "rate(5 weeks)", "cron(0 12 * *)", "cron(0 25 * * ? *)",
		"cron(0 12 32W * ? *)", "cron(0 12 1,L * ? *)", "cron(0 12 ? * 8L *)", "cron(0 12 ? * 3#6 *)", "cron(0 12 ? * 2#1,3#1 *)"} {
		if _, err := ParseSchedule(bad); err == nil || !strings.Contains(err.Error(), bad[:4]) {
			t.Errorf("%s: got %v, want an error", bad, err)
		}
	}
}

// soon fires once, right away, then never.
type soon struct{ fired bool }

func (s *soon) Next(t time.Time) time.Time {
	if s.fired {
		return t.Add(time.Hour)
	}
	s.fired = true
	return t
}

func TestScheduleFiresTheHandlerWithAScheduledEvent(t *testing.T) {
	f := &manifest.Function{Name: "nightly", Kind: manifest.KindSchedule, Schedule: "rate(1 day)"}
	got := &deliveries{ch: make(chan Delivery, 1)}
	events := make(chan []byte, 1)
	d := &Deliverer{Report: got.report, Invoke: func(_ context.Context, fn *manifest.Function, event []byte) (*Outcome, error) {
		events <- event
		return &Outcome{Error: "Boom: it failed"}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.fire(ctx, f, &soon{}) }()
	del := got.wait(t, 5*time.Second)
	cancel()
	<-done
	var ev struct {
		DetailType string   `json:"detail-type"`
		Source     string   `json:"source"`
		Resources  []string `json:"resources"`
	}
	if err := json.Unmarshal(<-events, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.DetailType != "Scheduled Event" || ev.Source != "aws.events" || len(ev.Resources) != 1 || !strings.HasSuffix(ev.Resources[0], "rule/nightly") {
		t.Errorf("event %+v: want EventBridge's scheduled event for rule nightly", ev)
	}
	if del.Function != "nightly" || del.Source != "rate(1 day)" || del.Error != "Boom: it failed" {
		t.Errorf("delivery %+v: want the handler's failure reported", del)
	}
}
