package resource

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/framework"
)

// The guard of an idempotent event handler (IdempotentRecords).

// recordsFingerprint is the fingerprint of every message's record: a
// message's key names it, so there is nothing to compare.
const recordsFingerprint = "-"

// message is one message of an event: its raw JSON (a record of the
// batch, or the whole event), the id Lambda's batch failures name, and
// its body.
type message struct {
	raw  json.RawMessage
	id   string
	body []byte // JSON, or a string holding JSON
}

// messagesOf returns the messages of event: the Records of an SQS or SNS
// event, else the event itself (EventBridge); batch says which.
func messagesOf(event []byte) (msgs []message, top map[string]json.RawMessage, batch bool, err error) {
	if err := json.Unmarshal(event, &top); err != nil {
		return nil, nil, false, err
	}
	raw, batch := top["Records"]
	if !batch {
		var ev struct {
			ID     string          `json:"id"`
			Detail json.RawMessage `json:"detail"`
		}
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, nil, false, err
		}
		return []message{{raw: event, id: ev.ID, body: ev.Detail}}, top, false, nil
	}
	var records []json.RawMessage
	if err := json.Unmarshal(raw, &records); err != nil {
		return nil, nil, false, err
	}
	for _, r := range records {
		var rec struct {
			MessageID string `json:"messageId"`
			Body      string `json:"body"`
			SNS       *struct {
				MessageID string `json:"MessageId"`
				Message   string `json:"Message"`
			} `json:"Sns"`
		}
		if err := json.Unmarshal(r, &rec); err != nil {
			return nil, nil, false, err
		}
		m := message{raw: r, id: rec.MessageID, body: []byte(rec.Body)}
		if rec.SNS != nil {
			m.id, m.body = rec.SNS.MessageID, []byte(rec.SNS.Message)
		}
		msgs = append(msgs, m)
	}
	return msgs, top, true, nil
}

// messageKey is the key of m: its id, or the value at path in its body; ""
// when the body has none.
func messageKey(m message, path string) string {
	if path == "" {
		return m.id
	}
	var v any
	if json.Unmarshal(m.body, &v) != nil {
		return ""
	}
	for _, field := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = obj[field]
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// recordsGuard is the guard of an idempotent event handler; partial
// reports whether the handler reports its failed items.
func (s *idemStore) recordsGuard(partial func() bool) any {
	return framework.Middleware(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		return s.records(c, next, partial())
	})
}

func (s *idemStore) records(c *framework.Call, next framework.Next, partial bool) (*framework.Response, error) {
	ctx := c.Context()
	msgs, top, batch, err := messagesOf(c.Event)
	if err != nil {
		return next(c) // not an event of its kind: the handler says so
	}
	type held struct {
		cl *claim
		id string
	}
	var claims []held
	var kept []json.RawMessage
	var busy []string
	release := func() {
		for _, h := range claims {
			s.release(ctx, h.cl)
		}
	}
	inBatch := map[string]claimOutcome{} // a key twice in one batch: the later is a duplicate
	for _, m := range msgs {
		key := messageKey(m, s.opt.KeyPath)
		if key == "" {
			slog.WarnContext(ctx, fmt.Sprintf("idempotency: message %s has no value at %q in its body, so it runs without idempotency", m.id, s.opt.KeyPath), "handler", c.Handler)
			kept = append(kept, m.raw)
			continue
		}
		if o, dup := inBatch[key]; dup {
			if o == inProgress {
				busy = append(busy, m.id)
			}
			continue
		}
		outcome, _, cl, err := s.claim(ctx, c.Handler+"#"+key, recordsFingerprint)
		inBatch[key] = outcome
		if err != nil {
			release()
			return nil, err
		}
		switch outcome {
		case claimed:
			claims = append(claims, held{cl, m.id})
			kept = append(kept, m.raw)
		case inProgress:
			busy = append(busy, m.id)
		}
	}
	busyErr := func() error {
		return fmt.Errorf("idempotency: %d message(s) (%s) are being processed by another invocation: failing so that they are retried", len(busy), strings.Join(busy, ", "))
	}
	if len(kept) == 0 {
		switch {
		case partial:
			return &framework.Response{Body: failures(busy)}, nil
		case len(busy) > 0:
			return nil, busyErr()
		}
		return &framework.Response{Body: json.RawMessage("null")}, nil
	}
	if batch && len(kept) < len(msgs) {
		records, err := json.Marshal(kept)
		if err != nil {
			release()
			return nil, err
		}
		top["Records"] = records
		if c.Event, err = json.Marshal(top); err != nil {
			release()
			return nil, err
		}
	}
	// A panic records nothing and frees the batch's keys, so that its
	// redelivery runs every message again (no partial storage).
	returned := false
	defer func() {
		if !returned {
			release()
		}
	}()
	resp, err := next(c)
	returned = true
	if err != nil {
		release()
		return resp, err
	}
	failed := map[string]bool{}
	if partial && resp != nil {
		body, jerr := json.Marshal(resp.Body)
		var out struct {
			BatchItemFailures []struct {
				ItemIdentifier string `json:"itemIdentifier"`
			} `json:"batchItemFailures"`
		}
		if jerr == nil && json.Unmarshal(body, &out) == nil {
			for _, f := range out.BatchItemFailures {
				failed[f.ItemIdentifier] = true
				busy = append(busy, f.ItemIdentifier)
			}
		}
	}
	for _, h := range claims {
		if failed[h.id] {
			s.release(ctx, h.cl)
			continue
		}
		if cerr := s.complete(ctx, h.cl, recordsFingerprint, nil); cerr != nil {
			slog.WarnContext(ctx, cerr.Error(), "handler", c.Handler, "message", h.id)
		}
	}
	switch {
	case partial:
		return &framework.Response{Body: failures(busy)}, nil
	case len(busy) > 0:
		return nil, busyErr()
	}
	return resp, nil
}

// failures is a partial batch response failing the messages ids.
func failures(ids []string) json.RawMessage {
	type item struct {
		ItemIdentifier string `json:"itemIdentifier"`
	}
	out := struct {
		BatchItemFailures []item `json:"batchItemFailures"`
	}{BatchItemFailures: []item{}}
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out.BatchItemFailures = append(out.BatchItemFailures, item{id})
		}
	}
	b, _ := json.Marshal(out)
	return b
}
