package deploy

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/framework-dev/framework/internal/deploy/deploytest"
	"github.com/framework-dev/framework/internal/diff"
)

// oldCode makes the fixture's function point at another package, as if
// the deployed template held an earlier build.
func oldCode(tpl map[string]any) {
	props(tpl, "Function")["Code"].(map[string]any)["S3Key"] = "0ld.zip"
}

// hotswapPlan returns a plan of an update from the fixture template
// changed by deployed to the fixture template changed by synthesized.
func hotswapPlan(t *testing.T, deployed, synthesized func(map[string]any)) *Plan {
	t.Helper()
	old := assembly(t, deployed)
	oldTpl, err := os.ReadFile(filepath.Join(old, "hello-dev.template.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := ReadAssembly(assembly(t, synthesized), "hello-dev")
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Assembly: a, Env: Env{Account: "123456789012", Region: "us-east-1", Partition: "aws"}, Stack: &Stack{ID: "hello-dev", Name: "hello-dev", Status: "UPDATE_COMPLETE"}, Action: Update, DeployedTemplate: oldTpl}
	if p.Report, err = diff.Templates("hello-dev", oldTpl, a.Template); err != nil {
		t.Fatal(err)
	}
	if p.PolicyAdded, p.PolicyRemoved, err = policyChange(oldTpl, a.Template); err != nil {
		t.Fatal(err)
	}
	return p
}

func fixtureCodeSHA256() string {
	sum := sha256.Sum256(deploytest.Package())
	return base64.StdEncoding.EncodeToString(sum[:])
}

func TestHotswappable(t *testing.T) {
	both := func(fs ...func(map[string]any)) func(map[string]any) {
		return func(tpl map[string]any) {
			for _, f := range fs {
				f(tpl)
			}
		}
	}
	env := func(tpl map[string]any) {
		props(tpl, "Function")["Environment"].(map[string]any)["Variables"].(map[string]any)["TABLE"] = "orders"
	}
	memory := func(tpl map[string]any) { props(tpl, "Function")["MemorySize"] = 256 }
	topic := func(tpl map[string]any) { resources(tpl)["Topic"] = map[string]any{"Type": "AWS::SNS::Topic"} }
	for _, tc := range []struct {
		name                 string
		deployed, synthesize func(map[string]any)
		action               Action
		reason               string
	}{
		{name: "code only", deployed: oldCode},
		{name: "nothing changed"},
		{name: "not deployed", action: Create, reason: "stack hello-dev is not deployed yet"},
		{name: "route added", deployed: oldCode, synthesize: addRoute, reason: "a route change (+ POST /users/{name})"},
		{name: "policy widened", deployed: oldCode, synthesize: grantS3, reason: "an IAM change: the function's role gains s3:GetObject, s3:PutObject"},
		{name: "environment variable", deployed: oldCode, synthesize: env, reason: "a configuration change of Function (AWS::Lambda::Function: Environment.Variables.TABLE)"},
		{name: "memory size", synthesize: memory, reason: "a configuration change of Function (AWS::Lambda::Function: MemorySize)"},
		{name: "new resource", deployed: oldCode, synthesize: topic, reason: "a new resource Topic (AWS::SNS::Topic)"},
		{name: "code and memory", deployed: oldCode, synthesize: both(memory), reason: "a configuration change of Function (AWS::Lambda::Function: MemorySize)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := hotswapPlan(t, tc.deployed, tc.synthesize)
			if tc.action != "" {
				p.Action = tc.action
			}
			fns, reason := Hotswappable(p)
			if reason != tc.reason {
				t.Fatalf("reason %q, want %q", reason, tc.reason)
			}
			if tc.reason != "" {
				return
			}
			if len(fns) != 1 || fns[0].LogicalID != "Function" || fns[0].Bucket != "framework-assets-123456789012-us-east-1" || fns[0].Key != deploytest.AssetID+".zip" || fns[0].CodeSHA256 != fixtureCodeSHA256() {
				t.Errorf("functions %+v", fns)
			}
		})
	}
}

// lambdaStandIn answers the two Lambda calls a hotswap makes for one
// function, scripted: GetFunctionConfiguration reports code and then the
// statuses in order; UpdateFunctionCode records the S3 object and
// answers InProgress.
type lambdaStandIn struct {
	mu       sync.Mutex
	code     string
	statuses []map[string]any
	updated  []string
}

