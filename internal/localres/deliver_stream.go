package localres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
)

// StreamPositions keeps, for one framework local session, the sequence
// number of the last record each stream handler was delivered (or that
// was dropped) in each shard, so that a Deliverer started again after a
// reload goes on from there, as an event source mapping keeps its place
// across updates of its function. The zero value is ready; a nil one keeps
// nothing.
type StreamPositions struct {
	mu  sync.Mutex
	seq map[string]string
}

func (p *StreamPositions) get(key string) string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq[key]
}

func (p *StreamPositions) set(key, seq string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seq == nil {
		p.seq = map[string]string{}
	}
	p.seq[key] = seq
}

// streamPoll is the wait between two reads of a stream that had nothing
// new.
const streamPoll = 500 * time.Millisecond

// streamBatch is the batch size of a stream handler that sets none, as
// with Lambda.
const streamBatch = 100

// streamReader feeds a stream handler with the records of a declared
// table's stream, as Lambda's event source mapping does. It reads each
// shard after the last record an earlier reader of the session delivered
// (Deliverer.Positions: a reload loses no record and delivers none twice),
// else from the records written after it started (LATEST, whatever the
// handler's starting position: a new session would otherwise deliver the
// stream's records again), and a shard that appears later from its start. It delivers a shard's records in order, in batches of
// the handler's batch size (100 by default), gathered for the handler's
// batching window when it has one, each as a DynamoDB event whose records
// carry the stream's ARN. A batch that failed holds up its shard and is
// delivered again after retryDelay: whole, or from the first record a
// partial batch response names (ReportBatchItemFailures); after MaxRetries
// retries, the records still failing are dropped and the shard goes on.
type streamReader struct {
	d      *Deliverer
	f      *manifest.Function
	arn    string
	shards []*shard
	known  map[string]bool // the shards being read or done with
	// failures counts the reads that failed in a row.
	failures int
}

// shard is one shard of a stream as a streamReader reads it.
type shard struct {
	id, iter string
	// key names the shard and handler in Deliverer.Positions.
	key string
	// last is the sequence number of the last record read.
	last string
	// buf holds the records read and not delivered yet, since when the
	// first of them was read.
	buf   []events.DynamoDBEventRecord
	since time.Time
	// closed is true once the shard has no more records.
	closed bool
}

// openStream starts reading the stream that feeds handler f where the
// session's last reader stopped, else from its latest records, or returns nil when its table could not be created (that
// error was reported).
func (d *Deliverer) openStream(ctx context.Context, f *manifest.Function) (*streamReader, error) {
	attrs := d.Resources.Attrs[f.SourceResource]
	if attrs == nil {
		return nil, nil
	}
	if attrs[manifest.AttrStreamARN] == "" {
		return nil, fmt.Errorf("the emulator's table %s has no stream", attrs[manifest.AttrName])
	}
	r := &streamReader{d: d, f: f, arn: attrs[manifest.AttrStreamARN], known: map[string]bool{}}
	return r, r.discover(ctx, "LATEST")
}

// discover starts reading the shards of the stream not known yet: after
// the session's position in the shard when there is one, else at the
// position typ (LATEST or TRIM_HORIZON); with LATEST, shards already
// closed are skipped.
func (r *streamReader) discover(ctx context.Context, typ string) error {
	start := ""
	for {
		in := map[string]any{"StreamArn": r.arn}
		if start != "" {
			in["ExclusiveStartShardId"] = start
		}
		var out struct {
			StreamDescription struct {
				Shards []struct {
					ShardId             string
					SequenceNumberRange struct{ EndingSequenceNumber string }
				}
				LastEvaluatedShardId string
			}
		}
		if err := r.d.Resources.Client.Call(ctx, "dynamodbstreams", "DescribeStream", in, &out); err != nil {
			return err
		}
		for _, sh := range out.StreamDescription.Shards {
			if r.known[sh.ShardId] {
				continue
			}
			key := r.f.Name + "\x00" + r.arn + "\x00" + sh.ShardId
			// Where an earlier reader of this session got to: go on after
			// it (an iterator there may be refused once its records
			// expired: then as if there were none).
			if pos := r.d.Positions.get(key); pos != "" {
				if iter, err := r.iterator(ctx, sh.ShardId, "AFTER_SEQUENCE_NUMBER", pos); err == nil {
					r.known[sh.ShardId] = true
					r.shards = append(r.shards, &shard{id: sh.ShardId, key: key, iter: iter, last: pos})
					continue
				}
			}
			if typ == "LATEST" && sh.SequenceNumberRange.EndingSequenceNumber != "" {
				r.known[sh.ShardId] = true
				continue
			}
			iter, err := r.iterator(ctx, sh.ShardId, typ, "")
			if err != nil {
				return err
			}
			r.known[sh.ShardId] = true
			r.shards = append(r.shards, &shard{id: sh.ShardId, key: key, iter: iter})
		}
		if start = out.StreamDescription.LastEvaluatedShardId; start == "" {
			return nil
		}
	}
}

