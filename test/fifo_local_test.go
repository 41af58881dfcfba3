package test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/framework-dev/framework/internal/mototest"
)

// fifoApp's handler commits a FIFO queue's messages in order, logging
// each; a body ending in "2" is poison for its first two receives. At a
// failure it stops its group, leaving the runtime to report the group's
// later messages as failed (as AWS asks of a FIFO handler).
const fifoApp = `package main

import (
	"context"
	"log"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("shop")
	orders := resource.NewQueue(app, "orders", resource.QueueSpec{FIFO: true, ContentBasedDeduplication: true, VisibilityTimeout: 2 * time.Second, MaxReceiveCount: 10})
	app.OnSQSPartialBatch("commit", orders.Ref(), func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var res events.SQSEventResponse
		stopped := map[string]bool{}
		for _, m := range ev.Records {
			g := m.Attributes["MessageGroupId"]
			if stopped[g] {
				continue
			}
			n, _ := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
			if strings.HasSuffix(m.Body, "2") && n < 3 {
				stopped[g] = true
				res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
				continue
			}
			log.Printf("committed %s", m.Body)
		}
		return res, nil
	})
	app.Run()
}
`

// A FIFO group with a poison message under framework local commits in the
// order it was sent, as Lambda's event source mapping keeps it (AWS: a
// group's later messages are not processed before the failed one; SQS
// gives a group's messages in order once they are visible): C1, then C2
// once it succeeds on its third receive, then C3, C4 and C5. The later
// messages, held back behind C2, were left in flight with it and came
// back out of order (C1, C5, ...).
func TestLocalFIFOOrderAfterAFailure(t *testing.T) {
	moto := mototest.Start(t)
	env := motoEnv(t, moto)
	dir := newProject(t, env, "shop")
	writeFile(t, filepath.Join(dir, "main.go"), fifoApp)
	cfgPath := filepath.Join(dir, ".framework", "config.json")
	raw, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	// The queue's 2-s visibility timeout must cover the handler's.
	cfg := strings.Replace(string(raw), "{", `{"lambda_functions": {"commit": {"lambda_timeout": 2}},`, 1)
	writeFile(t, cfgPath, cfg)

	s := startLocal(t, dir, env, "--aws-endpoint", moto.URL, "--no-schedules")
	q := sqs.NewFromConfig(moto.Config())
	url := moto.URL + "/123456789012/shop-dev-orders.fifo"
	committed := regexp.MustCompile(`committed (R\d-C\d)`)
	for run := 1; run <= 3; run++ {
		group := fmt.Sprintf("R%d", run)
		var entries []sqstypes.SendMessageBatchRequestEntry
		var want []string
		for i := 1; i <= 5; i++ {
			body := fmt.Sprintf("%s-C%d", group, i)
			want = append(want, body)
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), MessageBody: aws.String(body), MessageGroupId: aws.String(group)})
		}
		out, err := q.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
		if err != nil || len(out.Failed) > 0 {
			t.Fatalf("send: %v %v", err, out)
		}
		got := func() []string {
			var bodies []string
			for _, m := range committed.FindAllStringSubmatch(s.stderr.String(), -1) {
				if strings.HasPrefix(m[1], group+"-") {
					bodies = append(bodies, m[1])
				}
			}
			return bodies
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, ok := s.stderr.Wait(ctx, func(string) bool { return len(got()) >= 5 })
		cancel()
		if !ok {
			t.Fatalf("run %d: committed %v, want 5 messages; stderr:\n%s", run, got(), s.stderr.String())
		}
		if !slices.Equal(got(), want) {
			t.Errorf("run %d: committed %v, want %v", run, got(), want)
		}
	}
	s.stop(t)
}
