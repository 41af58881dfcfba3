package declspec

import (
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/manifest"
)

// Queue is a declared queue as a stage has it: every attribute its
// declaration decides, defaults written out. The construct builds the
// stack's queue from it and framework local the emulator's (QueueAttrs).
type Queue struct {
	// FIFO makes it a FIFO queue.
	FIFO bool
	// VisibilityTimeoutSeconds is the declared visibility timeout, else,
	// for a queue feeding handlers, 6 times the longest handler's timeout
	// plus its batching window (what AWS advises), at least 30 s and at
	// most 12 hours; else SQS's default, 30 s.
	VisibilityTimeoutSeconds int
	// MaxReceiveCount, when above 0, moves a message to the queue's
	// dead-letter queue after that many receives.
	MaxReceiveCount int
	// ContentBasedDeduplication, on a FIFO queue, deduplicates messages by
	// a hash of their body.
	ContentBasedDeduplication bool
	// MessageRetentionSeconds is how long the queue keeps a message; 0
	// leaves SQS's default, 4 days.
	MessageRetentionSeconds int
	// DeliveryDelaySeconds hides each new message that long; 0 for none.
	DeliveryDelaySeconds int
}

// SQS's bounds and defaults.
const (
	// SQSDefaultVisibility is SQS's default visibility timeout.
	SQSDefaultVisibility = 30
	// SQSDefaultRetention is SQS's default message retention, 4 days.
	SQSDefaultRetention = 4 * 24 * 3600
	maxVisibility       = 43200
	// DeadLetterRetentionSeconds is how long a dead-letter queue keeps a
	// message: 14 days, SQS's maximum, to leave time to look at it.
	DeadLetterRetentionSeconds = 14 * 24 * 3600
)

// QueueOf is declared queue d of m under stage st.
func QueueOf(m *manifest.Manifest, st Stage, d *manifest.Resource) Queue {
	q := Queue{FIFO: d.FIFO, VisibilityTimeoutSeconds: d.VisibilityTimeoutSeconds, MaxReceiveCount: d.MaxReceiveCount,
		ContentBasedDeduplication: d.ContentBasedDeduplication, MessageRetentionSeconds: d.MessageRetentionSeconds, DeliveryDelaySeconds: d.DeliveryDelaySeconds}
	if q.VisibilityTimeoutSeconds == 0 {
		q.VisibilityTimeoutSeconds = defaultVisibility(m, st, d)
	}
	return q
}

// defaultVisibility is the visibility timeout of queue d when it declares
// none (Queue.VisibilityTimeoutSeconds).
func defaultVisibility(m *manifest.Manifest, st Stage, d *manifest.Resource) int {
	vis := SQSDefaultVisibility
	for _, f := range m.Functions {
		if strings.EqualFold(f.SourceResource, d.Name) {
			vis = max(vis, 6*st.Timeout(f.Name)+f.MaxBatchingWindowSeconds)
		}
	}
	return min(vis, maxVisibility)
}

// DeadLetter is the dead-letter queue of q (when q.MaxReceiveCount is
// above 0) as the stack has it: FIFO when q is, SQS's default visibility
// timeout, and DeadLetterRetentionSeconds.
func (q *Queue) DeadLetter() Queue {
	return Queue{FIFO: q.FIFO, VisibilityTimeoutSeconds: SQSDefaultVisibility, MessageRetentionSeconds: DeadLetterRetentionSeconds}
}

// QueueAttr is one SQS attribute that a queue's declaration decides. A
// new setting of QueueSpec is one entry of QueueAttrs: framework local
// then creates the emulator's queue with it and updates it when the
// declaration changes.
type QueueAttr struct {
	// Name is the attribute's name in SQS's API (GetQueueAttributes,
	// SetQueueAttributes), which is also its AWS::SQS::Queue property.
	Name string
	// Value is the attribute's value for q; "" leaves it unset, to the
	// service's default (Unset).
	Value func(q *Queue) string
	// Unset is the value the service reports for the attribute when it
	// was never set ("" when it reports none).
	Unset string
	// Fixed says SQS cannot change it on an existing queue; the others are
	// changed in place with SetQueueAttributes.
	Fixed bool
	// Recreate, for a Fixed attribute, says what to do instead.
	Recreate string
}

// QueueAttrs are the SQS attributes a queue's declaration decides (the
// dead-letter queue's redrive policy, which names the dead-letter queue's
// ARN, is set where that is known).
var QueueAttrs = []QueueAttr{
	{Name: "FifoQueue", Value: func(q *Queue) string { return boolAttr(q.FIFO) }, Unset: "false", Fixed: true,
		Recreate: "a FIFO queue's name ends in .fifo, so the change makes a new queue"},
	{Name: "VisibilityTimeout", Value: func(q *Queue) string { return strconv.Itoa(q.VisibilityTimeoutSeconds) }, Unset: strconv.Itoa(SQSDefaultVisibility)},
	{Name: "ContentBasedDeduplication", Value: func(q *Queue) string { return boolAttr(q.ContentBasedDeduplication) }, Unset: "false"},
	{Name: "MessageRetentionPeriod", Value: func(q *Queue) string { return intAttr(q.MessageRetentionSeconds) }, Unset: strconv.Itoa(SQSDefaultRetention)},
	{Name: "DelaySeconds", Value: func(q *Queue) string { return intAttr(q.DeliveryDelaySeconds) }, Unset: "0"},
}

// Attributes are q's attributes by SQS name (QueueAttrs), those set only.
func (q *Queue) Attributes() map[string]string {
	out := map[string]string{}
	for _, a := range QueueAttrs {
		if v := a.Value(q); v != "" {
			out[a.Name] = v
		}
	}
	return out
}

// boolAttr is SQS's "true" for true, and "" (unset) for false.
func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// intAttr is n in decimal, and "" (unset) for 0.
func intAttr(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
