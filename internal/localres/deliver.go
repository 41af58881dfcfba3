package localres

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/eventsample"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/runtimeapi"
)

// Outcome is how a handler took one delivery.
type Outcome struct {
	// Payload is the handler's JSON result.
	Payload []byte
	// Error is the handler's error ("Type: message"), "" when it succeeded.
	Error string
}

// Delivery is one event delivered to a handler, as reported.
type Delivery struct {
	// Function is the handler's name and Kind its kind.
	Function string
	Kind     manifest.Kind
	// Source is the declared queue, topic, bucket or table, the event
	// bus (default) of an EventBridge handler, or the schedule expression.
	Source string
	// Messages is how many messages or records the event carried.
	Messages int
	// Failed are the IDs of what is delivered again: the messages that
	// stay on the queue (those the handler reported as failed, or all of
	// them when it failed), the bucket event's message, or the sequence
	// numbers of the stream records retried (from the first one the
	// handler reported as failed, or all of them when it failed). With
	// Dropped, they are given up instead.
	Failed []string
	// Retry, for a topic, bucket or bus event or a stream batch that failed and is
	// delivered again after a wait, is the number of the retry that
	// follows (1 to MaxRetries); 0 otherwise.
	Retry int
	// Dropped is true when Failed are given up after MaxRetries retries,
	// not delivered again.
	Dropped bool
	// Deferred, for a queue or stream handler, is how many messages or
	// records received with the batch did not fit in the invocation
	// payload limit (6 MB): they are delivered next.
	Deferred int
	// HeldBack, for a FIFO queue's handler, are the IDs of the messages
	// that wait behind a failed message of their group: those of the batch
	// that follow it (they are in Failed too) and those received with the
	// batch and not delivered. They come again after it, in order.
	HeldBack []string
	// Error is the handler's error, or why the event could not be
	// delivered; "" when it succeeded.
	Error string
	// Duration is how long the handler took.
	Duration time.Duration
}

// MaxRetries is how many times a topic, bucket or bus event or a table
// stream batch that failed is delivered again before it is dropped
// (Lambda retries a failed asynchronous invocation, as SNS, S3 and
// EventBridge make, twice; a stream batch, by default,
// until its records expire, which a local session does not wait for).
const MaxRetries = 2

// Deliverer feeds an app's event handlers on this machine as their
// triggers would when deployed: it long-polls each declared queue that
// feeds a queue handler and delivers its batches (of the handler's batch
// size, at most 10 per receive); it subscribes a queue of the emulator to
// each declared topic that feeds a topic handler and delivers each
// notification as an SNS event; it sends the events of each declared
// bucket that feeds an S3 handler to a queue of the emulator and delivers
// each as an S3 event (see routeBuckets); it gives each EventBridge
// handler a rule of the emulator's default bus sending the events that
// match its pattern to a queue of the emulator, and delivers each as an
// EventBridge event (see routeEvents); it reads the stream of each
// declared table that feeds a stream handler and delivers its records in
// batches (see streamReader); and it fires each schedule on its timer.
// What a queue handler processed is deleted; what it reported as failed
// (or everything, when it failed) stays on the queue, to come back after
// the queue's visibility timeout, as with Lambda. A topic, bucket or bus
// event or a stream batch that failed is delivered again after 1 s, then
// 2 s, and dropped after MaxRetries retries. Handlers of resources the app
// does not declare are not fed.
type Deliverer struct {
	// Manifest is the app's manifest and Resources its resources (queues
	// and topics are polled only when Resources.Client is at an emulator).
	Manifest  *manifest.Manifest
	Resources *Resources
	// App and Stage name the local subscription queues.
	App, Stage string
	// Schedules fires the schedules.
	Schedules bool
	// Positions, when not nil, keeps where the stream handlers got to, for
	// the next Deliverer of the session.
	Positions *StreamPositions
	// Invoke runs handler fn with event through the Lambda dispatch.
	Invoke func(ctx context.Context, fn *manifest.Function, event []byte) (*Outcome, error)
	// Report receives each delivery.
	Report func(Delivery)
	// Ready, when not nil, is called once every trigger is set up (the
	// buckets' notification configurations, the topics' subscriptions, the
	// rules, the streams' iterators): an event sent after it reaches its
	// handler, one sent before may not (S3 notifies only the objects
	// written after the configuration, a stream is read from its latest
	// records).
	Ready func()
	// Problems, when not nil, receives one error per handler that cannot
	// be fed (a schedule local timers cannot fire, a topic that cannot be
	// subscribed to, a bucket whose events cannot be sent to a queue, a
	// table without a stream).
	Problems func(error)

	// retryWait is the wait before the first retry of a topic, bucket or bus event or
	// stream batch, doubled at each retry; 0 means 1 s.
	retryWait time.Duration
	// Notices, when not nil, receives what the Deliverer says about the
	// emulator: that it does not answer (at once, then every 30 s while it
	// lasts), that it answers again, that what was set up there is missing
	// and was created again.
	Notices func(Notice)

	// maxEventBytes is the invocation payload limit; 0 means
	// runtimeapi.MaxEventBytes.
	maxEventBytes int
	// downEvery is how often a notice repeats that the emulator does not
	// answer; 0 means 30 s.
	downEvery time.Duration

	// setupMu serialises setting up the triggers (Run, restore).
	setupMu sync.Mutex
	// streams are the stream ARNs of the tables restore created again, by
	// declared name.
	streamsMu sync.Mutex
	streams   map[string]string
	health    health
}

