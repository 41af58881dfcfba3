package local

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
)

// Each delivery is one readable line, or one `delivery` event with --json
// naming the messages left on the queue.
func TestDeliveryLines(t *testing.T) {
	partial := localres.Delivery{Function: "done", Kind: manifest.KindSQS, Source: "jobs", Messages: 2, Failed: []string{"m-2"}, Duration: 30 * time.Millisecond}
	failed := localres.Delivery{Function: "done", Kind: manifest.KindSQS, Source: "jobs", Messages: 1, Failed: []string{"m-3"}, Error: "Boom: no table"}
	tick := localres.Delivery{Function: "nightly", Kind: manifest.KindSchedule, Source: "rate(1 day)", Messages: 1, Duration: time.Second}
	upload := localres.Delivery{Function: "attachments", Kind: manifest.KindS3, Source: "files", Messages: 1, Failed: []string{"m-4"}, Retry: 1, Error: "Boom: bad file"}
	streamPartial := localres.Delivery{Function: "audit", Kind: manifest.KindDynamoDB, Source: "todos", Messages: 3, Failed: []string{"12", "13"}, Retry: 2}
	streamDropped := localres.Delivery{Function: "audit", Kind: manifest.KindDynamoDB, Source: "todos", Messages: 3, Failed: []string{"11", "12", "13"}, Dropped: true, Error: "Boom: down"}

	var out bytes.Buffer
	s := &supervisor{o: Options{Stdout: &out}}
	for _, d := range []localres.Delivery{partial, failed, tick, upload, streamPartial, streamDropped} {
		s.delivered(d)
	}
	want := "sqs jobs -> done: 2 messages, 1 reported failed and left on the queue\n" +
		"sqs jobs -> done: 1 message, failed (Boom: no table); the messages stay on the queue\n" +
		"schedule rate(1 day) -> nightly: tick, ok in 1.00s\n" +
		"s3 files -> attachments: 1 record, failed (Boom: bad file); retry 1 of 2 follows\n" +
		"dynamodb todos -> audit: 3 records, 2 from the first reported failed on; retry 2 of 2 follows\n" +
		"dynamodb todos -> audit: 3 records, failed (Boom: down); dropped after 2 retries\n"
	if out.String() != want {
		t.Errorf("lines:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	s.o.JSON = true
	s.delivered(partial)
	s.delivered(tick)
	s.delivered(streamDropped)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	if ev["event"] != "delivery" || ev["function"] != "done" || ev["failed"] != 1.0 || ev["ok"] != true || ev["failed_ids"].([]any)[0] != "m-2" {
		t.Errorf("event %v", ev)
	}
	if !strings.Contains(lines[1], `"failed_ids":[]`) {
		t.Errorf("a delivery without failures lists none as []: %s", lines[1])
	}
	if err := json.Unmarshal([]byte(lines[2]), &ev); err != nil {
		t.Fatal(err)
	}
	if ev["kind"] != "dynamodb" || ev["dropped"] != true || ev["failed"] != 3.0 || ev["retry"] != 0.0 {
		t.Errorf("a dropped stream batch: %v", ev)
	}
}
