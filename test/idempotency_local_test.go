package test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/framework-dev/framework/internal/mototest"
	"github.com/framework-dev/framework/internal/testutil"
)

// Under `framework local --aws-endpoint` against moto, with the local IAM
// check on (the deployed roles' policies), an idempotent POST answers a
// retry with its first answer, and an idempotent queue consumer processes
// two messages of one key once: the accesses the option declares are
// enough, locally as deployed.
func TestLocalIdempotency(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := filepath.Join(testutil.RepoRoot(t), "test", "testdata", "idemapp")
	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")

	var replayed string
	post := func(key string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", s.URL+"/orders", bytes.NewReader([]byte(`{"item":"book"}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		replayed = resp.Header.Get("Idempotent-Replayed")
		return resp.StatusCode, resp.Header.Get("X-Order"), string(b)
	}
	st1, h1, b1 := post("k1")
	if replayed != "" {
		t.Errorf("the first answer has Idempotent-Replayed: %s", replayed)
	}
	st2, h2, b2 := post("k1")
	if st1 != 201 || b1 != `{"order":1}` || h1 != "1" || st2 != st1 || h2 != h1 || b2 != b1 {
		t.Errorf("two POSTs with one key answered %d %s %s and %d %s %s, want 201 X-Order 1 {\"order\":1} twice", st1, h1, b1, st2, h2, b2)
	}
	if replayed != "true" {
		t.Errorf("the replayed answer has Idempotent-Replayed %q, want true", replayed)
	}
	if st, h, _ := post("k2"); st != 201 || h != "2" {
		t.Errorf("another key: %d X-Order %s, want 201 and order 2", st, h)
	}

	ctx := context.Background()
	q := sqs.NewFromConfig(moto.Config())
	for i := 0; i < 2; i++ {
		if _, err := q.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(moto.URL + "/123456789012/idemapp-dev-jobs"), MessageBody: aws.String(`{"order":"o1"}`)}); err != nil {
			t.Fatal(err)
		}
		if d := s.waitDelivery(t, "work", 20*time.Second); d["ok"] != true {
			t.Errorf("delivery %d to the queue handler: %v", i+1, d)
		}
	}
	s.stop(t)
	out := s.stderr.String()
	if n := strings.Count(out, `work: processed {"order":"o1"}`); n != 1 {
		t.Errorf("two messages of order o1 were processed %d times, want once; output:\n%s", n, out)
	}
	if ev := s.seenEvent("iam_denied"); ev != nil {
		t.Errorf("the local IAM check refused a call of the idempotency records: %v", ev)
	}
}
