package localiam

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/perms"
)

// The policies perms computes, with the ARNs the emulator gave the
// declared resources, allow what is declared and nothing else, and a
// refusal names the Allow that would grant it: the narrowest access, for
// the handler (the route handlers named when the API's function serves
// several).
func TestFromPerms(t *testing.T) {
	m := &manifest.Manifest{App: "a",
		Resources: []manifest.Resource{
			{Name: "notes", Kind: manifest.ResourceTable, PartitionKey: &manifest.KeyAttr{Name: "id", Type: "S"}},
			{Name: "jobs", Kind: manifest.ResourceQueue},
			{Name: "events", Kind: manifest.ResourceTopic},
			{Name: "files", Kind: manifest.ResourceBucket},
			{Name: "token", Kind: manifest.ResourceSecret},
		},
		Routes: []manifest.Route{
			{Path: "/notes/{id}", Methods: []string{"GET"}, Handler: "read", Grants: []manifest.Grant{{Resource: "notes", Access: manifest.AccessRead}}},
			{Path: "/notes/{id}", Methods: []string{"DELETE"}, Handler: "remove"},
		},
		Functions: []manifest.Function{{Name: "work", Kind: manifest.KindSQS, SourceResource: "jobs",
			Grants: []manifest.Grant{{Resource: "files", Access: manifest.AccessRead}, {Resource: "token", Access: manifest.AccessRead}}}},
	}
	const acct = "123456789012"
	attrs := map[string]map[string]string{
		"notes":  {manifest.AttrName: "a-dev-notes", manifest.AttrARN: "arn:aws:dynamodb:us-east-1:" + acct + ":table/a-dev-notes"},
		"jobs":   {manifest.AttrName: "a-dev-jobs", manifest.AttrARN: "arn:aws:sqs:us-east-1:" + acct + ":a-dev-jobs"},
		"events": {manifest.AttrName: "a-dev-events", manifest.AttrARN: "arn:aws:sns:us-east-1:" + acct + ":a-dev-events"},
		"files":  {manifest.AttrName: "a-dev-files", manifest.AttrARN: "arn:aws:s3:::a-dev-files"},
		"token":  {manifest.AttrName: "a-dev-token", manifest.AttrARN: "arn:aws:secretsmanager:us-east-1:" + acct + ":secret:a-dev-token-AbC123"},
	}
	pols, err := perms.Compute(perms.Input{Manifest: m})
	if err != nil {
		t.Fatal(err)
	}
	d := FromPerms(pols, m, attrs)
	table := attrs["notes"][manifest.AttrARN]
	for _, tc := range []struct {
		fn, action, resource string
		want                 bool
	}{
		{"api", "dynamodb:GetItem", table, true},
		{"api", "dynamodb:Query", table + "/index/byUser", true},
		{"api", "dynamodb:DeleteItem", table, false},
		{"work", "dynamodb:GetItem", table, false},
		{"work", "sqs:ReceiveMessage", attrs["jobs"][manifest.AttrARN], true},
		{"work", "sqs:SendMessage", attrs["jobs"][manifest.AttrARN], false},
		{"work", "s3:GetObject", "arn:aws:s3:::a-dev-files/in/x.csv", true},
		{"work", "s3:PutObject", "arn:aws:s3:::a-dev-files/in/x.csv", false},
		{"work", "secretsmanager:GetSecretValue", attrs["token"][manifest.AttrARN], true},
		{"api", "secretsmanager:GetSecretValue", attrs["token"][manifest.AttrARN], false},
		{"work", "logs:PutLogEvents", "arn:aws:logs:us-east-1:" + acct + ":log-group:/aws/lambda/a-dev-work:log-stream:x", true},
		{"api", "logs:PutLogEvents", "arn:aws:logs:us-east-1:" + acct + ":log-group:/aws/lambda/a-dev-work:log-stream:x", false},
	} {
		allowed, known := d.Allows(tc.fn, tc.action, tc.resource)
		if allowed != tc.want || !known {
			t.Errorf("function %s, %s on %s: allowed %v (known %v), want %v", tc.fn, tc.action, tc.resource, allowed, known, tc.want)
		}
	}
	if _, known := d.Allows("nobody", "s3:GetObject", "*"); known {
		t.Error("a function the app does not have is known")
	}
	for _, tc := range []struct {
		fn   string
		ch   Check
		want string
	}{
		{"api", Check{"dynamodb:DeleteItem", table}, `declare notes.Allow(resource.Write, "HANDLER") on table "notes" with HANDLER the route handler making the call (read, remove)`},
		{"work", Check{"s3:PutObject", "arn:aws:s3:::a-dev-files/in/x.csv"}, `declare files.Allow(resource.Write, "work") on bucket "files"`},
		{"work", Check{"sns:Publish", attrs["events"][manifest.AttrARN]}, `declare events.Allow("work") on topic "events"`},
		{"api", Check{"secretsmanager:GetSecretValue", attrs["token"][manifest.AttrARN]}, `token.Allow("HANDLER")`},
		{"work", Check{"dynamodb:DeleteTable", table}, `no access declared on table "notes" grants dynamodb:DeleteTable`},
		{"work", Check{"dynamodb:GetItem", "arn:aws:dynamodb:us-east-1:" + acct + ":table/other"}, "not a resource the app declares"},
	} {
		if got := d.Hint(tc.fn, tc.ch); !strings.Contains(got, tc.want) {
			t.Errorf("Hint(%s, %v) = %q, want it to hold %q", tc.fn, tc.ch, got, tc.want)
		}
	}
	e := d.Env("us-east-1")
	if e.Account != acct || e.SecretARNs["a-dev-token"] != attrs["token"][manifest.AttrARN] {
		t.Errorf("Env %+v, want the account and the secret's ARN by name", e)
	}
}