// Notice is what a Deliverer says about the emulator.
type Notice struct {
	// Kind is emulator_unreachable, emulator_answers or
	// resources_recreated.
	Kind string
	// Endpoint is the emulator's URL.
	Endpoint string
	// Error is why the emulator is deemed unreachable, or what could not
	// be created again.
	Error string
	// Recreated names what was created again, missing at the emulator.
	Recreated []string
	// Line is the notice in words.
	Line string
}

// health is whether the emulator answers, as the Deliverer's calls found.
type health struct {
	mu    sync.Mutex
	down  bool
	since time.Time
	stop  chan struct{} // closed when it answers again
}

// retryDelay is the wait before retry n (1 to MaxRetries).
func (d *Deliverer) retryDelay(n int) time.Duration {
	w := d.retryWait
	if w == 0 {
		w = time.Second
	}
	return w << (n - 1)
}

// Run feeds the handlers until ctx is done.
func (d *Deliverer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	emulated := d.emulated()
	d.setupMu.Lock()
	var bucketQueues, eventQueues map[string]string
	if emulated {
		bucketQueues = d.routeBuckets(ctx)
		eventQueues = d.routeEvents(ctx)
	}
	for i := range d.Manifest.Functions {
		f := &d.Manifest.Functions[i]
		switch {
		case f.Kind == manifest.KindSchedule && d.Schedules:
			sched, err := ParseSchedule(f.Schedule)
			if err != nil {
				d.problem(fmt.Errorf("%s: %w", f.Label(), err))
				continue
			}
			wg.Go(func() { d.fire(ctx, f, sched) })
		case f.Kind == manifest.KindEventBridge:
			if u := eventQueues[f.Name]; u != "" {
				wg.Go(func() {
					d.poll(ctx, f, u, func(msgs []sqsMessage) []sqsMessage { d.deliverEvents(ctx, f, u, msgs); return nil })
				})
			}
		case f.SourceResource == "" || !emulated:
		case f.Kind == manifest.KindSQS:
			u := d.Resources.Attrs[f.SourceResource][manifest.AttrURL]
			arn := d.Resources.Attrs[f.SourceResource][manifest.AttrARN]
			wg.Go(func() { d.pollQueue(ctx, f, u, arn) })
		case f.Kind == manifest.KindSNS:
			u, err := d.subscribe(ctx, f)
			if err != nil {
				d.problem(fmt.Errorf("%s: subscribe a local queue to topic %q: %w", f.Label(), f.SourceResource, err))
				continue
			}
			wg.Go(func() {
				d.poll(ctx, f, u, func(msgs []sqsMessage) []sqsMessage {
					for _, m := range msgs {
						d.deliverAsync(ctx, f, u, m, snsEvent(f, m), 1)
					}
					return nil
				})
			})
		case f.Kind == manifest.KindS3:
			if u := bucketQueues[f.Name]; u != "" {
				wg.Go(func() {
					d.poll(ctx, f, u, func(msgs []sqsMessage) []sqsMessage { d.deliverS3(ctx, f, u, msgs); return nil })
				})
			}
		case f.Kind == manifest.KindDynamoDB:
			r, err := d.openStream(ctx, f)
			if err != nil {
				d.problem(fmt.Errorf("%s: read the stream of table %q: %w", f.Label(), f.SourceResource, err))
				continue
			}
			if r != nil {
				wg.Go(func() { r.run(ctx) })
			}
		}
	}
	d.setupMu.Unlock()
	if d.Ready != nil {
		d.Ready()
	}
	wg.Wait()
}

