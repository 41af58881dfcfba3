package diff

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// stageTemplate is a stage template with the API's function and the notify
// handler, each with its own role; notify's role holds the statements
// given.
func stageTemplate(t *testing.T, notify ...map[string]any) []byte {
	t.Helper()
	role := func(stmts ...map[string]any) map[string]any {
		all := []any{map[string]any{"Effect": "Allow", "Action": []any{"logs:PutLogEvents"}, "Resource": "arn:*:logs:*:*:log-group:/aws/lambda/*"}}
		for _, s := range stmts {
			all = append(all, s)
		}
		return map[string]any{"Type": "AWS::IAM::Role", "Properties": map[string]any{
			"Policies": []any{map[string]any{"PolicyName": "AppPolicy", "PolicyDocument": map[string]any{"Version": "2012-10-17", "Statement": all}}}}}
	}
	fn := func(roleID, handler string) map[string]any {
		vars := map[string]any{}
		if handler != "" {
			vars["FRAMEWORK_HANDLER"] = handler
		}
		return map[string]any{"Type": "AWS::Lambda::Function", "Properties": map[string]any{"Runtime": "provided.al2023",
			"Role": map[string]any{"Fn::GetAtt": []any{roleID, "Arn"}}, "Environment": map[string]any{"Variables": vars}}}
	}
	tpl := map[string]any{
		"Resources": map[string]any{
			"AppRole":         role(map[string]any{"Effect": "Allow", "Action": []any{"dynamodb:GetItem", "dynamodb:Query"}, "Resource": []any{map[string]any{"Fn::GetAtt": []any{"AppResLinks1", "Arn"}}}}),
			"AppFunction":     fn("AppRole", ""),
			"AppFnnotifyRole": role(notify...),
			"AppFnnotify":     fn("AppFnnotifyRole", "notify"),
			"AppResEvents1":   map[string]any{"Type": "AWS::SNS::Topic"},
			"AppResLinks1":    map[string]any{"Type": "AWS::DynamoDB::Table"},
		},
		"Outputs": map[string]any{
			"ResEventsArn": map[string]any{"Description": `ARN of the topic "events"`, "Value": map[string]any{"Ref": "AppResEvents1"}},
			"ResLinksArn":  map[string]any{"Description": `ARN of the table "links"`, "Value": map[string]any{"Fn::GetAtt": []any{"AppResLinks1", "Arn"}}},
		},
	}
	b, err := json.Marshal(tpl)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPermissionChangesPerFunction: adding events.Allow("notify") shows as
// one line naming the function, the action and the declared topic, in
// the deploy confirmation's lines and in diff's text and JSON; the other
// function's unchanged permissions are not mentioned.
func TestPermissionChangesPerFunction(t *testing.T) {
	before := stageTemplate(t)
	after := stageTemplate(t, map[string]any{"Effect": "Allow", "Action": "sns:Publish", "Resource": map[string]any{"Ref": "AppResEvents1"}})
	lines, err := PermissionChanges(before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := `function notify: + sns:Publish on topic "events"`
	if !slices.Equal(lines, []string{want}) {
		t.Errorf("PermissionChanges = %q, want [%q]", lines, want)
	}
	r, err := Templates("links-dev", before, after)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Permissions\n  "+want+"\n") || strings.Contains(text.String(), "IAM policy statements") {
		t.Errorf("diff text:\n%s\nwant the permission change by function only", text.String())
	}
	if len(r.Permissions) != 1 || r.Permissions[0].Function != "notify" || r.Permissions[0].On != `topic "events"` {
		t.Errorf("Report.Permissions = %+v", r.Permissions)
	}
	// And back: the removal.
	lines, _ = PermissionChanges(after, before)
	if !slices.Equal(lines, []string{`function notify: - sns:Publish on topic "events"`}) {
		t.Errorf("removal: %q", lines)
	}
}
