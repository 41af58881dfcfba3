package declspec

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/manifest"
)

func queueApp(vis int) *manifest.Manifest {
	return &manifest.Manifest{App: "shop",
		Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue, VisibilityTimeoutSeconds: vis}, {Name: "spare", Kind: manifest.ResourceQueue}},
		Functions: []manifest.Function{{Name: "worker", Kind: manifest.KindSQS, SourceResource: "jobs", MaxBatchingWindowSeconds: 5}},
	}
}

// A queue declared without a visibility timeout gets 6 times the timeout
// of the handler it feeds plus its batching window, under the stage's
// lambda_timeout or the handler's own; one feeding nothing SQS's 30 s.
func TestQueueDefaults(t *testing.T) {
	m := queueApp(0)
	for _, c := range []struct {
		st   Stage
		want int
	}{
		{Stage{}, 6*60 + 5},
		{Stage{TimeoutSeconds: 3}, 30},
		{Stage{TimeoutSeconds: 10, FunctionTimeouts: map[string]int{"worker": 100}}, 605},
		{Stage{TimeoutSeconds: 900, FunctionTimeouts: map[string]int{"worker": 0}}, 5405},
	} {
		if q := QueueOf(m, c.st, &m.Resources[0]); q.VisibilityTimeoutSeconds != c.want || q.Attributes()["VisibilityTimeout"] != strconv.Itoa(c.want) {
			t.Errorf("stage %+v: visibility %d (attributes %v), want %d", c.st, q.VisibilityTimeoutSeconds, q.Attributes(), c.want)
		}
	}
	if q := QueueOf(m, Stage{}, &m.Resources[1]); q.VisibilityTimeoutSeconds != 30 || q.Attributes()["FifoQueue"] != "" {
		t.Errorf("a queue feeding nothing: %+v %v, want 30 s and no FifoQueue", q, q.Attributes())
	}
	m.Resources[0].VisibilityTimeoutSeconds, m.Resources[0].FIFO = 400, true
	if q := QueueOf(m, Stage{}, &m.Resources[0]); q.VisibilityTimeoutSeconds != 400 || q.Attributes()["FifoQueue"] != "true" {
		t.Errorf("declared: %+v %v", q, q.Attributes())
	}
}

// Check refuses what the stage cannot deploy, saying what to change.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		m     *manifest.Manifest
		st    Stage
		wants []string
	}{
		{"visibility under the timeout", queueApp(30), Stage{}, []string{`queue "jobs": visibility timeout 30 s is shorter than the 60 s timeout of the sqs handler "worker"`, "raise it to at least 60 s", "leave it unset to get 365 s"}},
		{"visibility under the function's timeout", queueApp(60), Stage{FunctionTimeouts: map[string]int{"worker": 90}}, []string{"visibility timeout 60 s is shorter than the 90 s timeout"}},
		{"FIFO batch", func() *manifest.Manifest {
			m := queueApp(0)
			m.Resources[0].FIFO, m.Functions[0].BatchSize = true, 20
			return m
		}(), Stage{}, []string{`sqs handler "worker": batch size 20 is too large for the FIFO queue "jobs"`}},
		{"unknown lambda_functions entry", queueApp(0), Stage{FunctionTimeouts: map[string]int{"wroker": 5}}, []string{`lambda_functions.wroker: the app shop has no function "wroker"; its functions are: worker`}},
	} {
		err := Check(c.m, c.st)
		for _, w := range c.wants {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %v, want it to say %q", c.name, err, w)
			}
		}
	}
	if err := Check(queueApp(60), Stage{}); err != nil {
		t.Errorf("a visibility timeout equal to the timeout: %v", err)
	}
	m := &manifest.Manifest{App: "shop", Routes: []manifest.Route{{Path: "/admin", Methods: []string{"GET"}, Handler: "admin", APIKeyRequired: true}}}
	if err := Check(m, Stage{FrontDoor: config.FrontDoor{APIType: config.APIHTTP}}); !errors.Is(err, ErrFrontDoor) || !strings.Contains(err.Error(), "requires an API key") {
		t.Errorf("front door: %v, want ErrFrontDoor", err)
	}
}
