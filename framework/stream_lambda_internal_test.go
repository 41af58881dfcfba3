package framework

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda/messages"
)

// TestLambdaStreamIsIncremental: the Lambda side's streamed answer (what
// aws-lambda-go reads and posts to the Runtime API) yields each event
// before the handler writes the next: the handler waits until the reader
// has read event i. A buffered answer would hang at the first read (the
// handler's bound then fails the test).
func TestLambdaStreamIsIncremental(t *testing.T) {
	seen := make(chan int)
	a := New("t")
	a.Route("/events", func(r *Request) (*Response, error) {
		return EventStream(func(w *EventWriter) error {
			for i := 1; i <= 3; i++ {
				if err := w.Send(Event{Data: fmt.Sprint(i)}); err != nil {
					return err
				}
				if i < 3 {
					select {
					case <-seen:
					case <-time.After(time.Minute): // a bound on failure, not a measure
						return fmt.Errorf("the reader did not read event %d", i)
					}
				}
			}
			return nil
		}), nil
	}, Streaming())
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/events", Resource: "/events"})
	ans, err := a.answerStreaming(context.Background(), lambdaHandler{app: a}, payload, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.ContentType() != streamContentType {
		t.Fatalf("Content-Type %q", ans.ContentType())
	}
	br := bufio.NewReader(ans)
	prelude, err := br.ReadString(0)
	if err != nil || !strings.HasPrefix(prelude, `{"statusCode":200,"multiValueHeaders":{`) {
		t.Fatalf("prelude %q, %v", prelude, err)
	}
	if _, err := br.Discard(7); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		line, err := br.ReadString('\n')
		if want := fmt.Sprintf("data: %d\n", i); line != want || err != nil {
			t.Fatalf("event %d: %q, %v", i, line, err)
		}
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if i < 3 {
			seen <- i
		}
	}
	if rest, err := io.ReadAll(br); len(rest) != 0 || err != nil {
		t.Errorf("after the events: %q, %v", rest, err)
	}
}

// TestLambdaStreamErrorAfterFirstByte: a streamed answer that fails after
// its first byte ends with the error aws-lambda-go sends as is in the
// Runtime API's error trailers (an InvokeResponse_Error): its type, and a
// message saying how much was sent, the error's own text only with
// App.Debug.
func TestLambdaStreamErrorAfterFirstByte(t *testing.T) {
	for _, debug := range []bool{false, true} {
		a := New("t")
		a.ErrorLog = io.Discard
		a.Debug = debug
		a.Route("/s", func(r *Request) (*Response, error) {
			return Stream("text/plain", func(w *StreamWriter) error {
				w.WriteString("part")
				return errors.New("broke")
			}), nil
		}, Streaming())
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		payload, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: "GET", Path: "/s", Resource: "/s"})
		ans, err := a.answerStreaming(context.Background(), lambdaHandler{app: a}, payload, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(ans)
		var ie messages.InvokeResponse_Error
		if !errors.As(err, &ie) || ie.Type != streamErrorType || !strings.HasSuffix(string(b), "\x00part") ||
			!strings.Contains(ie.Message, "after 4 bytes") || strings.Contains(ie.Message, "broke") != debug {
			t.Errorf("debug %v: read %q, %#v; want the body then the stream error", debug, b, err)
		}
	}
}
