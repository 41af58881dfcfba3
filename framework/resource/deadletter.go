package resource

import (
	"fmt"
	"sync"

	"github.com/framework-dev/framework/internal/manifest"
)

// DeadLetterQueue is the dead-letter queue of a declared queue
// (QueueSpec.MaxReceiveCount), where a message goes after that many
// receives. Reading or moving its messages back (SQS's
// StartMessageMoveTask with its ARN as the source) needs the Redrive
// access on the queue.
type DeadLetterQueue struct {
	q      *Queue
	warned sync.Once
}

// DeadLetter is the queue's dead-letter queue. Its attributes are "" (and
// one line on stderr says why) when the queue is declared without one.
func (q *Queue) DeadLetter() *DeadLetterQueue { return &q.dlq }

// attr returns attribute a of the dead-letter queue, as handle.attr does.
func (d *DeadLetterQueue) attr(a string) string {
	if !d.q.deadLetter {
		d.warned.Do(func() {
			fmt.Fprintf(warnTo, "framework: queue %q (declared at %s) has no dead-letter queue: declare it with QueueSpec.MaxReceiveCount above 0\n", d.q.name, d.q.where)
		})
		return ""
	}
	return d.q.attr(a)
}

// Name is the dead-letter queue's name.
func (d *DeadLetterQueue) Name() string { return d.attr(manifest.AttrDLQName) }

// URL is the dead-letter queue's URL, for the SDK's QueueUrl.
func (d *DeadLetterQueue) URL() string { return d.attr(manifest.AttrDLQURL) }

// ARN is the dead-letter queue's ARN (the SourceArn of a message move
// task).
func (d *DeadLetterQueue) ARN() string { return d.attr(manifest.AttrDLQARN) }
