package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/localinvoke"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// resources are the app's declared resources as the running build sees
// them, and the deliverer that feeds its event handlers.
type resources struct {
	// env is what each function's process gets of them, by function
	// (names.APIHandlerName for the API's): its own FRAMEWORK_RES_*
	// variables, and AWS_ENDPOINT_URL without the IAM check
	// (localres.Resources.FunctionEnv).
	env    map[string][]string
	key    string // what the deliverer was started for
	notice string // the last problem reported, not repeated
	// last is the last lookup's outcome; resolved is it when it is kept
	// for the declarations `declared` (JSON).
	last, resolved *localres.Resources
	declared       string
	// positions is where the stream handlers got to, kept across the
	// deliverers of the session.
	positions localres.StreamPositions
	// deliverer is the running one.
	deliverer *localres.Deliverer
	stop      context.CancelFunc
	done      chan struct{}
	// answers receives once the emulator, which did not answer when the
	// resources were looked up, answers (awaitEmulator); waiting is true
	// from then until Run reads it.
	answers chan struct{}
	waiting bool
}

// resolve finds or creates the declared resources of m, the manifest of
// bin, and (re)starts what feeds its event handlers when the
// handlers or resources changed. Problems are reported, once each, and the
// app serves anyway.
func (s *supervisor) resolve(ctx context.Context, m *manifest.Manifest, bin string) {
	// The resources are looked up again only when the declarations
	// change, or after an error other than an unreadable deployed stage
	// (an emulator that was not running yet): a reload stays fast.
	// The declarations' defaults depend on the handlers they feed and on
	// the stage's timeouts (declspec.QueueOf).
	declared, _ := json.Marshal([]any{m.Resources, m.Functions, s.stage})
	if s.res.resolved == nil || string(declared) != s.res.declared {
		res, err := localres.Resolve(ctx, m, localres.Options{App: localres.AppName(s.dir, m), Stage: s.o.Stage, Endpoint: s.o.Endpoint, Profile: s.o.Profile, Region: s.o.Region,
			Config: s.stage,
			RefreshFailed: func(err error) {
				s.event("credentials_refresh_failed", map[string]any{"error": err.Error()}, "%v", err)
			}})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			down := s.o.Endpoint != "" && localres.Unanswered(err)
			if msg := err.Error(); msg != s.res.notice {
				s.res.notice = msg
				line := msg
				if down {
					line += fmt.Sprintf("\nThe emulator at %s does not answer: the app's calls to it fail until it does; framework local creates the resources as soon as it answers.", s.o.Endpoint)
				}
				s.event("resources_unavailable", map[string]any{"error": msg, "emulator_down": down}, "%s", line)
			}
			if down && !s.res.waiting {
				s.res.waiting = true
				if s.res.answers == nil {
					s.res.answers = make(chan struct{}, 1)
				}
				go awaitEmulator(ctx, s.o.Endpoint, s.res.answers)
			}
		} else {
			s.res.notice = ""
			s.reportResources(m, res)
		}
		s.reportChanges(res)
		if res == nil {
			res = &localres.Resources{}
		}
		s.res.resolved, s.res.declared = res, string(declared)
		if err != nil && !errors.Is(err, localres.ErrNoneDeployed) {
			s.res.resolved = nil
		}
		// The app that serves keeps its credentials until it is replaced.
		if s.cur == nil || s.res.last != s.cur.res {
			s.res.last.Close()
		}
		s.res.last = res
	}
	res := s.res.last
	proxy := ""
	if s.iam.proxy != nil {
		proxy = s.iam.proxy.URL
	}
	s.res.env = map[string][]string{}
	for fn, uses := range localres.Uses(m) {
		s.res.env[fn] = res.FunctionEnv(uses, proxy)
	}
	s.updateIAM(ctx, m, res)
	s.fnMu.Lock()
	var stale *localinvoke.Pool
	if bin != s.fnBin || s.fnPool == nil {
		// A new build: its handlers get processes of their own.
		stale, s.fnPool = s.fnPool, &localinvoke.Pool{Max: s.o.FunctionConcurrency}
	}
	s.fnBin, s.fnEnv, s.fnResEnv, s.fnTimeouts = bin, slices.Concat(s.env, s.wsEnv()), s.res.env, s.timeouts
	s.fnMu.Unlock()
	if stale != nil {
		stale.Close()
	}
	key, _ := json.Marshal([]any{m.Functions, m.Resources, res.Attrs})
	if string(key) == s.res.key {
		// The same handlers and resources: the emulator may have lost them
		// (restarted) since they were set up; what is missing is created
		// again, and a line says so.
		if s.res.deliverer != nil {
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_ = s.res.deliverer.Recreate(rctx)
			cancel()
		}
		return
	}
	s.stopDeliverer()
	s.res.key = string(key)
	d := &localres.Deliverer{
		Manifest: m, Resources: res, App: localres.AppName(s.dir, m), Stage: s.o.Stage, Schedules: !s.o.NoSchedules,
		Positions: &s.res.positions,
		Invoke: func(ctx context.Context, fn *manifest.Function, event []byte) (*localres.Outcome, error) {
			return s.invoke(ctx, m.App, fn, event)
		},
		Report: s.delivered,
		Problems: func(err error) {
			s.event("delivery_setup_failed", map[string]any{"error": err.Error()}, "%v", err)
		},
		Notices: func(n localres.Notice) {
			fields := map[string]any{"endpoint": n.Endpoint}
			if n.Error != "" {
				fields["error"] = n.Error
			}
			if len(n.Recreated) > 0 {
				fields["recreated"] = n.Recreated
			}
			s.event(n.Kind, fields, "%s", n.Line)
		},
	}
	s.res.deliverer = d
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	dctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.res.stop, s.res.done = cancel, done
	go func() {
		defer close(done)
		d.Run(dctx)
	}()
	// The app serves once its handlers' triggers are set up: an object
	// written, a message published or a record changed by the first
	// requests then reaches its handler (S3 notifies only the objects
	// written after a bucket's notification configuration, a stream is
	// read from its latest records).
	select {
	case <-ready:
	case <-done:
	case <-ctx.Done():
	case <-time.After(triggersWait):
		s.event("delivery_setup_slow", map[string]any{"seconds": triggersWait.Seconds()},
			"Setting up what feeds the event handlers takes over %.0fs: serving anyway; events sent before it completes may not reach their handlers.", triggersWait.Seconds())
	}
}

