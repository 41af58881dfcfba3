package framework

import "github.com/aws/aws-lambda-go/events"

// holdFIFOGroups adds to r, a partial batch response to the SQS event ev,
// every message of a FIFO queue (one with a message group) that follows a
// message reported as failed in its group: Lambda would delete it, and
// the group would then be processed out of order. A standard queue's
// messages are left as reported.
func holdFIFOGroups(ev events.SQSEvent, r *events.SQSEventResponse) {
	if len(r.BatchItemFailures) == 0 {
		return
	}
	failed := make(map[string]bool, len(r.BatchItemFailures))
	for _, f := range r.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	blocked := map[string]bool{}
	for _, m := range ev.Records {
		g := m.Attributes["MessageGroupId"]
		switch {
		case g == "":
		case failed[m.MessageId]:
			blocked[g] = true
		case blocked[g]:
			failed[m.MessageId] = true
			r.BatchItemFailures = append(r.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
}
