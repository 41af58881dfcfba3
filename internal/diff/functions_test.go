package diff

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

// TestFunctionChanges: adding and removing handlers and triggers is named
// by handler, in the text and JSON reports.
func TestFunctionChanges(t *testing.T) {
	var tpl map[string]any
	full := testutil.ReadJSON(t, filepath.Join("..", "engine", "testdata", "events-dev.template.json"), &tpl)
	res := tpl["Resources"].(map[string]any)
	for id := range res {
		if strings.HasPrefix(id, "AppFnclicks") {
			delete(res, id) // the clicks function and its event source mapping
		}
		if strings.HasPrefix(id, "AppFnnightly0DcleanupSchedule") && !strings.Contains(id, "Invoke") {
			res[id].(map[string]any)["Properties"].(map[string]any)["ScheduleExpression"] = "rate(1 hour)"
		}
	}
	older, _ := json.Marshal(tpl)

	r, err := Templates("events-dev", older, full)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Functions\n",
		"  + function clicks (AppFnclicks878D99C5)\n",
		"  + clicks trigger: event source arn:${AWS::Partition}:kinesis:${AWS::Region}:${AWS::AccountId}:stream/clicks (reports batch item failures)\n",
		"  + nightly-cleanup trigger: schedule cron(0 3 * * ? *)\n",
		"  - nightly-cleanup trigger: schedule rate(1 hour)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	if n := strings.Count(text.String(), "trigger:"); n != 3 {
		t.Errorf("%d trigger lines, want 3:\n%s", n, text.String())
	}

	// Destroying every handler: each function and trigger is removed.
	r, err = Templates("events-dev", full, []byte(`{"Resources": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	var fns, trig int
	for _, c := range r.Functions {
		if c.Action != Remove {
			t.Errorf("%+v: want remove", c)
		}
		if c.Trigger == "" {
			fns++
		} else {
			trig++
		}
	}
	if fns != 8 || trig != 7 {
		t.Errorf("%d functions and %d triggers removed, want 8 and 7: %+v", fns, trig, r.Functions)
	}
	var j strings.Builder
	if err := r.WriteJSON(&j); err != nil || !strings.Contains(j.String(), `"functions": [`) {
		t.Errorf("JSON report lacks functions (%v):\n%.400s", err, j.String())
	}
}

// A trigger on a resource of the stack (a declared queue, a table's stream)
// names it as CloudFormation's Fn::Sub would, not as the template's JSON.
func TestTriggerOnStackResource(t *testing.T) {
	tpl := `{"Resources": {
 "Jobs": {"Type": "AWS::SQS::Queue"},
 "Fnwork": {"Type": "AWS::Lambda::Function", "Properties": {"Environment": {"Variables": {"FRAMEWORK_HANDLER": "work"}}}},
 "FnworkSource": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {"FunctionName": {"Ref": "Fnwork"}, "EventSourceArn": {"Fn::GetAtt": ["Jobs", "Arn"]}}}}}`
	r, err := Templates("shop-dev", nil, []byte(tpl))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "  + work trigger: event source ${Jobs.Arn}\n"; !strings.Contains(text.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, text.String())
	}
}