// emulatorAnswered is Run's part once the emulator that did not answer
// when the resources were looked up answers: it says so, then looks them
// up again (creating them) and restarts the app with them, as a reload.
func (s *supervisor) emulatorAnswered(ctx context.Context) {
	s.res.waiting = false
	if s.res.resolved != nil {
		return // a reload found them meanwhile
	}
	s.event("emulator_answers", map[string]any{"endpoint": s.o.Endpoint},
		"The emulator at %s answers now: creating the declared resources and restarting the app with them.", s.o.Endpoint)
	s.reload(ctx, "")
}

// awaitEmulator asks the emulator at endpoint for an answer, any HTTP
// answer, until it gives one or ctx ends, waiting longer after each try
// (from half a second, doubling, to 10 s); then it sends on answers.
func awaitEmulator(ctx context.Context, endpoint string, answers chan<- struct{}) {
	client := &http.Client{Timeout: 5 * time.Second}
	wait := 500 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
		if err != nil {
			return
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			select {
			case answers <- struct{}{}:
			default:
			}
			return
		}
		wait = min(2*wait, 10*time.Second)
	}
}

// triggersWait bounds how long the app waits for its event handlers'
// triggers to be set up before it serves.
const triggersWait = 20 * time.Second

// stopDeliverer stops feeding the event handlers and waits for the
// deliveries in flight.
func (s *supervisor) stopDeliverer() {
	if s.res.stop != nil {
		s.res.stop()
		<-s.res.done
		s.res.stop, s.res.deliverer = nil, nil
	}
}

// invoke runs handler fn of the current build with event through the
// Lambda runtime loop, as its deployed function would, in a process kept
// warm for the handler's next events (see localinvoke.Pool).
func (s *supervisor) invoke(ctx context.Context, app string, fn *manifest.Function, event []byte) (*localres.Outcome, error) {
	s.fnMu.Lock()
	bin, env, resEnv, timeouts, pool := s.fnBin, s.fnEnv, s.fnResEnv[fn.Name], s.fnTimeouts, s.fnPool
	s.fnMu.Unlock()
	if bin == "" || pool == nil {
		return nil, errors.New("the app is not built yet")
	}
	res, err := pool.Invoke(ctx, localinvoke.Process{
		Bin: bin, Env: slices.Concat(env, resEnv, s.iamEnv(fn.Name)), Handler: fn.Name, Log: s.appOut,
		Timeout:      timeouts.Of(fn.Name),
		FunctionName: names.StackName(app, s.o.Stage) + "-" + fn.Name,
	}, event)
	if err != nil {
		return nil, err
	}
	out := &localres.Outcome{Payload: res.Payload}
	if res.FunctionError != "" {
		out.Error = fmt.Sprintf("%s: %s", res.ErrorType, res.ErrorMessage)
	}
	return out, nil
}