// emulated reports whether the resources are at an emulator.
func (d *Deliverer) emulated() bool {
	return d.Resources != nil && d.Resources.Client != nil && d.Resources.Client.endpoint != ""
}

// restore creates again, at the emulator, what Resolve and the Deliverer
// set up there and is missing, as after the emulator restarted with its
// state gone: the declared resources, the handlers' queues, the topics'
// subscriptions, the buckets' notification configurations and the rules.
// It returns what it created; the stream readers of a table created again
// go on with its new stream, from its start.
func (d *Deliverer) restore(ctx context.Context) ([]string, error) {
	if !d.emulated() {
		return nil, nil
	}
	d.setupMu.Lock()
	defer d.setupMu.Unlock()
	ctx, made := withCreated(ctx)
	var errs []error
	for i := range d.Manifest.Resources {
		r := &d.Manifest.Resources[i]
		if d.Resources.Attrs[r.Name] == nil {
			continue // not created at the start either: that was said
		}
		attrs, err := d.Resources.Client.ensure(ctx, d.Manifest, PhysicalName(d.App, d.Stage, r), r)
		if err != nil {
			errs = append(errs, fmt.Errorf("create %s: %w", r.Label(), err))
			continue
		}
		if a := attrs[manifest.AttrStreamARN]; a != "" && a != d.streamARN(r.Name) {
			d.streamsMu.Lock()
			if d.streams == nil {
				d.streams = map[string]string{}
			}
			d.streams[r.Name] = a
			d.streamsMu.Unlock()
		}
	}
	d.routeBuckets(ctx)
	d.routeEvents(ctx)
	for i := range d.Manifest.Functions {
		f := &d.Manifest.Functions[i]
		if f.Kind == manifest.KindSNS && d.Resources.Attrs[f.SourceResource] != nil {
			if _, err := d.subscribe(ctx, f); err != nil {
				errs = append(errs, fmt.Errorf("subscribe %s to topic %q: %w", f.Label(), f.SourceResource, err))
			}
		}
	}
	return made.list(), errors.Join(errs...)
}

// streamARN is the ARN of the stream of declared table name.
func (d *Deliverer) streamARN(name string) string {
	d.streamsMu.Lock()
	defer d.streamsMu.Unlock()
	if a := d.streams[name]; a != "" {
		return a
	}
	return d.Resources.Attrs[name][manifest.AttrStreamARN]
}

func (d *Deliverer) notice(n Notice) {
	if d.Notices != nil {
		n.Endpoint = d.Resources.Client.endpoint
		d.Notices(n)
	}
}

