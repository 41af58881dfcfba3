// Command streaming streams Server-Sent Events to a browser: /ticks sends
// 5 events 200 ms apart, /paced sends each event only once the page has
// said it showed the one before (flow control by the reader), and / is a
// page whose EventSource shows them.
package main

import (
	_ "embed"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/framework-dev/framework/framework"
)

//go:embed page.html
var page string

// acks are the acknowledgements of the /paced streams, by stream id.
var acks = struct {
	sync.Mutex
	m map[string]chan int
}{m: map[string]chan int{}}

// ackTimeout bounds how long /paced waits for the page: a reader that
// never acknowledges gets an error event rather than an open stream.
const ackTimeout = 30 * time.Second

func newApp() *framework.App {
	app := framework.New("streaming")
	app.Route("/", func(r *framework.Request) (*framework.Response, error) {
		return &framework.Response{Headers: map[string]string{"Content-Type": "text/html; charset=utf-8"}, Body: page}, nil
	})
	app.Route("/ticks", ticks, framework.Streaming("text/event-stream"))
	app.Route("/paced", paced, framework.Streaming("text/event-stream"))
	app.Route("/paced/ack", ack, framework.Methods("POST"), framework.ContentTypes("text/plain", "application/json"))
	return app
}

// ticks sends 5 events, 200 ms apart.
func ticks(r *framework.Request) (*framework.Response, error) {
	return framework.EventStream(func(w *framework.EventWriter) error {
		for i := 1; i <= 5; i++ {
			if i > 1 {
				select {
				case <-time.After(200 * time.Millisecond):
				case <-r.Context().Done():
					return r.Context().Err()
				}
			}
			if err := w.Send(framework.Event{ID: strconv.Itoa(i), Data: fmt.Sprintf("tick %d", i)}); err != nil {
				return err
			}
		}
		return nil
	}), nil
}

// paced sends 5 events, each once the reader has acknowledged the one
// before on /paced/ack?id=ID&n=N.
func paced(r *framework.Request) (*framework.Response, error) {
	id := r.QueryParams.Get("id")
	if id == "" {
		return nil, framework.BadRequestError{Message: "send ?id=ID: the id the page acknowledges with on /paced/ack"}
	}
	ch := make(chan int, 5)
	acks.Lock()
	acks.m[id] = ch
	acks.Unlock()
	return framework.EventStream(func(w *framework.EventWriter) error {
		defer func() {
			acks.Lock()
			delete(acks.m, id)
			acks.Unlock()
		}()
		for i := 1; i <= 5; i++ {
			if err := w.Send(framework.Event{ID: strconv.Itoa(i), Data: fmt.Sprintf("tick %d", i)}); err != nil {
				return err
			}
			if i == 5 {
				break
			}
			select {
			case n := <-ch:
				if n != i {
					return w.Send(framework.Event{Name: "failed", Data: fmt.Sprintf("the page acknowledged %d, not %d", n, i)})
				}
			case <-time.After(ackTimeout):
				return w.Send(framework.Event{Name: "failed", Data: fmt.Sprintf("no acknowledgement of event %d within %s", i, ackTimeout)})
			case <-r.Context().Done():
				return r.Context().Err()
			}
		}
		return nil
	}), nil
}

// ack takes the page's acknowledgement of event n of stream id.
func ack(r *framework.Request) (any, error) {
	n, err := strconv.Atoi(r.QueryParams.Get("n"))
	if err != nil {
		return nil, framework.BadRequestError{Message: "send ?n=N, the id of the event shown"}
	}
	acks.Lock()
	ch := acks.m[r.QueryParams.Get("id")]
	acks.Unlock()
	if ch == nil {
		return nil, framework.NotFoundError{Message: "no /paced stream with that id"}
	}
	ch <- n
	return map[string]int{"acknowledged": n}, nil
}

func main() { newApp().Run() }
