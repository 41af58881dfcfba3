package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rolesApp declares a topic, a queue and a secret; the route may read the
// secret and send to the queue, the queue's consumer publishes to the
// topic, and notify, fed by the topic, has no access of its own. EXTRA is
// where the test adds one Allow.
const rolesApp = `package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("roles")
	topic := resource.NewTopic(app, "events")
	jobs := resource.NewQueue(app, "jobs", resource.QueueSpec{})
	token := resource.NewSecret(app, "token")
	token.Allow("index")
	jobs.Allow(resource.Send, "index")
	topic.Allow("work")
	// EXTRA
	app.Route("/", func(r *framework.Request) (string, error) { return "ok", nil }, framework.Name("index"))
	app.OnSQSMessage("work", jobs.Ref(), func(ctx context.Context, ev events.SQSEvent) error { return nil })
	app.OnSNSMessage("notify", topic.Ref(), func(ctx context.Context, ev events.SNSEvent) error { return nil })
	app.Run()
}
`

// TestDeployRolePerFunction deploys an app with three functions against
// the CloudFormation stand-in: each function has a role of its own with
// its own statements only. One Allow added for one handler then shows in
// diff, and in deploy's confirmation, as that function's change alone.
func TestDeployRolePerFunction(t *testing.T) {
	fake, env := startStandins(t)
	proj := newProject(t, env, "roles")
	mainGo := filepath.Join(proj, "main.go")
	writeFile(t, mainGo, rolesApp)
	run := cliRunner(t, proj, env)

	run(0, "deploy", "--yes")
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties map[string]any
		}
	}
	if err := json.Unmarshal([]byte(fake.CFN.Template("roles-dev")), &tpl); err != nil {
		t.Fatal(err)
	}
	// A role's statements: its inline policies, and the policies of
	// its own that name it (each function's Logging policy, on its own
	// log group).
	roles := map[string]string{}
	for id, r := range tpl.Resources {
		if r.Type == "AWS::IAM::Role" && strings.Contains(id, "Role") {
			b, _ := json.Marshal(r.Properties["Policies"])
			roles[id] += string(b)
		}
	}
	for _, r := range tpl.Resources {
		if r.Type != "AWS::IAM::Policy" {
			continue
		}
		doc, _ := json.Marshal(r.Properties["PolicyDocument"])
		attached, _ := r.Properties["Roles"].([]any)
		for _, ref := range attached {
			if m, ok := ref.(map[string]any); ok {
				if id, ok := m["Ref"].(string); ok {
					roles[id] += string(doc)
				}
			}
		}
	}
	var api, notify, work string
	for id, pol := range roles {
		switch {
		case strings.HasPrefix(id, "AppRole"):
			api = pol
		case strings.HasPrefix(id, "AppFnnotifyRole"):
			notify = pol
		case strings.HasPrefix(id, "AppFnworkRole"):
			work = pol
		}
	}
	if api == "" || notify == "" || work == "" {
		t.Fatalf("roles %v: want one for the API, work and notify", roles)
	}
	for _, c := range []struct {
		who, pol  string
		has, lack []string
	}{
		{"api", api, []string{"secretsmanager:GetSecretValue", "sqs:SendMessage"}, []string{"sns:Publish", "sqs:ReceiveMessage"}},
		{"work", work, []string{"sns:Publish", "sqs:ReceiveMessage"}, []string{"secretsmanager:GetSecretValue", "sqs:SendMessage"}},
		{"notify", notify, []string{"logs:PutLogEvents"}, []string{"sns:Publish", "secretsmanager:GetSecretValue", "sqs:"}},
	} {
		for _, a := range c.has {
			if !strings.Contains(c.pol, a) {
				t.Errorf("%s's role lacks %s: %s", c.who, a, c.pol)
			}
		}
		for _, a := range c.lack {
			if strings.Contains(c.pol, a) {
				t.Errorf("%s's role has %s, which it does not declare: %s", c.who, a, c.pol)
			}
		}
	}

	// One Allow more: notify may publish to the topic.
	src, err := os.ReadFile(mainGo)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, mainGo, strings.Replace(string(src), "// EXTRA", `topic.Allow("notify")`, 1))
	want := `function notify: + sns:Publish on topic "events"`
	out := run(0, "diff")
	if !strings.Contains(out, "Permissions\n  "+want+"\n") {
		t.Errorf("diff lacks the change of notify's permissions %q:\n%s", want, out)
	}
	if strings.Contains(out, "function api:") || strings.Contains(out, "function work:") {
		t.Errorf("diff shows a permission change of a function the edit does not touch:\n%s", out)
	}
	out = run(0, "deploy", "--yes")
	if !strings.Contains(out, want) {
		t.Errorf("deploy's confirmation lacks %q:\n%s", want, out)
	}
}
