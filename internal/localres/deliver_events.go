package localres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// localRulePrefix starts the names of the rules of the emulator's default
// event bus that send a handler's events to its local queue.
const localRulePrefix = "framework-local-"

// eventsTarget is the ID of a local rule's one target, the handler's queue.
const eventsTarget = "framework-local-queue"

// routeEvents gives each EventBridge handler of the app, at the emulator, a
// rule on the default event bus with the handler's event pattern and a
// queue of the emulator as its target (<app>-<stage>-events-<handler>), as
// the stage's stack gives the deployed function a rule, and returns those
// queues' URLs by handler name. Events the app or anyone puts on the
// emulator's default bus (PutEvents) then reach the handler.
//
// The rules, named framework-local-<app>-<stage>-<handler>, stay after the
// session, so that the queues keep the events put while no session runs
// and the next one delivers them; a rule whose handler the app no longer
// has is deleted (one whose description says it is the app's and stage's:
// see ruleOwner). Rules of other apps and stages, and any other rule of
// the bus, are left alone.
func (d *Deliverer) routeEvents(ctx context.Context) map[string]string {
	urls := map[string]string{}
	wanted := map[string]bool{}
	c := d.Resources.Client
	for i := range d.Manifest.Functions {
		f := &d.Manifest.Functions[i]
		if f.Kind != manifest.KindEventBridge {
			continue
		}
		rule := d.ruleName(f.Name)
		wanted[rule] = true
		u, arn, err := d.handlerQueue(ctx, f)
		if err == nil && noting(ctx) {
			if awscall.IsCode(c.Call(ctx, "events", "DescribeRule", map[string]any{"Name": rule}, nil), "ResourceNotFoundException") {
				noteCreated(ctx, "rule "+rule)
			}
		}
		if err == nil {
			err = c.Call(ctx, "events", "PutRule", map[string]any{"Name": rule, "EventPattern": string(f.EventPattern), "State": "ENABLED",
				"Description": d.ruleOwner() + f.Name}, nil)
		}
		if err == nil {
			err = c.Call(ctx, "events", "PutTargets", map[string]any{"Rule": rule,
				"Targets": []map[string]string{{"Id": eventsTarget, "Arn": arn}}}, nil)
		}
		if err != nil {
			d.problem(fmt.Errorf("%s: send the default event bus's events that match its pattern to a local queue: %w", f.Label(), err))
			continue
		}
		urls[f.Name] = u
	}
	// The rules of handlers the app no longer has: those whose description
	// names this app and stage (a name prefix would also match another
	// stage whose name starts with this one's and a dash).
	owner := d.ruleOwner()
	in := map[string]any{"NamePrefix": localRulePrefix, "Limit": 100}
	for {
		var out struct {
			Rules     []struct{ Name, Description string }
			NextToken string
		}
		if err := c.Call(ctx, "events", "ListRules", in, &out); err != nil {
			break
		}
		for _, r := range out.Rules {
			if wanted[r.Name] || !strings.HasPrefix(r.Description, owner) {
				continue
			}
			_ = c.Call(ctx, "events", "RemoveTargets", map[string]any{"Rule": r.Name, "Ids": []string{eventsTarget}}, nil)
			_ = c.Call(ctx, "events", "DeleteRule", map[string]any{"Name": r.Name}, nil)
		}
		if out.NextToken == "" {
			break
		}
		in["NextToken"] = out.NextToken
	}
	return urls
}

// ruleOwner starts the description of the app's and stage's local rules;
// the handler's name follows it.
func (d *Deliverer) ruleOwner() string {
	return "framework local rule of app " + d.App + " stage " + d.Stage + " handler "
}

// ruleName is the name of the local rule of handler: at most 64
// characters of letters, digits, '.', '-' and '_', a longer one cut and
// told apart by a hash.
func (d *Deliverer) ruleName(handler string) string {
	n := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, localRulePrefix+names.StackName(d.App, d.Stage)+"-"+handler)
	const limit = 64
	if len(n) > limit {
		sum := sha256.Sum256([]byte(n))
		n = n[:limit-9] + "-" + hex.EncodeToString(sum[:4])
	}
	return n
}

// deliverEvents delivers each EventBridge event of msgs, received from the
// queue at url, to handler f as EventBridge invokes a function: one event
// per invocation, retried as an asynchronous invocation (see deliverAsync).
// A message that is not an event is dropped, and the delivery says so.
func (d *Deliverer) deliverEvents(ctx context.Context, f *manifest.Function, url string, msgs []sqsMessage) {
	for _, m := range msgs {
		var ev struct {
			DetailType string `json:"detail-type"`
		}
		if err := json.Unmarshal([]byte(m.Body), &ev); err != nil || ev.DetailType == "" {
			_ = d.deleteMessages(ctx, url, []sqsMessage{m})
			d.report(Delivery{Function: f.Name, Kind: f.Kind, Source: sourceOf(f), Messages: 1,
				Error: fmt.Sprintf("message %s of the handler's queue is not an EventBridge event; it is dropped", m.MessageId)})
			continue
		}
		d.deliverAsync(ctx, f, url, m, []byte(m.Body), 1)
	}
}
