package test

import (
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/framework-dev/framework/internal/cfnstandin"
)

// TestDeployCustomDomainStage deploys a stage with a custom domain (with
// its alias record) and a log retention through the built CLI, against
// the CloudFormation stand-in and the S3 fake: deploy and url print both
// URLs, the stack owns the function's log group, and destroy deletes it.
func TestDeployCustomDomainStage(t *testing.T) {
	fake, env := startStandins(t)
	var mu sync.Mutex
	created, deleted := map[string]string{}, map[string]string{} // type → physical ID
	prevCreate := fake.CFN.OnCreate
	fake.CFN.OnCreate = func(r cfnstandin.Resource) error {
		mu.Lock()
		created[r.Type] = r.PhysicalID
		mu.Unlock()
		return prevCreate(r)
	}
	fake.CFN.OnDelete = func(r cfnstandin.Resource) {
		mu.Lock()
		deleted[r.Type] = r.PhysicalID
		mu.Unlock()
	}
	proj := newProject(t, env, "shop")
	run := cliRunner(t, proj, env)
	setStage(t, proj, "prod", map[string]any{
		"log_retention_in_days": 30,
		"api_gateway_custom_domain": map[string]any{
			"domain_name":     "api.example.com",
			"certificate_arn": "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-123456789abc",
			"base_path":       "v1",
			"hosted_zone_id":  "Z0123456789ABCDEFGHIJ",
		},
	})

	out := run(0, "deploy", "--stage", "prod")
	api := regexp.MustCompile(`(?m)^Rest API URL: (https://[a-z0-9]{10}\.execute-api\.us-east-1\.amazonaws\.com/prod/)$`).FindStringSubmatch(out)
	if api == nil || !strings.Contains(out, "\nCustom domain URL: https://api.example.com/v1/\n") {
		t.Fatalf("deploy did not print both URLs:\n%s", out)
	}
	if got, want := run(0, "url", "--stage", "prod"), "https://api.example.com/v1/\n"+api[1]+"\n"; got != want {
		t.Errorf("url printed %q, want %q", got, want)
	}

	tpl := fake.CFN.Template("shop-prod")
	for _, want := range []string{`"AWS::Logs::LogGroup"`, `"RetentionInDays":30`, `"AWS::ApiGateway::DomainName"`, `"AWS::ApiGateway::BasePathMapping"`, `"AWS::Route53::RecordSet"`} {
		if !strings.Contains(tpl, want) {
			t.Errorf("deployed template lacks %s", want)
		}
	}
	mu.Lock()
	group, fn := created["AWS::Logs::LogGroup"], created["AWS::Lambda::Function"]
	record := created["AWS::Route53::RecordSet"]
	mu.Unlock()
	if fn == "" || group != "/aws/lambda/"+fn || record != "api.example.com" {
		t.Errorf("created log group %q for function %q, record %q", group, fn, record)
	}

	out = run(0, "destroy", "--stage", "prod", "--yes")
	if !strings.Contains(out, "Deleted stage prod (stack shop-prod).") {
		t.Errorf("destroy:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if deleted["AWS::Logs::LogGroup"] != group || deleted["AWS::ApiGateway::DomainName"] != "api.example.com" {
		t.Errorf("destroy deleted %v; want the log group %s and the domain", deleted, group)
	}
}
