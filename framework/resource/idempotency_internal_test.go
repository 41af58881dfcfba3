package resource

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/mototest"
)

// With an Expiry shorter than the handler, a duplicate that comes after
// Expiry while the first request still runs is a 409: the record in
// progress holds its key until the invocation's deadline, not until
// Expiry. The clock is moved past Expiry instead of waiting for it.
func TestIdempotencyExpiryShorterThanHandler(t *testing.T) {
	moto := mototest.Start(t)
	t.Setenv("AWS_ENDPOINT_URL", "")
	var offset atomic.Int64
	now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	t.Cleanup(func() { now = time.Now })

	app := framework.New("shop")
	keys := NewTable(app, "keys", TableSpec{PartitionKey: Key{Name: "id", Type: String}, TTLAttribute: "expires"})
	entered, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int64
	app.Route("/orders", func(r *framework.Request) (any, error) {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
		return framework.Response{StatusCode: 201, Body: "created"}, nil
	}, framework.Methods("POST"), Idempotent(keys, Idempotency{Expiry: time.Second}))
	frameworktest.UseEmulatorAt(t, app, moto.URL)
	c := frameworktest.New(app)
	key := map[string]string{"Idempotency-Key": "slow", "Content-Type": "application/json"}

	firstDone := make(chan *frameworktest.Response)
	go func() { firstDone <- c.Do("POST", "/orders", []byte(`{}`), key) }()
	<-entered
	offset.Store(int64(5 * time.Second)) // Expiry (1 s) has passed; the deadline (60 s without one) has not
	second := c.Do("POST", "/orders", []byte(`{}`), key)
	close(release)
	first := <-firstDone
	if first.StatusCode != 201 || second.StatusCode != 409 || calls.Load() != 1 {
		t.Errorf("a duplicate after Expiry while the first runs: %d and %d %s, handler run %d times; want 201, 409 and once",
			first.StatusCode, second.StatusCode, second.Body, calls.Load())
	}
}
