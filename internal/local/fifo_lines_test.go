package local

import (
	"bytes"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
)

// A FIFO delivery's line tells the messages the handler reported failed
// from those waiting behind them in their group.
func TestDeliveryLineFIFOHeldBack(t *testing.T) {
	d := localres.Delivery{Function: "fulfil", Kind: manifest.KindSQS, Source: "orders", Messages: 4, Failed: []string{"a1", "a2", "a3"},
		HeldBack: []string{"a2", "a3", "a4"}, Duration: 10 * time.Millisecond}
	var out bytes.Buffer
	s := &supervisor{o: Options{Stdout: &out}}
	s.delivered(d)
	want := "sqs orders -> fulfil: 4 messages, 1 reported failed and left on the queue; 3 later in the failed messages' FIFO groups wait behind them\n"
	if out.String() != want {
		t.Errorf("line:\n%s\nwant:\n%s", out.String(), want)
	}
}