// unanswered reports whether err is a call's that got no answer from the
// emulator (refused, reset, timed out), not an error it answered.
func unanswered(err error) bool {
	var ae *awscall.Error
	return err != nil && !errors.As(err, &ae) && !errors.Is(err, context.Canceled)
}

// Unanswered reports whether err, from Resolve with an emulator's
// endpoint, is only calls that got no answer from it (not running yet,
// or restarting): the resources can be created once it answers.
func Unanswered(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !Unanswered(e) {
				return false
			}
		}
		return len(j.Unwrap()) > 0
	}
	return unanswered(err)
}

// unreachable notes that a call to the emulator got no answer (err): a
// notice says so at once, and again every downEvery until it answers.
func (d *Deliverer) unreachable(ctx context.Context, err error) {
	h := &d.health
	h.mu.Lock()
	if h.down {
		h.mu.Unlock()
		return
	}
	h.down, h.since, h.stop = true, time.Now(), make(chan struct{})
	since, stop := h.since, h.stop
	ep := d.Resources.Client.endpoint
	d.notice(Notice{Kind: "emulator_unreachable", Error: err.Error(),
		Line: fmt.Sprintf("The emulator at %s does not answer (%v): the event handlers get nothing until it does; framework local tries again every few seconds.", ep, err)})
	h.mu.Unlock()
	every := d.downEvery
	if every == 0 {
		every = 30 * time.Second
	}
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-stop:
				return
			case <-t.C:
				// Under the lock: no such notice follows answered's.
				h.mu.Lock()
				if h.stop == stop && h.down {
					d.notice(Notice{Kind: "emulator_unreachable", Error: err.Error(),
						Line: fmt.Sprintf("The emulator at %s has not answered for %s (%v): the event handlers get nothing until it does.", ep, time.Since(since).Round(time.Second), err)})
				}
				h.mu.Unlock()
			}
		}
	}()
}

// answered notes that the emulator answered a call. After it did not, it
// creates again what is missing there (restore) and says so in one notice.
func (d *Deliverer) answered(ctx context.Context) {
	h := &d.health
	h.mu.Lock()
	if !h.down {
		h.mu.Unlock()
		return
	}
	h.down = false
	close(h.stop)
	h.mu.Unlock()
	made, err := d.restore(ctx)
	n := Notice{Kind: "emulator_answers", Recreated: made}
	n.Line = fmt.Sprintf("The emulator at %s answers again", d.Resources.Client.endpoint)
	if len(made) > 0 {
		n.Line += "; it had lost what framework local set up there, created again: " + strings.Join(made, ", ")
	}
	n.Line += "; delivery resumes."
	if err != nil {
		n.Error = err.Error()
		n.Line += " Not created again: " + n.Error
	}
	d.notice(n)
}

// Recreate creates again what was set up at the emulator and is missing
// (after the emulator restarted, its state gone; see restore), and says so
// in one notice when it created anything.
func (d *Deliverer) Recreate(ctx context.Context) error {
	made, err := d.restore(ctx)
	if len(made) > 0 {
		line := fmt.Sprintf("The emulator at %s had lost what framework local set up there (restarted?), created again: %s; delivery resumes.", d.Resources.Client.endpoint, strings.Join(made, ", "))
		n := Notice{Kind: "resources_recreated", Recreated: made, Line: line}
		if err != nil {
			n.Error = err.Error()
			n.Line += " Not created again: " + n.Error
		}
		d.notice(n)
	}
	return err
}

func (d *Deliverer) problem(err error) {
	if d.Problems != nil {
		d.Problems(err)
	}
}

// subscribe creates the queue that stands for handler f at the emulator,
// subscribed to its topic, and returns its URL.
func (d *Deliverer) subscribe(ctx context.Context, f *manifest.Function) (string, error) {
	u, arn, err := d.handlerQueue(ctx, f)
	if err != nil {
		return "", err
	}
	return u, d.Resources.Client.subscribe(ctx, d.Resources.Attrs[f.SourceResource][manifest.AttrARN], arn, subscriptionAttributes(f))
}