// iterator returns an iterator of shard id at position typ, after
// sequence number seq for AFTER_SEQUENCE_NUMBER.
func (r *streamReader) iterator(ctx context.Context, id, typ, seq string) (string, error) {
	in := map[string]any{"StreamArn": r.arn, "ShardId": id, "ShardIteratorType": typ}
	if seq != "" {
		in["SequenceNumber"] = seq
	}
	var out struct{ ShardIterator string }
	err := r.d.Resources.Client.Call(ctx, "dynamodbstreams", "GetShardIterator", in, &out)
	return out.ShardIterator, err
}

// run reads and delivers until ctx is done: every streamPoll while the
// shards have nothing new, at once while they have, and every 10 s (or
// when a shard closes) it looks for new shards.
func (r *streamReader) run(ctx context.Context) {
	for polls := 1; ctx.Err() == nil; polls++ {
		// The table was created again at the emulator (Recreate, by
		// whichever handler found it missing): go on with its stream.
		if a := r.d.streamARN(r.f.SourceResource); a != r.arn {
			if err := r.follow(ctx, a); err != nil && ctx.Err() == nil {
				r.failed(ctx, "read the new stream: ", err)
			}
		}
		busy, ended := false, false
		for _, s := range r.shards {
			busy = r.read(ctx, s) || busy
		}
		open := r.shards[:0]
		for _, s := range r.shards {
			if s.closed && len(s.buf) == 0 {
				ended = true
				continue
			}
			open = append(open, s)
		}
		r.shards = open
		if ctx.Err() == nil && (ended || len(r.shards) == 0 || polls%20 == 0) {
			err := r.discover(ctx, "TRIM_HORIZON")
			if awscall.IsCode(err, "ResourceNotFoundException") {
				err = r.reopen(ctx)
			}
			if err != nil && ctx.Err() == nil {
				r.failed(ctx, "describe the stream: ", err)
			}
		}
		wait := streamPoll
		if r.failures > 0 {
			wait = time.Duration(min(r.failures, 10)) * time.Second
		} else if busy {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// reopen goes on with the stream of the handler's table created again at
// the emulator (Recreate), from its start, when its stream is gone.
func (r *streamReader) reopen(ctx context.Context) error {
	r.d.answered(ctx)
	if err := r.d.Recreate(ctx); err != nil {
		return err
	}
	arn := r.d.streamARN(r.f.SourceResource)
	if arn == r.arn {
		return fmt.Errorf("the stream %s is gone and its table has no other", arn)
	}
	return r.follow(ctx, arn)
}

// follow goes on with stream arn, the new stream of the handler's table
// created again, from its start.
func (r *streamReader) follow(ctx context.Context, arn string) error {
	r.arn, r.shards, r.known = arn, nil, map[string]bool{}
	if err := r.discover(ctx, "TRIM_HORIZON"); err != nil {
		return err
	}
	r.failures = 0 // read the new stream at once, not after the backoff of the outage
	return nil
}

// failed counts a failed call to the stream and reports the first of a
// row; a call the emulator did not answer is said once for all handlers.
func (r *streamReader) failed(ctx context.Context, what string, err error) {
	r.failures++
	if unanswered(err) {
		r.d.unreachable(ctx, err)
		return
	}
	r.d.answered(ctx)
	if r.failures == 1 {
		r.d.report(Delivery{Function: r.f.Name, Kind: r.f.Kind, Source: r.f.SourceResource, Error: what + err.Error()})
	}
}

// read reads what shard s has new and delivers the batches that are
// ready; it returns whether it read records.
func (r *streamReader) read(ctx context.Context, s *shard) bool {
	got := false
	if !s.closed {
		var out struct {
			Records           []json.RawMessage
			NextShardIterator *string
		}
		err := r.d.Resources.Client.Call(ctx, "dynamodbstreams", "GetRecords", map[string]any{"ShardIterator": s.iter, "Limit": 1000}, &out)
		if err != nil {
			if ctx.Err() != nil {
				return false
			}
			r.failed(ctx, "read the stream: ", err)
			// Go on after the last record read with a new iterator (one
			// expires after 15 minutes).
			typ := "LATEST"
			if s.last != "" {
				typ = "AFTER_SEQUENCE_NUMBER"
			}
			iter, err := r.iterator(ctx, s.id, typ, s.last)
			switch {
			case err == nil:
				s.iter = iter
			case awscall.IsCode(err, "ResourceNotFoundException"):
				s.closed = true
			}
			return false
		}
		r.failures = 0
		r.d.answered(ctx)
		for _, raw := range out.Records {
			var rec events.DynamoDBEventRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				r.d.report(Delivery{Function: r.f.Name, Kind: r.f.Kind, Source: r.f.SourceResource, Messages: 1,
					Error: "a record of the stream could not be read, it is dropped: " + err.Error()})
				continue
			}
			rec.EventSourceArn = r.arn
			s.last = rec.Change.SequenceNumber
			if len(s.buf) == 0 {
				s.since = time.Now()
			}
			s.buf = append(s.buf, rec)
		}
		if out.NextShardIterator == nil || *out.NextShardIterator == "" {
			s.closed = true
		} else {
			s.iter = *out.NextShardIterator
		}
		got = len(out.Records) > 0
	}
	batch := r.f.BatchSize
	if batch == 0 {
		batch = streamBatch
	}
	window := time.Duration(r.f.MaxBatchingWindowSeconds) * time.Second
	for len(s.buf) > 0 {
		// As Lambda, a batch also ends where its event reaches the
		// invocation payload limit (6 MB): the records after it are the
		// next batch's, without waiting for the window.
		want := min(batch, len(s.buf))
		n := r.d.fitStream(s.buf[:want])
		if n == want && len(s.buf) < batch && window > 0 && !s.closed && time.Since(s.since) < window {
			break
		}
		r.deliver(ctx, s.buf[:n], want-n)
		if ctx.Err() != nil {
			return false // not delivered: the next reader of the session delivers it
		}
		r.d.Positions.set(s.key, s.buf[n-1].Change.SequenceNumber)
		s.buf, s.since = s.buf[n:], time.Now()
	}
	return got
}

// fitStream is how many of recs, from the first, make a DynamoDB event
// within the invocation payload limit; at least 1 (a record of an item,
// at most 400 KB, never reaches it deployed).
func (d *Deliverer) fitStream(recs []events.DynamoDBEventRecord) int {
	size := len(`{"Records":[]}`)
	for i := range recs {
		b, _ := json.Marshal(&recs[i])
		size += len(b) + min(i, 1)
		if size > d.maxEvent() {
			return max(i, 1)
		}
	}
	return len(recs)
}

// deliver invokes the handler with recs until it takes them, at most
// MaxRetries times more (see streamReader). deferred is how many records
// after them would have been in the batch but for the payload limit.
func (r *streamReader) deliver(ctx context.Context, recs []events.DynamoDBEventRecord, deferred int) {
	f := r.f
	for retry := 0; ; retry++ {
		ev, _ := json.Marshal(events.DynamoDBEvent{Records: recs})
		start := time.Now()
		out, err := r.d.Invoke(ctx, f, ev)
		if ctx.Err() != nil {
			return
		}
		del := Delivery{Function: f.Name, Kind: f.Kind, Source: f.SourceResource, Messages: len(recs), Deferred: deferred, Duration: time.Since(start), Error: outcomeError(out, err)}
		from := 0
		if del.Error == "" {
			from = len(recs)
			if f.ReportBatchItemFailures {
				from, del.Error = firstFailed(out.Payload, recs)
			}
		}
		if from == len(recs) {
			r.d.report(del)
			return
		}
		for _, rec := range recs[from:] {
			del.Failed = append(del.Failed, rec.Change.SequenceNumber)
		}
		if retry == MaxRetries {
			del.Dropped = true
			r.d.report(del)
			return
		}
		del.Retry = retry + 1
		r.d.report(del)
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.d.retryDelay(del.Retry)):
		}
		recs = recs[from:]
	}
}

// firstFailed is the index in recs of the first record that the partial
// batch response payload names, len(recs) when it names none. An answer
// that is not such a response, or names a record not in the batch, fails
// the whole batch (index 0, and the reason), as with Lambda.
func firstFailed(payload []byte, recs []events.DynamoDBEventRecord) (int, string) {
	var resp events.DynamoDBEventResponse
	if len(payload) > 0 && string(payload) != "null" {
		if err := json.Unmarshal(payload, &resp); err != nil {
			return 0, "the handler's answer is not a batch item failures response: " + err.Error()
		}
	}
	from := len(recs)
	for _, it := range resp.BatchItemFailures {
		i := slices.IndexFunc(recs, func(r events.DynamoDBEventRecord) bool { return r.Change.SequenceNumber == it.ItemIdentifier })
		if i < 0 {
			return 0, fmt.Sprintf("the handler reported item %q as failed, which is not the sequence number of a record of the batch", it.ItemIdentifier)
		}
		from = min(from, i)
	}
	return from, ""
}
