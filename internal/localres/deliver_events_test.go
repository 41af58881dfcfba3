package localres

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/framework-dev/framework/internal/manifest"
)

// The events put on the emulator's default bus that match an EventBridge
// handler's pattern reach it as EventBridge events, the others do not; a
// failed event is retried, then dropped; the rule of a handler the app no
// longer has is deleted, and other rules of the bus are left alone.
func TestEventBridgeEventsReachTheirHandlers(t *testing.T) {
	moto := startMoto(t)
	ctx := context.Background()
	placed := manifest.Function{Name: "placed", Kind: manifest.KindEventBridge, EventPattern: json.RawMessage(`{"source":["shop.orders"],"detail-type":["OrderPlaced"]}`)}
	shipped := manifest.Function{Name: "shipped", Kind: manifest.KindEventBridge, EventPattern: json.RawMessage(`{"source":["shop.orders"],"detail-type":["OrderShipped"]}`)}
	m := &manifest.Manifest{App: "shop", Functions: []manifest.Function{placed, shipped}}
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Endpoint: moto.URL})
	if err != nil {
		t.Fatal(err)
	}
	// Rules of the bus that are not the app's and stage's: another app's,
	// and a stage whose name starts with this one's.
	for name, desc := range map[string]string{"framework-local-other-dev-x": "framework local rule of app other stage dev handler x",
		"framework-local-shop-dev-eu-placed": "framework local rule of app shop stage dev-eu handler placed"} {
		if err := r.Client.Call(ctx, "events", "PutRule", map[string]any{"Name": name, "EventPattern": `{"source":["x"]}`, "Description": desc}, nil); err != nil {
			t.Fatal(err)
		}
	}

	fd := feed(t, m, r, func(fn string, event []byte) (*Outcome, error) {
		if strings.Contains(string(event), "poison") {
			return &Outcome{Error: "Boom: bad order"}, nil
		}
		return &Outcome{Payload: []byte("null")}, nil
	})
	if fd.mu.Lock(); len(fd.problems) > 0 {
		t.Errorf("problems %v: want none", fd.problems)
	}
	fd.mu.Unlock()
	put := func(detailType, detail string) {
		t.Helper()
		var out struct{ FailedEntryCount int }
		err := r.Client.Call(ctx, "events", "PutEvents", map[string]any{"Entries": []map[string]string{
			{"Source": "shop.orders", "DetailType": detailType, "Detail": detail}}}, &out)
		if err != nil || out.FailedEntryCount != 0 {
			t.Fatalf("PutEvents: %v, %d failed", err, out.FailedEntryCount)
		}
	}
	event := func(fn string) events.EventBridgeEvent {
		t.Helper()
		var ev events.EventBridgeEvent
		fd.event(t, fn, &ev)
		return ev
	}

	put("OrderShipped", `{"id":"o-1"}`)
	put("OrderPlaced", `{"id":"o-2"}`)
	if ev := event("placed"); ev.DetailType != "OrderPlaced" || ev.Source != "shop.orders" || string(ev.Detail) != `{"id": "o-2"}` && string(ev.Detail) != `{"id":"o-2"}` || ev.Time.IsZero() || ev.ID == "" {
		t.Errorf("placed got %+v (detail %s), want OrderPlaced o-2 with its id and time", ev, ev.Detail)
	}
	if del := fd.next(t, "placed"); del.Kind != manifest.KindEventBridge || del.Source != "default" || del.Messages != 1 || del.Error != "" {
		t.Errorf("delivery %+v: want one event of the default bus delivered", del)
	}
	if ev := event("shipped"); ev.DetailType != "OrderShipped" {
		t.Errorf("shipped got %+v, want OrderShipped (each handler gets only what matches its pattern)", ev)
	}
	fd.next(t, "shipped")

	put("OrderPlaced", `{"id":"poison"}`)
	for attempt := 1; attempt <= MaxRetries+1; attempt++ {
		if ev := event("placed"); !strings.Contains(string(ev.Detail), "poison") {
			t.Fatalf("attempt %d: placed got %s, want the failing event again", attempt, ev.Detail)
		}
		del := fd.next(t, "placed")
		if del.Error != "Boom: bad order" || (attempt <= MaxRetries) != (del.Retry == attempt) || (attempt == MaxRetries+1) != del.Dropped {
			t.Errorf("attempt %d: delivery %+v, want a retry to follow, then the event dropped", attempt, del)
		}
	}
	fd.stop()

	rules := func() []string {
		t.Helper()
		var out struct{ Rules []struct{ Name string } }
		if err := r.Client.Call(ctx, "events", "ListRules", map[string]any{"NamePrefix": "framework-local-"}, &out); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range out.Rules {
			names = append(names, r.Name)
		}
		slices.Sort(names)
		return names
	}
	others := []string{"framework-local-other-dev-x", "framework-local-shop-dev-eu-placed"}
	if got := rules(); !slices.Equal(got, append(slices.Clone(others), "framework-local-shop-dev-placed", "framework-local-shop-dev-shipped")) {
		t.Errorf("rules %v: want one per handler, and the others", got)
	}
	feed(t, &manifest.Manifest{App: "shop", Functions: []manifest.Function{placed}}, r, nil).stop()
	if got := rules(); !slices.Equal(got, append(slices.Clone(others), "framework-local-shop-dev-placed")) {
		t.Errorf("after the handler shipped is removed, rules %v: want the others kept", got)
	}
}

func TestRuleNames(t *testing.T) {
	d := &Deliverer{App: "shop", Stage: "dev"}
	if got := d.ruleName("placed"); got != "framework-local-shop-dev-placed" {
		t.Errorf("ruleName = %q", got)
	}
	long := strings.Repeat("h", 60)
	a, b := d.ruleName(long+"a"), d.ruleName(long+"b")
	if len(a) != 64 || a == b || !strings.HasPrefix(a, "framework-local-shop-dev-hhh") {
		t.Errorf("long names %q and %q: want 64 characters, told apart, starting with the app's and stage's", a, b)
	}
}