// handlerQueue returns the URL and ARN of the queue of the emulator that
// receives the notifications of handler f's declared topic or bucket,
// <app>-<stage>-<resource>-<handler>, or the events of its rule,
// <app>-<stage>-events-<handler>, created when missing.
func (d *Deliverer) handlerQueue(ctx context.Context, f *manifest.Function) (url, arn string, err error) {
	c := d.Resources.Client
	prefix := strings.ToLower(names.StackName(d.App, d.Stage)) + "-events"
	if f.SourceResource != "" {
		prefix = PhysicalName(d.App, d.Stage, d.Manifest.Resource(f.SourceResource))
	}
	name := prefix + "-" + strings.ToLower(f.Name)
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, name)
	if len(name) > 80 {
		name = name[:80]
	}
	if url, err = c.queueURL(ctx, name, map[string]string{}); err != nil {
		return "", "", err
	}
	arn, err = c.QueueARN(ctx, url)
	return url, arn, err
}

// sqsMessage is a message as SQS's ReceiveMessage returns it.
type sqsMessage struct {
	MessageId, ReceiptHandle, MD5OfBody, Body string
	Attributes                                map[string]string
	MessageAttributes                         map[string]struct {
		DataType, StringValue string
		BinaryValue           []byte
	}
}

// poll long-polls the queue at url, which feeds handler f, and hands what
// arrives to deliver. What deliver gives back, received but not delivered
// (the part of a batch over the invocation payload limit), is handed to
// deliver next, before anything else is received; when ctx ends first, it
// is made visible on the queue again at once.
func (d *Deliverer) poll(ctx context.Context, f *manifest.Function, url string, deliver func(msgs []sqsMessage) (rest []sqsMessage)) {
	c := d.Resources.Client
	max := 10
	if f.Kind == manifest.KindSQS && f.BatchSize > 0 && f.BatchSize < 10 {
		max = f.BatchSize
	}
	var rest []sqsMessage
	defer func() { d.release(ctx, url, rest) }()
	failures := 0
	for ctx.Err() == nil {
		if len(rest) > 0 {
			rest = deliver(rest)
			continue
		}
		var out struct{ Messages []sqsMessage }
		err := c.Call(ctx, "sqs", "ReceiveMessage", map[string]any{
			"QueueUrl": url, "MaxNumberOfMessages": max, "WaitTimeSeconds": 10,
			"AttributeNames": []string{"All"}, "MessageSystemAttributeNames": []string{"All"}, "MessageAttributeNames": []string{"All"},
		}, &out)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			switch {
			case unanswered(err):
				d.unreachable(ctx, err)
			case missingQueue(err):
				d.answered(ctx)
				if err := d.Recreate(ctx); err != nil {
					if failures == 1 {
						d.report(Delivery{Function: f.Name, Kind: f.Kind, Source: sourceOf(f), Error: "create the queue again: " + err.Error()})
					}
				} else {
					failures = 1 // created again: receive after 1 s, not after the backoff of the outage
				}
			default:
				d.answered(ctx)
				if failures == 1 {
					d.report(Delivery{Function: f.Name, Kind: f.Kind, Source: sourceOf(f), Error: "receive from the queue: " + err.Error()})
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(min(failures, 10)) * time.Second):
			}
			continue
		}
		failures = 0
		d.answered(ctx)
		if len(out.Messages) == 0 {
			continue
		}
		msgs := out.Messages
		if f.Kind == manifest.KindSQS && f.MaxBatchingWindowSeconds > 0 {
			msgs = d.gather(ctx, f, url, msgs)
		}
		rest = deliver(msgs)
	}
}