// delivered reports one delivery: a `delivery` event in JSON mode, a line
// otherwise.
func (s *supervisor) delivered(d localres.Delivery) {
	failed := append([]string{}, d.Failed...)
	fields := map[string]any{"function": d.Function, "kind": string(d.Kind), "source": d.Source,
		"messages": d.Messages, "failed": len(d.Failed), "failed_ids": failed, "ok": d.Error == "",
		"retry": d.Retry, "dropped": d.Dropped, "deferred": d.Deferred, "seconds": d.Duration.Seconds()}
	if d.Error != "" {
		fields["error"] = d.Error
	}
	noun := "message"
	if d.Kind == manifest.KindS3 || d.Kind == manifest.KindDynamoDB {
		noun = "record"
	}
	what := fmt.Sprintf("%d %ss", d.Messages, noun)
	if d.Kind == manifest.KindSchedule {
		what = "tick"
	} else if d.Messages == 1 {
		what = "1 " + noun
	}
	line := fmt.Sprintf("%s %s -> %s: %s", d.Kind, d.Source, d.Function, what)
	failure := fmt.Sprintf(", failed (%s)", d.Error)
	if d.Error == "" { // a stream's partial batch response
		failure = fmt.Sprintf(", %d from the first reported failed on", len(d.Failed))
	}
	switch {
	case d.Dropped:
		line += failure + fmt.Sprintf("; dropped after %d retries", localres.MaxRetries)
	case d.Retry > 0:
		line += failure + fmt.Sprintf("; retry %d of %d follows", d.Retry, localres.MaxRetries)
	case d.Error != "" && len(d.Failed) > 0:
		line += fmt.Sprintf(", failed (%s); the messages stay on the queue", d.Error)
	case d.Error != "":
		line += fmt.Sprintf(", failed (%s)", d.Error)
	case len(d.Failed) > 0:
		line += fmt.Sprintf(", %d reported failed and left on the queue", len(d.Failed)-heldInBatch(d))
	default:
		line += fmt.Sprintf(", ok in %.2fs", d.Duration.Seconds())
	}
	if d.Deferred > 0 {
		line += fmt.Sprintf("; %d more received with them follow in the next invocation (6 MB payload limit)", d.Deferred)
	}
	if len(d.HeldBack) > 0 {
		fields["held_back_ids"] = d.HeldBack
		line += fmt.Sprintf("; %d later in the failed messages' FIFO groups wait behind them", len(d.HeldBack))
	}
	s.event("delivery", fields, "%s", line)
}

// reportResources says, once per set of declarations, which physical
// resource each declared one is: created or found at the emulator, or the
// deployed stage's (a "resources" event: resource name -> physical name).
func (s *supervisor) reportResources(m *manifest.Manifest, res *localres.Resources) {
	if len(m.Resources) == 0 {
		return
	}
	where := "stage " + s.o.Stage + "'s deployed stack"
	if s.o.Endpoint != "" {
		where = s.o.Endpoint
	}
	physical := map[string]string{}
	var parts []string
	for i := range m.Resources {
		d := &m.Resources[i]
		name := res.Attrs[d.Name][manifest.AttrName]
		physical[d.Name] = name
		parts = append(parts, fmt.Sprintf("%s (%s)", d.Label(), name))
	}
	s.event("resources", map[string]any{"where": where, "resources": physical}, "Resources at %s: %s", where, strings.Join(parts, ", "))
}

// reportChanges says what Resolve changed in the resources already at the
// emulator whose declarations changed (resource_updated), and what differs
// that it could not change (resource_differs).
func (s *supervisor) reportChanges(res *localres.Resources) {
	if res == nil {
		return
	}
	for _, ch := range res.Changes {
		kind := "resource_differs"
		if ch.Applied {
			kind = "resource_updated"
		}
		s.event(kind, map[string]any{"resource": ch.Resource, "line": ch.Line}, "%s", ch.Line)
	}
}

// heldInBatch is how many of d's failed messages are held back behind a
// failed one of their FIFO group rather than failed themselves.
func heldInBatch(d localres.Delivery) int {
	n := 0
	for _, id := range d.HeldBack {
		if slices.Contains(d.Failed, id) {
			n++
		}
	}
	return n
}
