package resource_test

import (
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

// A queue's options out of SQS's ranges, not in whole seconds, or on a
// queue that cannot have them, are declaration errors naming the option
// and what to do.
func TestQueueOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		declare func(app *framework.App)
		want    []string
	}{
		{"retention too short", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{MessageRetention: 30 * time.Second})
		}, []string{`queue "jobs": message retention 30 s is out of range: use 60 s (1 minute) to 1209600 s (14 days)`}},
		{"retention too long", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{MessageRetention: 15 * 24 * time.Hour})
		}, []string{`message retention 1296000 s is out of range`}},
		{"retention not in seconds", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{MessageRetention: 90*time.Second + time.Millisecond})
		}, []string{`queue "jobs" (declared at resource/queue_test.go:`, `MessageRetention 1m30.001s is not whole seconds`}},
		{"delay too long", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{DeliveryDelay: 16 * time.Minute})
		}, []string{`queue "jobs": delivery delay 960 s is out of range: use 0 to 900 s (15 minutes)`}},
		{"negative delay", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{DeliveryDelay: -time.Second})
		}, []string{`delivery delay -1 s is out of range`}},
		{"delay not in seconds", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{DeliveryDelay: 500 * time.Millisecond})
		}, []string{`DeliveryDelay 500ms is not whole seconds`}},
		{"deduplication on a standard queue", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{ContentBasedDeduplication: true})
		}, []string{`queue "jobs": content-based deduplication is for FIFO queues only: set FIFO too`}},
		{"redrive without a dead-letter queue", func(app *framework.App) {
			resource.NewQueue(app, "jobs", resource.QueueSpec{}).Allow(resource.Redrive)
		}, []string{`access "redrive" on queue "jobs", which has no dead-letter queue: give the queue one (QueueSpec.MaxReceiveCount)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := framework.New("app")
			tc.declare(app)
			err := app.Validate()
			if err == nil {
				t.Fatal("Validate accepted the declaration")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
	app := framework.New("app")
	resource.NewQueue(app, "jobs", resource.QueueSpec{FIFO: true, ContentBasedDeduplication: true, MessageRetention: time.Minute,
		DeliveryDelay: 15 * time.Minute, MaxReceiveCount: 3}).Allow(resource.Redrive)
	resource.NewQueue(app, "slow", resource.QueueSpec{MessageRetention: 14 * 24 * time.Hour})
	if err := app.Validate(); err != nil {
		t.Errorf("the limits themselves are refused: %v", err)
	}
}