// release makes msgs, received from the queue at url and not delivered,
// visible again at once, for the next receive (after a reload, the next
// Deliverer's).
func (d *Deliverer) release(ctx context.Context, url string, msgs []sqsMessage) {
	if len(msgs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for start := 0; start < len(msgs); start += 10 {
		var entries []map[string]any
		for i, m := range msgs[start:min(start+10, len(msgs))] {
			entries = append(entries, map[string]any{"Id": strconv.Itoa(i), "ReceiptHandle": m.ReceiptHandle, "VisibilityTimeout": 0})
		}
		_ = d.Resources.Client.Call(ctx, "sqs", "ChangeMessageVisibilityBatch", map[string]any{"QueueUrl": url, "Entries": entries}, nil)
	}
}

// gather receives more messages from the queue at url after msgs, the
// first of a batch of queue handler f, as Lambda's event source mapping
// does with a batching window: until the batch holds the handler's batch
// size (10 by default) or the window has passed since the first receive.
// A message received again meanwhile (its visibility timeout shorter than
// the window) is kept once, with its newest receipt handle.
func (d *Deliverer) gather(ctx context.Context, f *manifest.Function, url string, msgs []sqsMessage) []sqsMessage {
	size := f.BatchSize
	if size == 0 {
		size = 10
	}
	at := map[string]int{}
	for i, m := range msgs {
		at[m.MessageId] = i
	}
	end := time.Now().Add(time.Duration(f.MaxBatchingWindowSeconds) * time.Second)
	for len(msgs) < size && ctx.Err() == nil {
		left := time.Until(end)
		if left <= 0 {
			break
		}
		var out struct{ Messages []sqsMessage }
		err := d.Resources.Client.Call(ctx, "sqs", "ReceiveMessage", map[string]any{
			"QueueUrl": url, "MaxNumberOfMessages": min(10, size-len(msgs)), "WaitTimeSeconds": min(20, int(left.Seconds())),
			"AttributeNames": []string{"All"}, "MessageSystemAttributeNames": []string{"All"}, "MessageAttributeNames": []string{"All"},
		}, &out)
		if err != nil {
			break // deliver what was gathered; the poll reports a lasting failure
		}
		for _, m := range out.Messages {
			if i, ok := at[m.MessageId]; ok {
				msgs[i] = m
				continue
			}
			at[m.MessageId] = len(msgs)
			msgs = append(msgs, m)
		}
		if len(out.Messages) == 0 && left < time.Second {
			break // a short poll found nothing and less than a second is left
		}
	}
	return msgs
}

// outcomeError is the error of an invocation that returned out and err,
// or "" when the handler succeeded.
func outcomeError(out *Outcome, err error) string {
	if err != nil {
		return err.Error()
	}
	return out.Error
}

// maxEvent is the largest event a handler is invoked with.
func (d *Deliverer) maxEvent() int {
	if d.maxEventBytes > 0 {
		return d.maxEventBytes
	}
	return runtimeapi.MaxEventBytes
}

// pollQueue feeds queue handler f with the declared queue at url, whose
// ARN is arn.
func (d *Deliverer) pollQueue(ctx context.Context, f *manifest.Function, url, arn string) {
	d.poll(ctx, f, url, func(msgs []sqsMessage) []sqsMessage { return d.deliverBatch(ctx, f, url, arn, msgs) })
}

// deliverBatch invokes f with the SQS event of msgs, received from the
// queue at url whose ARN is arn, and deletes from the queue what it
// processed. As Lambda's event source mapping, it stops the batch at the
// invocation payload limit (6 MB): the messages after it are returned, to
// be delivered next, neither failed nor received again (which would count
// against the queue's maxReceiveCount). A first message that alone makes an
// event over the limit fails without an invocation and stays on the queue,
// to come back after the visibility timeout and, with a redrive policy,
// end in the dead-letter queue (SQS refuses a message over 1 MiB, so a
// deployed queue never holds one).
func (d *Deliverer) deliverBatch(ctx context.Context, f *manifest.Function, url, arn string, msgs []sqsMessage) (rest []sqsMessage) {
	recs := d.sqsRecords(arn, msgs)
	n, size := 0, len(`{"Records":[]}`)
	for n < len(recs) && size+len(recs[n])+min(n, 1) <= d.maxEvent() {
		size += len(recs[n]) + min(n, 1)
		n++
	}
	if n == 0 {
		rest, held := d.holdRest(ctx, url, msgs[:1], map[string]bool{msgs[0].MessageId: true}, msgs[1:])
		d.report(Delivery{Function: f.Name, Kind: f.Kind, Source: f.SourceResource, Messages: 1, Failed: []string{msgs[0].MessageId}, HeldBack: held,
			Error: fmt.Sprintf("message %s alone makes an event of %d bytes, over Lambda's 6 MB invocation payload limit (%d bytes); the handler is not invoked",
				msgs[0].MessageId, len(`{"Records":[]}`)+len(recs[0]), d.maxEvent())})
		return rest
	}
	msgs, rest = msgs[:n], msgs[n:]
	ev := slices.Concat([]byte(`{"Records":[`), bytes.Join(recs[:n], []byte(",")), []byte(`]}`))
	start := time.Now()
	out, err := d.Invoke(ctx, f, ev)
	if ctx.Err() != nil {
		return rest
	}
	del := Delivery{Function: f.Name, Kind: f.Kind, Source: f.SourceResource, Messages: len(msgs), Deferred: len(rest), Duration: time.Since(start)}
	keep := map[string]bool{}
	del.Error = outcomeError(out, err)
	switch {
	case del.Error != "":
	case f.ReportBatchItemFailures:
		var resp events.SQSEventResponse
		if len(out.Payload) > 0 && string(out.Payload) != "null" {
			if err := json.Unmarshal(out.Payload, &resp); err != nil {
				del.Error = "the handler's answer is not a batch item failures response: " + err.Error()
			}
		}
		// An item that is not a message of the batch fails the whole
		// batch, as with Lambda.
		for _, it := range resp.BatchItemFailures {
			if !slices.ContainsFunc(msgs, func(m sqsMessage) bool { return m.MessageId == it.ItemIdentifier }) {
				del.Error = fmt.Sprintf("the handler reported item %q as failed, which is not the ID of a message of the batch: the whole batch counts as failed, as with Lambda", it.ItemIdentifier)
				break
			}
			keep[it.ItemIdentifier] = true
		}
	}
	if del.Error != "" {
		for _, m := range msgs {
			keep[m.MessageId] = true
		}
	}
	del.HeldBack = holdGroups(msgs, keep)
	var done []sqsMessage
	for _, m := range msgs {
		if keep[m.MessageId] {
			del.Failed = append(del.Failed, m.MessageId)
			continue
		}
		done = append(done, m)
	}
	d.releaseHeld(ctx, url, msgs, del.HeldBack)
	var held []string
	rest, held = d.holdRest(ctx, url, msgs, keep, rest)
	del.HeldBack, del.Deferred = append(del.HeldBack, held...), len(rest)
	if err := d.deleteMessages(ctx, url, done); err != nil && del.Error == "" {
		del.Error = "delete the processed messages: " + err.Error()
	}
	d.report(del)
	return rest
}

// deleteMessages deletes msgs from the queue at url.
func (d *Deliverer) deleteMessages(ctx context.Context, url string, msgs []sqsMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	entries := make([]map[string]string, len(msgs))
	for i, m := range msgs {
		entries[i] = map[string]string{"Id": strconv.Itoa(i), "ReceiptHandle": m.ReceiptHandle}
	}
	var res struct {
		Failed []struct{ Id, Message string }
	}
	err := d.Resources.Client.Call(ctx, "sqs", "DeleteMessageBatch", map[string]any{"QueueUrl": url, "Entries": entries}, &res)
	if err == nil && len(res.Failed) > 0 {
		err = fmt.Errorf("%s", res.Failed[0].Message)
	}
	return err
}

// sourceOf is what feeds handler f, as a Delivery names it.
func sourceOf(f *manifest.Function) string {
	if f.Kind == manifest.KindEventBridge {
		return "default"
	}
	return f.SourceResource
}

func (d *Deliverer) report(del Delivery) {
	if d.Report != nil {
		d.Report(del)
	}
}

// sqsRecords are the records of the SQS event of a batch of the queue arn,
// as Lambda's event source mapping sends it, each encoded in JSON as Lambda
// does (without escaping '<', '>' and '&', which would count against the
// payload limit): the event is {"Records":[...]} of them, comma-separated.
func (d *Deliverer) sqsRecords(arn string, msgs []sqsMessage) [][]byte {
	recs := make([][]byte, len(msgs))
	for i, m := range msgs {
		attrs := map[string]events.SQSMessageAttribute{}
		for k, a := range m.MessageAttributes {
			v := events.SQSMessageAttribute{DataType: a.DataType, BinaryValue: a.BinaryValue}
			if a.StringValue != "" {
				v.StringValue = &a.StringValue
			}
			attrs[k] = v
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(events.SQSMessage{
			MessageId: m.MessageId, ReceiptHandle: m.ReceiptHandle, Body: m.Body, Md5OfBody: m.MD5OfBody,
			Attributes: m.Attributes, MessageAttributes: attrs,
			EventSource: "aws:sqs", EventSourceARN: arn, AWSRegion: d.Resources.Client.Region(),
		})
		recs[i] = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return recs
}

// snsEvent is the SNS event of handler f for the notification m a
// subscribed queue received, as SNS invokes a function once per message.
func snsEvent(f *manifest.Function, m sqsMessage) []byte {
	var n struct {
		Type, MessageId, TopicArn, Subject, Message, Timestamp      string
		SignatureVersion, Signature, SigningCertURL, UnsubscribeURL string
		SigningCertUrl, UnsubscribeUrl                              string
		MessageAttributes                                           map[string]any
	}
	_ = json.Unmarshal([]byte(m.Body), &n)
	ts, _ := time.Parse(time.RFC3339, n.Timestamp)
	e := events.SNSEntity{
		Type: n.Type, MessageID: n.MessageId, TopicArn: n.TopicArn, Subject: n.Subject, Message: n.Message,
		Timestamp: ts, SignatureVersion: n.SignatureVersion, Signature: n.Signature,
		SigningCertURL: n.SigningCertURL + n.SigningCertUrl, UnsubscribeURL: n.UnsubscribeURL + n.UnsubscribeUrl,
		MessageAttributes: n.MessageAttributes,
	}
	if e.MessageAttributes == nil {
		e.MessageAttributes = map[string]any{}
	}
	b, _ := json.Marshal(events.SNSEvent{Records: []events.SNSEventRecord{{
		EventVersion: "1.0", EventSource: "aws:sns", EventSubscriptionArn: n.TopicArn + ":local-" + f.Name, SNS: e,
	}}})
	return b
}

// fire invokes schedule handler f at each time sched gives.
func (d *Deliverer) fire(ctx context.Context, f *manifest.Function, sched Schedule) {
	for {
		next := sched.Next(time.Now())
		t := time.NewTimer(time.Until(next))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		ev := eventsample.Schedule(f.Name)
		ev.Time, ev.ID = next.UTC(), newID()
		b, _ := json.Marshal(ev)
		start := time.Now()
		out, err := d.Invoke(ctx, f, b)
		if ctx.Err() != nil {
			return
		}
		del := Delivery{Function: f.Name, Kind: f.Kind, Source: f.Schedule, Messages: 1, Duration: time.Since(start)}
		if err != nil {
			del.Error = err.Error()
		} else if out.Error != "" {
			del.Error = out.Error
		}
		d.report(del)
	}
}

// newID is a random event ID in the form of a UUID.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