func (l *lambdaStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cfg := map[string]any{"CodeSha256": l.code, "State": "Active", "LastUpdateStatus": "Successful"}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/configuration"):
		if len(l.statuses) > 0 && len(l.updated) > 0 {
			for k, v := range l.statuses[0] {
				cfg[k] = v
			}
			l.statuses = l.statuses[1:]
		}
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/code"):
		var in struct{ S3Bucket, S3Key string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		l.updated = append(l.updated, in.S3Bucket+"/"+in.S3Key)
		cfg["LastUpdateStatus"] = "InProgress"
	default:
		http.Error(w, `{"message":"not scripted"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(cfg)
}

// hotswapEngine deploys the fixture with an earlier package through the
// stand-ins and returns an engine whose Lambda client reaches l, and the
// plan of deploying the fixture as it is.
func hotswapEngine(t *testing.T, l *lambdaStandIn) (*Engine, *Plan) {
	t.Helper()
	e, _, out := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, oldCode), Options{}); err != nil {
		t.Fatalf("deploy: %v\n%s", err, out)
	}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	cfg, err := LoadConfig(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	e.Lambda = lambda.NewFromConfig(cfg, func(o *lambda.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	p, err := e.Plan(ctx, assembly(t, nil), "hello-dev")
	if err != nil {
		t.Fatal(err)
	}
	return e, p
}

func TestHotswapWaitsAndReportsLambdasReason(t *testing.T) {
	l := &lambdaStandIn{code: "OLD", statuses: []map[string]any{
		{"LastUpdateStatus": "InProgress"},
		{"LastUpdateStatus": "Failed", "LastUpdateStatusReasonCode": "KMSKeyAccessDenied", "LastUpdateStatusReason": "Lambda was unable to decrypt the environment variables because KMS access was denied."},
	}}
	e, p := hotswapEngine(t, l)
	_, err := e.Hotswap(context.Background(), p, HotswapOptions{Deployed: map[string]DeployedCode{"Function": {CodeSHA256: "OLD"}}})
	want := regexp.MustCompile(`^the code update of function Function \(hello-dev-Function-[0-9A-F]{12}\) failed: KMSKeyAccessDenied: Lambda was unable to decrypt the environment variables because KMS access was denied\.$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if len(l.updated) != 1 || l.updated[0] != "framework-assets-123456789012-us-east-1/"+deploytest.AssetID+".zip" {
		t.Errorf("UpdateFunctionCode calls %q", l.updated)
	}
	if len(l.statuses) != 0 {
		t.Errorf("%d statuses never read: the hotswap did not wait for the update to end", len(l.statuses))
	}
}

func TestHotswapChecksTheDeployedCode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deployed map[string]DeployedCode
		force    bool
		updates  int
		err      string
	}{
		{name: "as recorded", deployed: map[string]DeployedCode{"Function": {CodeSHA256: "OLD"}}, updates: 1},
		{name: "no record", err: "hotswap not possible: this machine has no record of the code it last deployed to function Function (hello-dev-Function-"},
		{name: "changed by someone else", deployed: map[string]DeployedCode{"Function": {CodeSHA256: "MINE"}}, err: "runs code with SHA-256 OLD, not the MINE last deployed from this machine: someone else changed it"},
		{name: "changed, forced", deployed: map[string]DeployedCode{"Function": {CodeSHA256: "MINE"}}, force: true, updates: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &lambdaStandIn{code: "OLD"}
			e, p := hotswapEngine(t, l)
			res, err := e.Hotswap(context.Background(), p, HotswapOptions{Deployed: tc.deployed, Force: tc.force})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				var he *HotswapError
				if strings.HasPrefix(tc.err, "hotswap not possible") != errors.As(err, &he) {
					t.Errorf("error %v: HotswapError %v", err, errors.As(err, &he))
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(l.updated) != tc.updates {
				t.Errorf("%d UpdateFunctionCode calls, want %d", len(l.updated), tc.updates)
			}
			if tc.updates > 0 && (len(res.Updated) != 1 || res.Deployed["Function"] != DeployedCode{CodeSHA256: fixtureCodeSHA256(), Hotswapped: true}) {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	env := Env{Account: "123456789012", Region: "eu-west-1"}
	if r, err := LoadRecord(dir, env, "hello-dev"); r != nil || err != nil {
		t.Fatalf("missing record: %v, %v", r, err)
	}
	fns := map[string]DeployedCode{"Function": {CodeSHA256: "abc=", Hotswapped: true}}
	if err := SaveRecord(dir, env, "hello-dev", fns); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRecord(dir, env, "hello-dev")
	if err != nil || r.Functions["Function"] != fns["Function"] || r.Stack != "hello-dev" {
		t.Fatalf("record %+v, %v", r, err)
	}
	if r, _ := LoadRecord(dir, Env{Account: "123456789012", Region: "us-east-1"}, "hello-dev"); r != nil {
		t.Error("a record of another region was read")
	}
	os.WriteFile(filepath.Join(dir, "123456789012-eu-west-1-hello-dev.json"), []byte("{"), 0o644)
	if _, err := LoadRecord(dir, env, "hello-dev"); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("damaged record: %v", err)
	}
}
