package policy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

func call(pkg, op string) Call {
	return Call{Package: sdkServicePrefix + pkg, Operation: op, Actions: OperationActions(sdkServicePrefix+pkg, op)}
}

// TestNarrow: the calls of a service whose declared resources the app
// has are granted on them only; account-level actions, other packages'
// calls and services with no declared resource keep "*", and so does a
// service the app also names outside (a handler's source), each said.
func TestNarrow(t *testing.T) {
	calls := []Call{
		call("dynamodb", "GetItem"), call("dynamodb", "Query"), call("dynamodb", "ListTables"),
		call("s3", "GetObject"), call("s3", "ListObjectsV2"), call("s3control", "ListJobs"),
		call("sqs", "SendMessage"), call("sns", "Publish"), call("ssm", "GetParameter"), call("ssm", "SendCommand"),
		call("secretsmanager", "GetSecretValue"), call("lambda", "Invoke"),
	}
	m := &manifest.Manifest{App: "a", Resources: []manifest.Resource{
		{Name: "todos", Kind: manifest.ResourceTable}, {Name: "notes", Kind: manifest.ResourceTable},
		{Name: "files", Kind: manifest.ResourceBucket}, {Name: "jobs", Kind: manifest.ResourceQueue},
		{Name: "conf", Kind: manifest.ResourceParameter}, {Name: "key", Kind: manifest.ResourceSecret}, {Name: "news", Kind: manifest.ResourceTopic},
	}, Functions: []manifest.Function{{Name: "feed", Kind: manifest.KindSNS, Source: "news"}}}
	doc, unscoped := Narrow(calls, m)
	got := map[string][2][]string{}
	for _, s := range doc.Statement {
		got[s.Sid] = [2][]string{s.Action, s.Resource}
	}
	want := map[string][2][]string{
		"AllowDynamodbDeclared": {{"dynamodb:GetItem", "dynamodb:Query"},
			{"${resource:notes}", "${resource:notes}/index/*", "${resource:todos}", "${resource:todos}/index/*"}},
		"AllowDynamodb":               {{"dynamodb:ListTables"}, {"*"}},
		"AllowS3Declared":             {{"s3:GetObject", "s3:ListBucket"}, {"${resource:files}", "${resource:files}/*"}},
		"AllowS3":                     {{"s3:ListJobs"}, {"*"}},
		"AllowSqsDeclared":            {{"sqs:SendMessage"}, {"${resource:jobs}"}},
		"AllowSns":                    {{"sns:Publish"}, {"*"}},
		"AllowSsmDeclared":            {{"ssm:GetParameter"}, {"${resource:conf}"}},
		"AllowSsm":                    {{"ssm:SendCommand"}, {"*"}},
		"AllowSecretsmanagerDeclared": {{"secretsmanager:GetSecretValue"}, {"${resource:key}"}},
		"AllowLambda":                 {{"lambda:InvokeFunction"}, {"*"}},
	}
	for sid, w := range want {
		if !reflect.DeepEqual(got[sid], w) {
			t.Errorf("%s = %v, want %v", sid, got[sid], w)
		}
	}
	why := map[string]string{}
	for _, u := range unscoped {
		why[u.Action] = u.Why
	}
	for a, part := range map[string]string{"dynamodb:ListTables": "targets no table", "s3:ListJobs": "another SDK package",
		"ssm:SendCommand": "targets no parameter", "sns:Publish": `sns handler "feed" names an sns resource outside the app`} {
		if !strings.Contains(why[a], part) {
			t.Errorf("%s kept * because %q, want %q", a, why[a], part)
		}
	}
	if _, ok := why["lambda:InvokeFunction"]; ok || len(unscoped) != 4 {
		t.Errorf("unscoped %v, want the four above only (lambda has no declared kind)", unscoped)
	}
	if refs := ResourceRefs(doc); strings.Join(refs, ",") != "conf,files,jobs,key,notes,todos" {
		t.Errorf("refs %v", refs)
	}
	// No declared resources: the policy FromCalls makes.
	if plain, u := Narrow(calls, &manifest.Manifest{App: "a"}); !reflect.DeepEqual(plain, FromCalls(calls)) || u != nil {
		t.Error("without declared resources Narrow changed the policy")
	}
	if _, err := ReplaceResourceRefs("${resource:gone}/*", func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), `declares no resource "gone"`) {
		t.Errorf("unknown reference: %v", err)
	}
}

// TestNarrowHandleCalls: a resource handle's own call (Secret.Value) is
// the service's call: it is granted on the declared secrets, not "*".
func TestNarrowHandleCalls(t *testing.T) {
	m := &manifest.Manifest{Resources: []manifest.Resource{{Name: "token", Kind: manifest.ResourceSecret}}}
	doc, unscoped := Narrow([]Call{{Package: HandlePackage, Operation: "Secret.Value", Via: "handle", Actions: []string{"secretsmanager:GetSecretValue"}}}, m)
	if len(unscoped) != 0 {
		t.Errorf("unscoped %v", unscoped)
	}
	if last := doc.Statement[len(doc.Statement)-1]; last.Resource[0] != ResourceRef("token") {
		t.Errorf("statement %+v, want the declared secret", last)
	}
}
