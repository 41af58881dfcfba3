package localres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/runtimeapi"
)

func streamManifest(view string, fns ...manifest.Function) *manifest.Manifest {
	return &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "todos", Kind: manifest.ResourceTable,
		PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}, SortKey: &manifest.KeyAttr{Name: "n", Type: "N"}, Stream: view}}, Functions: fns}
}

// item is the DynamoDB JSON of an item of streamManifest's table.
func item(id string, n int, more ...string) map[string]any {
	it := map[string]any{"id": map[string]string{"S": id}, "n": map[string]string{"N": fmt.Sprint(n)}}
	for i := 0; i+1 < len(more); i += 2 {
		it[more[i]] = map[string]string{"S": more[i+1]}
	}
	return it
}

// records gathers the records of the events handler fn gets until it has
// n of them.
func (fd *feeding) records(t *testing.T, fn string, n int) []events.DynamoDBEventRecord {
	t.Helper()
	var recs []events.DynamoDBEventRecord
	for len(recs) < n {
		var ev events.DynamoDBEvent
		fd.event(t, fn, &ev)
		recs = append(recs, ev.Records...)
	}
	return recs
}

// Items put, updated and deleted after the start reach the stream handler
// as INSERT, MODIFY and REMOVE records of the table's stream, with the
// item's keys and the images the stream's view holds.
func TestStreamRecordsReachTheHandler(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := streamManifest("NEW_AND_OLD_IMAGES", manifest.Function{Name: "audit", Kind: manifest.KindDynamoDB, SourceResource: "todos", StartingPosition: manifest.StartTrimHorizon})
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	c, table, stream := r.Client, r.Attrs["todos"][manifest.AttrName], r.Attrs["todos"][manifest.AttrStreamARN]
	call := func(op string, in map[string]any) {
		t.Helper()
		in["TableName"] = table
		if err := c.Call(ctx, "dynamodb", op, in, nil); err != nil {
			t.Fatal(err)
		}
	}
	call("PutItem", map[string]any{"Item": item("before", 1)}) // written before the start: not delivered

	fd := feed(t, m, r, nil)
	call("PutItem", map[string]any{"Item": item("a", 1, "title", "milk")})
	call("UpdateItem", map[string]any{"Key": item("a", 1), "UpdateExpression": "SET title = :t",
		"ExpressionAttributeValues": map[string]any{":t": map[string]string{"S": "oat milk"}}})
	call("DeleteItem", map[string]any{"Key": item("a", 1)})

	recs := fd.records(t, "audit", 3)
	total := 0
	for total < 3 {
		del := fd.next(t, "audit")
		if del.Kind != manifest.KindDynamoDB || del.Source != "todos" || del.Error != "" || len(del.Failed) != 0 {
			t.Errorf("delivery %+v: want records of todos delivered", del)
		}
		total += del.Messages
	}
	title := func(img map[string]events.DynamoDBAttributeValue) string {
		if v, ok := img["title"]; ok {
			return v.String()
		}
		return "-"
	}
	var got []string
	for i, rec := range recs {
		got = append(got, fmt.Sprintf("%s %s/%s new=%s old=%s", rec.EventName, rec.Change.Keys["id"].String(), rec.Change.Keys["n"].Number(), title(rec.Change.NewImage), title(rec.Change.OldImage)))
		if rec.EventSourceArn != stream || rec.EventSource != "aws:dynamodb" || rec.Change.StreamViewType != "NEW_AND_OLD_IMAGES" || rec.Change.ApproximateCreationDateTime.IsZero() {
			t.Errorf("record %d %+v: want one of stream %s with its view and time", i, rec, stream)
		}
		if i > 0 && len(rec.Change.SequenceNumber) == len(recs[i-1].Change.SequenceNumber) && rec.Change.SequenceNumber <= recs[i-1].Change.SequenceNumber {
			t.Errorf("record %d's sequence number %s does not follow %s", i, rec.Change.SequenceNumber, recs[i-1].Change.SequenceNumber)
		}
	}
	want := []string{"INSERT a/1 new=milk old=-", "MODIFY a/1 new=oat milk old=milk", "REMOVE a/1 new=- old=oat milk"}
	if !slices.Equal(got, want) {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A batch that fails is retried MaxRetries times, whole or from the first
// record a partial batch response names, then dropped; the stream goes on
// after it.
func TestStreamBatchRetriedThenDropped(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	// A batch size of 3 with a batching window: the first batch is the
	// three items written together.
	partial := manifest.Function{Name: "partial", Kind: manifest.KindDynamoDB, SourceResource: "todos", StartingPosition: manifest.StartLatest,
		BatchSize: 3, MaxBatchingWindowSeconds: 1, ReportBatchItemFailures: true}
	whole := manifest.Function{Name: "whole", Kind: manifest.KindDynamoDB, SourceResource: "todos", StartingPosition: manifest.StartLatest,
		BatchSize: 3, MaxBatchingWindowSeconds: 1}
	m := streamManifest("KEYS_ONLY", partial, whole)
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	seqOf := map[string]string{} // item id -> sequence number, as the handlers saw them
	fd := feed(t, m, r, func(fn string, event []byte) (*Outcome, error) {
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(event, &ev); err != nil {
			return nil, err
		}
		var resp events.DynamoDBEventResponse
		for _, rec := range ev.Records {
			if rec.Change.Keys["id"].String() != "bad" {
				continue
			}
			if fn == "whole" {
				return &Outcome{Error: "Boom: bad item"}, nil
			}
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
		}
		b, _ := json.Marshal(resp)
		return &Outcome{Payload: b}, nil
	})
	put := func(ids ...string) {
		t.Helper()
		var reqs []map[string]any
		for _, id := range ids {
			reqs = append(reqs, map[string]any{"PutRequest": map[string]any{"Item": item(id, 1)}})
		}
		if err := r.Client.Call(ctx, "dynamodb", "BatchWriteItem", map[string]any{"RequestItems": map[string]any{r.Attrs["todos"][manifest.AttrName]: reqs}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(fn string) []string {
		t.Helper()
		var ev events.DynamoDBEvent
		fd.event(t, fn, &ev)
		var out []string
		for _, rec := range ev.Records {
			id := rec.Change.Keys["id"].String()
			seqOf[id] = rec.Change.SequenceNumber
			out = append(out, id)
		}
		return out
	}
	put("ok1", "bad", "ok2")

	for _, tc := range []struct {
		fn       string
		attempts [][]string // the records of each attempt
		err      string
		failed   []string // the records retried, then dropped
	}{
		{"partial", [][]string{{"ok1", "bad", "ok2"}, {"bad", "ok2"}, {"bad", "ok2"}}, "", []string{"bad", "ok2"}},
		{"whole", [][]string{{"ok1", "bad", "ok2"}, {"ok1", "bad", "ok2"}, {"ok1", "bad", "ok2"}}, "Boom: bad item", []string{"ok1", "bad", "ok2"}},
	} {
		for i, want := range tc.attempts {
			if got := ids(tc.fn); !slices.Equal(got, want) {
				t.Errorf("%s, attempt %d: records %v, want %v", tc.fn, i+1, got, want)
			}
			del := fd.next(t, tc.fn)
			var failed []string
			for _, id := range tc.failed {
				failed = append(failed, seqOf[id])
			}
			if del.Error != tc.err || !slices.Equal(del.Failed, failed) || del.Messages != len(want) {
				t.Errorf("%s, attempt %d: delivery %+v, want error %q and %v (%v) failed", tc.fn, i+1, del, tc.err, tc.failed, failed)
			}
			if last := i == MaxRetries; del.Dropped != last || !last && del.Retry != i+1 {
				t.Errorf("%s, attempt %d: delivery %+v: want retry %d to follow, or the records dropped after the last", tc.fn, i+1, del, i+1)
			}
		}
	}

	// The shard goes on after the records dropped.
	put("ok3")
	for _, fn := range []string{"partial", "whole"} {
		if got := ids(fn); !slices.Equal(got, []string{"ok3"}) {
			t.Errorf("%s after the drop: records %v, want ok3", fn, got)
		}
		if del := fd.next(t, fn); del.Error != "" || len(del.Failed) != 0 || del.Messages != 1 {
			t.Errorf("%s after the drop: delivery %+v", fn, del)
		}
	}
}

// A table created at the emulator before its stream was declared gets the
// stream.
func TestStreamEnabledOnAnExistingTable(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	o := Options{App: "shop", Stage: "dev", Endpoint: moto.URL}
	if _, err := Resolve(ctx, streamManifest(""), o); err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(ctx, streamManifest("NEW_IMAGE"), o)
	if err != nil {
		t.Fatal(err)
	}
	if arn := r.Attrs["todos"][manifest.AttrStreamARN]; !strings.Contains(arn, "table/shop-dev-todos/stream/") {
		t.Errorf("stream ARN %q, want the table's new stream", arn)
	}
}

// A deliverer started again in the same session (a reload) goes on after
// the last record delivered: what was written meanwhile is delivered, and
// nothing twice. A new session starts from the latest records.
func TestStreamPositionKeptAcrossReloads(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := streamManifest("KEYS_ONLY", manifest.Function{Name: "audit", Kind: manifest.KindDynamoDB, SourceResource: "todos"})
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	put := func(id string) {
		t.Helper()
		if err := r.Client.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": r.Attrs["todos"][manifest.AttrName], "Item": item(id, 1)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(recs []events.DynamoDBEventRecord) []string {
		var out []string
		for _, rec := range recs {
			out = append(out, rec.Change.Keys["id"].String())
		}
		return out
	}
	var session StreamPositions
	keep := func(d *Deliverer) { d.Positions = &session }

	fd := feed(t, m, r, nil, keep)
	put("a")
	if got := ids(fd.records(t, "audit", 1)); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("first reader got %v, want a", got)
	}
	fd.next(t, "audit")
	fd.stop()

	put("b") // while the app reloads
	fd = feed(t, m, r, nil, keep)
	put("c")
	if got := ids(fd.records(t, "audit", 2)); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("after the reload: %v, want b (written meanwhile) then c, and a not again", got)
	}
	fd.stop()

	put("d") // between sessions: a new session starts from the latest
	fd = feed(t, m, r, nil)
	put("e")
	if got := ids(fd.records(t, "audit", 1)); !slices.Equal(got, []string{"e"}) {
		t.Errorf("a new session got %v, want e only", got)
	}
}

// A stream batch whose event would be over Lambda's 6 MB payload limit is
// split, as Lambda's event source mapping invokes the function once the
// payload reaches 6 MB: twenty records of 350 KB items read together reach
// the handler, in order, in events within the limit, none failed. (The
// handler refuses a larger event, as the local Runtime API does.)
func TestStreamBatchSplitAtThePayloadLimit(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	m := streamManifest("NEW_IMAGE", manifest.Function{Name: "audit", Kind: manifest.KindDynamoDB, SourceResource: "todos"})
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	put := func(n int, body string) {
		t.Helper()
		if err := r.Client.Call(ctx, "dynamodb", "PutItem", map[string]any{"TableName": r.Attrs["todos"][manifest.AttrName], "Item": item("big", n, "body", body)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The first record's invocation holds the reader until the twenty
	// are written: it then reads them in one go.
	release := make(chan struct{})
	first := true
	fd := feed(t, m, r, func(fn string, event []byte) (*Outcome, error) {
		if first {
			first = false
			<-release
		}
		if len(event) > runtimeapi.MaxEventBytes {
			return nil, fmt.Errorf("%w: %d bytes", runtimeapi.ErrEventTooLarge, len(event))
		}
		return &Outcome{Payload: []byte("null")}, nil
	})
	put(0, "first")
	var got []string
	var ev events.DynamoDBEvent
	fd.event(t, "audit", &ev)
	for n := 1; n <= 20; n++ {
		put(n, strings.Repeat("x", 350_000))
	}
	close(release)
	if del := fd.next(t, "audit"); del.Messages != 1 || del.Error != "" {
		t.Fatalf("the first delivery %+v: want the first record, ok", del)
	}
	deferred := 0
	for len(got) < 20 {
		del := fd.next(t, "audit")
		if del.Error != "" || len(del.Failed) > 0 {
			t.Fatalf("delivery %+v: want the batch split at the payload limit, not failed", del)
		}
		deferred += del.Deferred
		var ev events.DynamoDBEvent
		fd.event(t, "audit", &ev)
		for _, rec := range ev.Records {
			got = append(got, rec.Change.Keys["n"].Number())
		}
	}
	var want []string
	for n := 1; n <= 20; n++ {
		want = append(want, fmt.Sprint(n))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the handler got records %v, want 1 to 20 in order", got)
	}
	if deferred == 0 {
		t.Errorf("no delivery said records were deferred to the next invocation")
	}
}
