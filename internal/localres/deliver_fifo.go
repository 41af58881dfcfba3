package localres

import (
	"context"
	"slices"
)

// groupOf is the message group of m, a FIFO queue's message; "" for a
// standard queue's.
func groupOf(m sqsMessage) string { return m.Attributes["MessageGroupId"] }

// holdGroups adds to failed, the IDs of the messages of the FIFO batch
// msgs that failed, every message that follows a failed one in its
// message group, as Lambda's FIFO event source mapping keeps a group in
// order: a message is not processed before the ones sent ahead of it in
// its group. It returns the IDs of those that follow, whether the handler
// reported them as failed too (as the runtime does, framework's
// holdFIFOGroups) or not: they wait behind the first failed message of
// their group (releaseHeld). Standard queues' messages (no group) are left
// as they are.
func holdGroups(msgs []sqsMessage, failed map[string]bool) (held []string) {
	blocked := map[string]bool{}
	for _, m := range msgs {
		g := groupOf(m)
		switch {
		case g == "":
		case blocked[g]:
			failed[m.MessageId] = true
			held = append(held, m.MessageId)
		case failed[m.MessageId]:
			blocked[g] = true
		}
	}
	return held
}

// holdRest returns rest, the messages received with a FIFO batch and not
// yet delivered, without those of a group with a message in failed: they
// are made visible again at once, and the queue gives them again only
// after the failed ones, which keep their group in flight until they
// succeed or move to the dead-letter queue. It returns the IDs held.
func (d *Deliverer) holdRest(ctx context.Context, url string, msgs []sqsMessage, failed map[string]bool, rest []sqsMessage) (keep []sqsMessage, held []string) {
	blocked := map[string]bool{}
	for _, m := range msgs {
		if g := groupOf(m); g != "" && failed[m.MessageId] {
			blocked[g] = true
		}
	}
	if len(blocked) == 0 {
		return rest, nil
	}
	var back []sqsMessage
	for _, m := range rest {
		if blocked[groupOf(m)] {
			back = append(back, m)
			held = append(held, m.MessageId)
			continue
		}
		keep = append(keep, m)
	}
	d.release(ctx, url, back)
	return keep, held
}

// releaseHeld makes the messages of msgs whose IDs are in held (held back
// behind the first failed message of their group) visible again at once:
// that message alone keeps their group in flight, so the queue gives them
// only after it, in order, and they come back with it rather than a
// visibility timeout later. Left in flight, they would become visible
// with it, and an emulator may then give them out of order (moto gives
// the group's last message first).
func (d *Deliverer) releaseHeld(ctx context.Context, url string, msgs []sqsMessage, held []string) {
	if len(held) == 0 {
		return
	}
	var back []sqsMessage
	for _, m := range msgs {
		if slices.Contains(held, m.MessageId) {
			back = append(back, m)
		}
	}
	d.release(ctx, url, back)
}
