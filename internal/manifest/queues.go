package manifest

import "fmt"

// SQS's limits and defaults for a queue's settings, in seconds.
const (
	// DefaultMessageRetentionSeconds is SQS's default message retention
	// period: 4 days.
	DefaultMessageRetentionSeconds = 4 * 24 * 3600
	// MinMessageRetentionSeconds and MaxMessageRetentionSeconds bound a
	// queue's message retention period: 60 s to 14 days.
	MinMessageRetentionSeconds = 60
	MaxMessageRetentionSeconds = 14 * 24 * 3600
	// MaxDeliveryDelaySeconds bounds a queue's delivery delay: 15 minutes
	// (SQS's default is 0, no delay).
	MaxDeliveryDelaySeconds = 15 * 60
)

// Attributes of a queue's dead-letter queue (a queue declared with a
// MaxReceiveCount above 0), handed to the functions and published as stack
// outputs like the queue's own (see ResourceEnv, ResourceOutput).
const (
	AttrDLQName = "DLQ_NAME" // the dead-letter queue's name
	AttrDLQURL  = "DLQ_URL"  // its URL
	AttrDLQARN  = "DLQ_ARN"  // its ARN
)

// AccessRedrive lets a function inspect a queue's dead-letter queue and
// move its messages back: receive, delete and change the visibility of
// the dead-letter queue's messages, read its attributes, start, list and
// cancel message move tasks from it (SQS's redrive), and send to the queue.
const AccessRedrive Access = "redrive" // queue with a dead-letter queue

// HasDeadLetter reports whether r is a queue with a dead-letter queue.
func (r *Resource) HasDeadLetter() bool { return r.Kind == ResourceQueue && r.MaxReceiveCount > 0 }

// validateQueueOptions checks the options of a queue beyond the visibility
// timeout and the dead-letter queue: content-based deduplication (FIFO
// queues only), the message retention period and the delivery delay. Each
// problem names the option and what to do.
func (r *Resource) validateQueueOptions() []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{r.Label()}, args...)...))
	}
	if r.Kind != ResourceQueue {
		if r.ContentBasedDeduplication && r.Kind != ResourceTopic {
			bad("content-based deduplication belongs to queues and topics only: remove it")
		}
		if r.MessageRetentionSeconds != 0 || r.DeliveryDelaySeconds != 0 {
			bad("a message retention period and a delivery delay belong to queues only: remove them")
		}
		return errs
	}
	if r.ContentBasedDeduplication && !r.FIFO {
		bad("content-based deduplication is for FIFO queues only: set FIFO too, or remove ContentBasedDeduplication")
	}
	if s := r.MessageRetentionSeconds; s != 0 && (s < MinMessageRetentionSeconds || s > MaxMessageRetentionSeconds) {
		bad("message retention %d s is out of range: use %d s (1 minute) to %d s (14 days), or leave it unset for SQS's default of 4 days",
			s, MinMessageRetentionSeconds, MaxMessageRetentionSeconds)
	}
	if s := r.DeliveryDelaySeconds; s < 0 || s > MaxDeliveryDelaySeconds {
		bad("delivery delay %d s is out of range: use 0 to %d s (15 minutes)", s, MaxDeliveryDelaySeconds)
	}
	return errs
}

// validateRedrive checks that a grant of AccessRedrive is on a queue with a
// dead-letter queue; who names the grantee.
func validateRedrive(who string, g Grant, r *Resource) error {
	if g.Access == AccessRedrive && r.Kind == ResourceQueue && !r.HasDeadLetter() {
		return fmt.Errorf("%s: access %q on %s, which has no dead-letter queue: give the queue one (QueueSpec.MaxReceiveCount), or grant Consume", who, g.Access, r.Label())
	}
	return nil
}
