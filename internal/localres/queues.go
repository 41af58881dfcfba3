package localres

import (
	"strconv"

	"github.com/framework-dev/framework/manifest"
)

// queueOptions are the attributes of declared queue d, beyond FIFO, the
// visibility timeout and the redrive policy, that the emulator's queue is
// created with, as the stack sets them: content-based deduplication, the
// message retention period and the delivery delay, each only when
// declared (SQS's default otherwise, as deployed).
func queueOptions(d *manifest.Resource) map[string]string {
	attrs := map[string]string{}
	if d.ContentBasedDeduplication {
		attrs["ContentBasedDeduplication"] = "true"
	}
	if d.MessageRetentionSeconds != 0 {
		attrs["MessageRetentionPeriod"] = strconv.Itoa(d.MessageRetentionSeconds)
	}
	if d.DeliveryDelaySeconds != 0 {
		attrs["DelaySeconds"] = strconv.Itoa(d.DeliveryDelaySeconds)
	}
	return attrs
}

// isDLQAttr reports whether attribute a is one of a queue's dead-letter
// queue.
func isDLQAttr(a string) bool {
	return a == manifest.AttrDLQName || a == manifest.AttrDLQURL || a == manifest.AttrDLQARN
}
