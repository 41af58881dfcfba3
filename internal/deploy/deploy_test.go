package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/framework-dev/framework/internal/cfnstandin"
	"github.com/framework-dev/framework/internal/deploy/deploytest"
	"github.com/framework-dev/framework/internal/diff"
	"github.com/framework-dev/framework/internal/names"
)

const fixtureAsset = deploytest.AssetID

// newEngine starts the AWS stand-ins and returns an engine reaching them
// through the SDK's default configuration chain, polling fast, with SDK
// retries backing off briefly.
func newEngine(t *testing.T) (*Engine, *cfnstandin.AWS, *bytes.Buffer) {
	t.Helper()
	aws_ := cfnstandin.Start(t)
	cfg, err := LoadConfig(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) { o.MaxBackoff = 5 * time.Millisecond })
	}
	var out bytes.Buffer
	e := New(cfg, &out)
	e.PollInterval = time.Millisecond
	return e, aws_, &out
}

// deployAssembly plans the deploy of stack hello-dev from the cloud
// assembly in dir and executes the plan.
func deployAssembly(ctx context.Context, e *Engine, dir string, o Options) (*Result, error) {
	p, err := e.Plan(ctx, dir, "hello-dev")
	if err != nil {
		return nil, err
	}
	return e.Deploy(ctx, p, o)
}

// diffAssembly plans the deploy of stack hello-dev from the cloud assembly
// in dir and returns the plan's report with CloudFormation's replacement
// answers.
func diffAssembly(ctx context.Context, e *Engine, dir string) (*diff.Report, error) {
	p, err := e.Plan(ctx, dir, "hello-dev")
	if err != nil {
		return nil, err
	}
	return e.Diff(ctx, p)
}

// assembly copies the fixture assembly into a temporary directory and
// applies mutate to its template.
func assembly(t *testing.T, mutate func(tpl map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	if err := deploytest.Assembly(dir, mutate); err != nil {
		t.Fatal(err)
	}
	return dir
}

func resources(tpl map[string]any) map[string]any { return tpl["Resources"].(map[string]any) }

func props(tpl map[string]any, id string) map[string]any {
	return resources(tpl)[id].(map[string]any)["Properties"].(map[string]any)
}

func paths(tpl map[string]any) map[string]any {
	return props(tpl, "RestApi")["Body"].(map[string]any)["paths"].(map[string]any)
}

// addRoute adds POST /users/{name} to the API.
func addRoute(tpl map[string]any) {
	get := paths(tpl)["/"].(map[string]any)["get"]
	paths(tpl)["/users/{name}"] = map[string]any{"post": get}
}

// grantS3 adds a statement granting s3:GetObject and s3:PutObject.
func grantS3(tpl map[string]any) {
	pol := props(tpl, "FunctionRole")["Policies"].([]any)[0].(map[string]any)["PolicyDocument"].(map[string]any)
	pol["Statement"] = append(pol["Statement"].([]any), map[string]any{
		"Sid": "S3", "Effect": "Allow", "Action": []any{"s3:GetObject", "s3:PutObject"}, "Resource": "*",
	})
}

var endpointRE = regexp.MustCompile(`^https://[a-z0-9]{10}\.execute-api\.us-east-1\.amazonaws\.com/dev/$`)

func TestDeployFirstNoChangeAndUpdate(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	dir := assembly(t, nil)

	res, err := deployAssembly(ctx, e, dir, Options{})
	if err != nil {
		t.Fatalf("first deploy: %v\n%s", err, out)
	}
	t.Logf("first deploy output:\n%s", out)
	if !res.FirstDeploy || res.Status != "CREATE_COMPLETE" {
		t.Errorf("first deploy: FirstDeploy %v, status %s", res.FirstDeploy, res.Status)
	}
	if !endpointRE.MatchString(res.Outputs["EndpointURL"]) {
		t.Errorf("EndpointURL = %q", res.Outputs["EndpointURL"])
	}
	wantContains(t, "output", out.String(),
		"First deployment to account 123456789012 in us-east-1: creating stack FrameworkAssets with the S3 bucket framework-assets-123456789012-us-east-1",
		"Uploading hello-dev/Api/Function/Code (149 B) to s3://framework-assets-123456789012-us-east-1/"+fixtureAsset+".zip",
		"Initiating first time deployment...",
		"CREATE_COMPLETE        AWS::Lambda::Function Function",
		"[6/6 ")
	obj, err := fake.S3.GetObject("framework-assets-123456789012-us-east-1", fixtureAsset+".zip", nil)
	if err != nil {
		t.Fatalf("asset not in S3: %v", err)
	}
	got, _ := io.ReadAll(obj.Contents)
	want, _ := os.ReadFile(filepath.Join(dir, "asset."+fixtureAsset+".zip"))
	if !bytes.Equal(got, want) {
		t.Errorf("uploaded asset differs from the file (%d vs %d bytes)", len(got), len(want))
	}
	if s := fake.CFN.Status(names.AssetsStackName); s != "CREATE_COMPLETE" {
		t.Errorf("assets stack is %q", s)
	}

	// Second deploy of the same assembly: nothing to do.
	out.Reset()
	creates := fake.CFN.Calls("CreateChangeSet")
	res2, err := deployAssembly(ctx, e, dir, Options{})
	if err != nil {
		t.Fatalf("second deploy: %v\n%s", err, out)
	}
	t.Logf("no-change deploy output:\n%s", out)
	if !res2.NoChanges || res2.FirstDeploy {
		t.Errorf("second deploy: NoChanges %v FirstDeploy %v", res2.NoChanges, res2.FirstDeploy)
	}
	if res2.Outputs["EndpointURL"] != res.Outputs["EndpointURL"] {
		t.Errorf("EndpointURL changed: %q → %q", res.Outputs["EndpointURL"], res2.Outputs["EndpointURL"])
	}
	if strings.Contains(out.String(), "Uploading") || strings.Contains(out.String(), "First deployment") || strings.Contains(out.String(), "Initiating") {
		t.Errorf("second deploy uploaded, bootstrapped or announced a first deployment:\n%s", out)
	}
	if n := fake.CFN.Calls("CreateChangeSet") - creates; n != 1 {
		t.Errorf("second deploy created %d change sets, want 1", n)
	}
	if n := fake.CFN.ChangeSetCount(); n != 0 {
		t.Errorf("%d change sets left behind", n)
	}

	// Third deploy: a new route and a wider policy, confirmed.
	out.Reset()
	var asked [][]string
	dir3 := assembly(t, func(tpl map[string]any) { addRoute(tpl); grantS3(tpl) })
	res3, err := deployAssembly(ctx, e, dir3, Options{ConfirmPolicy: func(c PolicyChange) (bool, error) {
		added, removed := c.Added, c.Removed
		asked = append(asked, added, removed)
		return true, nil
	}})
	if err != nil {
		t.Fatalf("third deploy: %v\n%s", err, out)
	}
	if res3.Status != "UPDATE_COMPLETE" {
		t.Errorf("third deploy status %s", res3.Status)
	}
	if len(asked) != 2 || strings.Join(asked[0], ",") != "s3:GetObject,s3:PutObject" || len(asked[1]) != 0 {
		t.Errorf("policy confirmation asked with %q, want added s3:GetObject,s3:PutObject and nothing removed", asked)
	}
	if !strings.Contains(fake.CFN.Template("hello-dev"), "/users/{name}") {
		t.Error("deployed template lacks the new route")
	}
}

func TestDeployCreateFailureThenRecreate(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	dir := assembly(t, nil)
	fake.CFN.FailResource("Function", "Resource handler returned message: \"Error occurred while GetObject. S3 Error Code: NoSuchKey\"")
	_, err := deployAssembly(ctx, e, dir, Options{})
	t.Logf("failed deploy output:\n%s", out)
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("err = %v, want ErrFailed", err)
	}
	wantContains(t, "output", out.String(),
		"Failed resources of stack hello-dev:",
		"Function (AWS::Lambda::Function) CREATE_FAILED: Resource handler returned message: \"Error occurred while GetObject. S3 Error Code: NoSuchKey\"",
		"ROLLBACK_COMPLETE",
		"deletes it and creates it again")
	if s := fake.CFN.Status("hello-dev"); s != "ROLLBACK_COMPLETE" {
		t.Fatalf("stack is %s, want ROLLBACK_COMPLETE", s)
	}

	out.Reset()
	res, err := deployAssembly(ctx, e, dir, Options{})
	if err != nil {
		t.Fatalf("deploy after rollback: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "Stack hello-dev is ROLLBACK_COMPLETE: its first deployment failed and left no resources. Deleting it to create it again.") ||
		!strings.Contains(out.String(), "Initiating first time deployment...") {
		t.Errorf("output:\n%s", out)
	}
	if res.Status != "CREATE_COMPLETE" || !endpointRE.MatchString(res.Outputs["EndpointURL"]) {
		t.Errorf("status %s, outputs %v", res.Status, res.Outputs)
	}
}

func TestDeployUpdateFailureRollsBack(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	before := fake.CFN.Template("hello-dev")
	out.Reset()
	fake.CFN.FailResource("Function", "Resource handler returned message: \"Memory size 99 is not valid\"")
	dir := assembly(t, func(tpl map[string]any) { props(tpl, "Function")["MemorySize"] = 99 })
	_, err := deployAssembly(ctx, e, dir, Options{})
	t.Logf("failed update output:\n%s", out)
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "UPDATE_ROLLBACK_COMPLETE") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(out.String(), "Function (AWS::Lambda::Function) UPDATE_FAILED: Resource handler returned message: \"Memory size 99 is not valid\"") ||
		!strings.Contains(out.String(), "as it was before this deploy") {
		t.Errorf("output:\n%s", out)
	}
	if fake.CFN.Status("hello-dev") != "UPDATE_ROLLBACK_COMPLETE" || fake.CFN.Template("hello-dev") != before {
		t.Errorf("stack %s, template restored: %v", fake.CFN.Status("hello-dev"), fake.CFN.Template("hello-dev") == before)
	}
	// The stack can be deployed again after a rolled back update.
	out.Reset()
	if _, err := deployAssembly(ctx, e, assembly(t, func(tpl map[string]any) { props(tpl, "Function")["MemorySize"] = 256 }), Options{}); err != nil {
		t.Fatalf("deploy after rollback: %v\n%s", err, out)
	}
}

func TestDeployRefusesStackStates(t *testing.T) {
	for _, tc := range []struct{ status, want string }{
		{"UPDATE_IN_PROGRESS", "stack hello-dev is UPDATE_IN_PROGRESS: another operation is running on it"},
		{"DELETE_IN_PROGRESS", "stack hello-dev is DELETE_IN_PROGRESS"},
		{"UPDATE_ROLLBACK_FAILED", "aws cloudformation continue-update-rollback --stack-name hello-dev --region us-east-1"},
		{"DELETE_FAILED", "delete it with `framework destroy`"},
	} {
		t.Run(tc.status, func(t *testing.T) {
			e, fake, _ := newEngine(t)
			fake.CFN.SetStatus("hello-dev", tc.status)
			_, err := deployAssembly(context.Background(), e, assembly(t, nil), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if fake.CFN.Calls("CreateChangeSet") != 0 {
				t.Error("a change set was created for a stack in a state that cannot be deployed")
			}
		})
	}
}

func TestDeployPolicyDeclined(t *testing.T) {
	e, fake, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	before := fake.CFN.Template("hello-dev")
	executed := false
	_, err := deployAssembly(ctx, e, assembly(t, grantS3), Options{
		ConfirmPolicy: func(PolicyChange) (bool, error) { return false, nil },
		BeforeExecute: func() error { executed = true; return nil },
	})
	if !errors.Is(err, ErrDeclined) {
		t.Fatalf("err = %v, want ErrDeclined", err)
	}
	if executed || fake.CFN.Template("hello-dev") != before || fake.CFN.ChangeSetCount() != 0 {
		t.Error("a declined policy change still changed something")
	}
}

func TestDeployLargeTemplateGoesThroughS3(t *testing.T) {
	e, fake, out := newEngine(t)
	dir := assembly(t, func(tpl map[string]any) {
		tpl["Description"] = strings.Repeat("a large template ", 4000)
	})
	res, err := deployAssembly(context.Background(), e, dir, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Status != "CREATE_COMPLETE" || !strings.Contains(fake.CFN.Template("hello-dev"), "a large template") {
		t.Errorf("status %s", res.Status)
	}
}

func TestDeployRetriesThrottling(t *testing.T) {
	e, fake, out := newEngine(t)
	for _, a := range []string{"DescribeStacks", "CreateChangeSet", "DescribeStackEvents", "GetCallerIdentity"} {
		fake.CFN.Throttle(a, 2)
	}
	if _, err := deployAssembly(context.Background(), e, assembly(t, nil), Options{}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Two throttled answers plus the one that went through.
	if n := fake.CFN.Calls("GetCallerIdentity"); n != 3 {
		t.Errorf("GetCallerIdentity called %d times, want 3 (2 throttled, then retried)", n)
	}
}

func TestDeployInterruptedWhileWaiting(t *testing.T) {
	e, fake, out := newEngine(t)
	fake.CFN.Hold("hello-dev")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.PollInterval = 20 * time.Millisecond
	go func() {
		for fake.CFN.Status("hello-dev") != "CREATE_IN_PROGRESS" {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := deployAssembly(ctx, e, assembly(t, nil), Options{})
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want *InterruptedError\n%s", err, out)
	}
	wantContains(t, "error", err.Error(), "stopped waiting for stack hello-dev (CREATE_IN_PROGRESS)", "CloudFormation goes on", "aws cloudformation describe-stack-events --stack-name hello-dev --region us-east-1")
	if fake.CFN.Status("hello-dev") != "CREATE_IN_PROGRESS" {
		t.Errorf("stack is %s", fake.CFN.Status("hello-dev"))
	}
}

func TestDestroy(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	if found, err := e.Destroy(ctx, "hello-dev", nil); err != nil || found {
		t.Fatalf("destroy of nothing: found %v, err %v", found, err)
	}
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Destroy(ctx, "hello-dev", func(*Stack) (bool, error) { return false, nil }); !errors.Is(err, ErrDeclined) {
		t.Fatalf("declined destroy: %v", err)
	}
	if fake.CFN.Status("hello-dev") != "CREATE_COMPLETE" {
		t.Fatal("declined destroy deleted the stack")
	}
	out.Reset()
	found, err := e.Destroy(ctx, "hello-dev", func(st *Stack) (bool, error) { return st.Status == "CREATE_COMPLETE", nil })
	if err != nil || !found {
		t.Fatalf("destroy: found %v, err %v\n%s", found, err, out)
	}
	t.Logf("destroy output:\n%s", out)
	if s := fake.CFN.Status("hello-dev"); s != "" {
		t.Errorf("stack still there: %s", s)
	}
	if !strings.Contains(out.String(), "DELETE_COMPLETE        AWS::Lambda::Function Function") {
		t.Errorf("output:\n%s", out)
	}
	st, err := e.DescribeStack(ctx, "hello-dev")
	if err != nil || st != nil {
		t.Errorf("after destroy DescribeStack = %v, %v", st, err)
	}
}

func TestEngineDiff(t *testing.T) {
	e, fake, _ := newEngine(t)
	ctx := context.Background()
	r, err := diffAssembly(ctx, e, assembly(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Deployed || len(r.Resources) != 6 || r.Resources[0].Action != diff.Add {
		t.Fatalf("diff of an undeployed stack: %+v", r)
	}
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	before := fake.CFN.Template("hello-dev")
	r, err = diffAssembly(ctx, e, assembly(t, func(tpl map[string]any) {
		addRoute(tpl)
		grantS3(tpl)
		props(tpl, "FunctionRole")["RoleName"] = "hello-dev-role"
	}))
	if err != nil {
		t.Fatal(err)
	}
	repl := map[string]string{}
	for _, c := range r.Resources {
		repl[c.LogicalID] = c.Replacement
	}
	if repl["FunctionRole"] != "True" || repl["RestApi"] != "False" {
		t.Errorf("replacement = %v, want FunctionRole True and RestApi False", repl)
	}
	if len(r.Routes) != 1 || r.Routes[0].Method != "POST" || r.Routes[0].Path != "/users/{name}" {
		t.Errorf("routes = %+v", r.Routes)
	}
	if len(r.IAM) != 1 || r.IAM[0].Action != diff.Add || r.IAM[0].Resource != "FunctionRole" || !strings.Contains(string(r.IAM[0].Statement), `"s3:GetObject","s3:PutObject"`) {
		t.Errorf("iam = %+v, want the one S3 statement added", r.IAM)
	}
	if fake.CFN.Template("hello-dev") != before || fake.CFN.ChangeSetCount() != 0 || fake.CFN.Status("hello-dev") != "CREATE_COMPLETE" {
		t.Error("diff changed the stack or left a change set")
	}
}

func TestCapabilities(t *testing.T) {
	for _, tc := range []struct{ tpl, want string }{
		{`{"Resources":{"B":{"Type":"AWS::S3::Bucket"}}}`, ""},
		{`{"Resources":{"R":{"Type":"AWS::IAM::Role","Properties":{}}}}`, "CAPABILITY_IAM"},
		{`{"Resources":{"R":{"Type":"AWS::IAM::Role","Properties":{"RoleName":"x"}}}}`, "CAPABILITY_NAMED_IAM"},
		{`{"Transform":"AWS::Serverless-2016-10-31","Resources":{"B":{"Type":"AWS::S3::Bucket"}}}`, "CAPABILITY_AUTO_EXPAND"},
	} {
		caps, err := Capabilities([]byte(tc.tpl))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range caps {
			got = append(got, string(c))
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("Capabilities(%s) = %v, want %s", tc.tpl, got, tc.want)
		}
	}
}

func TestReadAssembly(t *testing.T) {
	dir := assembly(t, nil)
	a, err := ReadAssembly(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.StackName != "hello-dev" || len(a.Files) != 2 || a.Tags["framework:stage"] != "dev" {
		t.Errorf("assembly = %+v", a)
	}
	env := Env{Account: "111122223333", Region: "eu-west-1", Partition: "aws"}
	var keys []string
	for _, f := range a.Files {
		keys = append(keys, env.Resolve(f.Destinations[0].Bucket)+"/"+f.Destinations[0].Key)
	}
	if !strings.Contains(strings.Join(keys, " "), "framework-assets-111122223333-eu-west-1/"+fixtureAsset+".zip") {
		t.Errorf("destinations = %v", keys)
	}
	if _, err := ReadAssembly(dir, "other-dev"); err == nil || !strings.Contains(err.Error(), `no stack "other-dev"`) {
		t.Errorf("unknown stack: %v", err)
	}
	if _, err := ReadAssembly(t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "run `framework synth` first") {
		t.Errorf("missing manifest: %v", err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	cfnstandin.Start(t)
	t.Setenv("AWS_REGION", "")
	if _, err := LoadConfig(context.Background(), "", ""); err == nil || !strings.Contains(err.Error(), "no AWS region: set AWS_REGION, pass --region") {
		t.Errorf("no region: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	if _, err := LoadConfig(context.Background(), "", "eu-west-1"); err == nil || !strings.Contains(err.Error(), "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
		t.Errorf("no credentials: %v", err)
	}
	if _, err := LoadConfig(context.Background(), "nosuch", "eu-west-1"); err == nil || !strings.Contains(err.Error(), `profile "nosuch"`) {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestPartition(t *testing.T) {
	for region, want := range map[string]string{"us-east-1": "aws", "cn-north-1": "aws-cn", "us-gov-west-1": "aws-us-gov"} {
		if got := partitionOf(region); got != want {
			t.Errorf("partitionOf(%s) = %s, want %s", region, got, want)
		}
	}
}

func TestTerminalProgressIsOneLine(t *testing.T) {
	e, _, out := newEngine(t)
	e.Terminal = true
	if _, err := deployAssembly(context.Background(), e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "\r\x1b[K  hello-dev: 6/6 resources, 0:00 elapsed") || !strings.Contains(s, "\r\x1b[K  hello-dev: 1/6 resources") {
		t.Errorf("no rewritten status line with resources done of total and elapsed time:\n%q", s)
	}
	if strings.Contains(s, "CREATE_COMPLETE        AWS::Lambda::Function") {
		t.Errorf("per-event lines on a terminal:\n%q", s)
	}
}

func TestAWSHost(t *testing.T) {
	for endpoint, want := range map[string]bool{
		"https://s3.us-east-1.amazonaws.com":      true,
		"https://s3-fips.us-east-1.amazonaws.com": true,
		"https://s3.cn-north-1.amazonaws.com.cn":  true,
		"http://127.0.0.1:9000":                   false,
		"http://localhost:4566":                   false,
		"https://minio.internal:9000":             false,
	} {
		if got := awsHost(endpoint); got != want {
			t.Errorf("awsHost(%s) = %v, want %v", endpoint, got, want)
		}
	}
}

// TestPollingKeepsConnectionsWhole polls as a deploy does, without SDK
// retries: every answer must arrive whole. Without bufferedBodies,
// net/http tore connections down in the middle of a response within a few
// hundred calls against the stand-in.
func TestPollingKeepsConnectionsWhole(t *testing.T) {
	e, _, _ := newEngine(t)
	ctx := context.Background()
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	once := func(o *cloudformation.Options) { o.RetryMaxAttempts = 1 }
	for i := 0; i < 300; i++ {
		if _, err := e.CFN.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String("hello-dev")}, once); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if _, err := e.CFN.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String("hello-dev")}, once); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAssetsBucketFailureThenRecreate(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	fake.CFN.FailResource("AssetsBucket", "Resource handler returned message: \"framework-assets-123456789012-us-east-1 already exists\"")
	_, err := deployAssembly(ctx, e, assembly(t, nil), Options{})
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "creating the assets bucket framework-assets-123456789012-us-east-1 (stack FrameworkAssets) failed") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(out.String(), "AssetsBucket (AWS::S3::Bucket) CREATE_FAILED: Resource handler returned message: \"framework-assets-123456789012-us-east-1 already exists\"") {
		t.Errorf("output:\n%s", out)
	}
	if fake.CFN.Status("hello-dev") != "" {
		t.Error("the app stack was created although the assets bucket was not")
	}
	out.Reset()
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "Stack FrameworkAssets (the assets bucket) failed to be created before: deleting it to create it again.") {
		t.Errorf("output:\n%s", out)
	}
	if fake.CFN.Status(names.AssetsStackName) != "CREATE_COMPLETE" || fake.CFN.Status("hello-dev") != "CREATE_COMPLETE" {
		t.Errorf("assets stack %s, app stack %s", fake.CFN.Status(names.AssetsStackName), fake.CFN.Status("hello-dev"))
	}
}

func TestDeployAfterAnUnexecutedChangeSet(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	dir := assembly(t, nil)
	a, err := ReadAssembly(dir, "hello-dev")
	if err != nil {
		t.Fatal(err)
	}
	// A CREATE change set left unexecuted (an interrupted deploy) leaves
	// the stack in REVIEW_IN_PROGRESS: still to be created.
	if _, err := e.createChangeSet(ctx, changeSetInput{stackName: "hello-dev", template: a.Template, create: true}); err != nil {
		t.Fatal(err)
	}
	if s := fake.CFN.Status("hello-dev"); s != "REVIEW_IN_PROGRESS" {
		t.Fatalf("status %s", s)
	}
	res, err := deployAssembly(ctx, e, dir, Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !res.FirstDeploy || !strings.Contains(out.String(), "Initiating first time deployment...") || res.Status != "CREATE_COMPLETE" {
		t.Errorf("first %v, status %s, output:\n%s", res.FirstDeploy, res.Status, out)
	}
}

// TestProgressLinePerStep: CloudFormation reports CREATE_IN_PROGRESS twice
// for each resource (the second once the resource has its physical id);
// the progress shows each step of a resource once.
func TestProgressLinePerStep(t *testing.T) {
	e, _, out := newEngine(t)
	if _, err := deployAssembly(context.Background(), e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"CREATE_IN_PROGRESS     AWS::Lambda::Function Function\n", "CREATE_COMPLETE        AWS::Lambda::Function Function\n"} {
		if n := strings.Count(out.String(), line); n != 1 {
			t.Errorf("%d lines ending %q, want 1:\n%s", n, line, out)
		}
	}
}

// TestTerminalProgressFitsTheWidth: the status line rewritten in place
// never runs past the terminal's width, where it would wrap and each
// rewrite would leave a line behind.
func TestTerminalProgressFitsTheWidth(t *testing.T) {
	e, _, out := newEngine(t)
	e.Terminal = true
	e.Width = 40
	if _, err := deployAssembly(context.Background(), e, assembly(t, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	rewrites := strings.Split(out.String(), "\r\x1b[K")
	if len(rewrites) < 3 {
		t.Fatalf("no status line rewritten in place:\n%q", out)
	}
	for _, r := range rewrites[1:] {
		line, _, _ := strings.Cut(r, "\n")
		if n := utf8.RuneCountInString(line); n >= e.Width {
			t.Errorf("status line of %d characters on a %d-column terminal: %q", n, e.Width, line)
		}
	}
}

// wantContains fails the test for each of wants that text (what names it)
// does not contain, showing the text.
func wantContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// The commands the engine's messages tell the user to run name the stage
// it works on, so that following them on a stage other than the default
// reaches that stage's stack, not the default one's; the assets stack,
// which no framework command deletes, is deleted with the AWS CLI.
func TestMessagesNameTheStage(t *testing.T) {
	e, fake, out := newEngine(t)
	e.Stage = "prod"
	ctx := context.Background()
	fake.CFN.FailResource("Function", "Resource handler returned message: \"Memory size 99 is not valid\"")
	if _, err := deployAssembly(ctx, e, assembly(t, nil), Options{}); !errors.Is(err, ErrFailed) {
		t.Fatalf("err = %v, want ErrFailed", err)
	}
	wantContains(t, "output of a failed first deploy", out.String(), "the next `framework deploy --stage prod` deletes it and creates it again")

	for _, status := range []string{"DELETE_FAILED", "ROLLBACK_FAILED", "CREATE_FAILED"} {
		fake.CFN.SetStatus("hello-dev", status)
		p, err := e.Plan(ctx, assembly(t, nil), "hello-dev")
		if err != nil {
			t.Fatal(err)
		}
		wantContains(t, status+" refusal", p.Reason, "delete it with `framework destroy --stage prod`")
	}
	fake.CFN.SetStatus("hello-dev", "UPDATE_IN_PROGRESS")
	if _, err := e.Destroy(ctx, "hello-dev", nil); err == nil || !strings.Contains(err.Error(), "then run `framework destroy --stage prod` again") {
		t.Errorf("destroy of a stack being updated: %v", err)
	}
	if got := e.explainStatus("hello-dev", "DELETE_FAILED"); !strings.Contains(got, "run `framework destroy --stage prod` again") {
		t.Errorf("DELETE_FAILED outcome: %q", got)
	}
	if got := e.explainStatus(names.AssetsStackName, "ROLLBACK_FAILED"); !strings.Contains(got, "delete it with `aws cloudformation delete-stack --stack-name FrameworkAssets --region us-east-1`") {
		t.Errorf("assets stack ROLLBACK_FAILED outcome: %q", got)
	}

	fake.CFN.SetStatus("hello-dev", "UPDATE_COMPLETE")
	fake.CFN.Hold("hello-dev")
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.Out = &notify{Writer: out, seen: "UPDATE_IN_PROGRESS", do: cancel}
	_, err := deployAssembly(cctx, e, assembly(t, addRoute), Options{})
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want *InterruptedError\n%s", err, out)
	}
	wantContains(t, "interrupted deploy", err.Error(), "run `framework deploy --stage prod` again once it has finished")
}

// notify is a writer that calls do once what it is given holds seen.
type notify struct {
	io.Writer
	seen string
	do   func()
	once sync.Once
}

func (n *notify) Write(b []byte) (int, error) {
	if strings.Contains(string(b), n.seen) {
		n.once.Do(n.do)
	}
	return n.Writer.Write(b)
}

// A destroy that keeps a retained resource (CloudFormation's DELETE_SKIPPED)
// counts it done: the progress ends at every resource of the stack, not
// one short as if something were left undone.
func TestDestroyProgressCountsRetainedResources(t *testing.T) {
	e, _, out := newEngine(t)
	ctx := context.Background()
	retained := func(tpl map[string]any) {
		resources(tpl)["Files"] = map[string]any{"Type": "AWS::S3::Bucket", "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain"}
	}
	if _, err := deployAssembly(ctx, e, assembly(t, retained), Options{}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := e.Destroy(ctx, "hello-dev", nil); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(out.String(), "DELETE_SKIPPED") || !regexp.MustCompile(`^  \[(\d+)/(\d+) .*\] DELETE_COMPLETE +AWS::CloudFormation::Stack hello-dev$`).MatchString(last) {
		t.Fatalf("destroy output:\n%s", out)
	}
	if m := regexp.MustCompile(`\[(\d+)/(\d+) `).FindStringSubmatch(last); m[1] != m[2] {
		t.Errorf("destroy ended at %s of %s resources:\n%s", m[1], m[2], out)
	}
}

// Ctrl-C while the assets upload, before any change set: the error says
// nothing was deployed and to deploy again, rather than the S3 client's
// "context canceled".
func TestDeployInterruptedWhileUploading(t *testing.T) {
	e, fake, out := newEngine(t)
	e.Stage = "dev"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.Out = &notify{Writer: out, seen: "Uploading ", do: cancel}
	_, err := deployAssembly(ctx, e, assembly(t, nil), Options{})
	var ie *InterruptedError
	if !errors.As(err, &ie) || err.Error() != "interrupted before stack hello-dev was changed: nothing was deployed; run `framework deploy --stage dev` again" {
		t.Fatalf("err = %v, want an InterruptedError saying nothing was deployed\n%s", err, out)
	}
	if fake.CFN.Calls("CreateChangeSet") != 1 || fake.CFN.Status("hello-dev") != "" { // the assets stack's
		t.Errorf("%d change sets, stack %q", fake.CFN.Calls("CreateChangeSet"), fake.CFN.Status("hello-dev"))
	}
}

// Credentials AWS refuses (an unknown access key, an expired session) are
// one error saying which and what to do, whether the first call is STS's
// (deploy, diff) or CloudFormation's (url, destroy, logs, invoke).
func TestRefusedCredentials(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"InvalidClientTokenId", "AWS refused your credentials: the access key is unknown to AWS (deleted, or of another partition) or its secret key is wrong; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ~/.aws/credentials, or the profile you pass with --profile"},
		{"SignatureDoesNotMatch", "AWS refused your credentials: the access key is unknown to AWS"},
		{"ExpiredToken", "your AWS session credentials have expired: get new ones (`aws sso login --profile P` for an SSO profile; a new AWS_SESSION_TOKEN with its keys otherwise) and run the command again"},
	} {
		t.Run(tc.code, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/xml")
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprintf(w, `<ErrorResponse><Error><Type>Sender</Type><Code>%s</Code><Message>AWS's own words</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`, tc.code)
			}))
			defer srv.Close()
			cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
				Credentials: credentials.NewStaticCredentialsProvider("AKIAWRONG", "wrong", "")}
			e := New(cfg, io.Discard)
			_, err := e.Environment(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "AWS's own words") {
				t.Errorf("Environment: %v\nwant it to contain %q", err, tc.want)
			}
			_, err = e.DescribeStack(context.Background(), "shop-dev")
			if err == nil || !strings.Contains(err.Error(), "describe stack shop-dev: "+tc.want) {
				t.Errorf("DescribeStack: %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// A region whose endpoints do not resolve (a typo) is named, with what to
// check, rather than left in the SDK's "dial tcp: lookup ...".
func TestUnreachableRegion(t *testing.T) {
	noDNS := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}}
	cfg := aws.Config{Region: "us-esat-1", HTTPClient: noDNS, Credentials: credentials.NewStaticCredentialsProvider("AKIA", "secret", ""),
		Retryer: func() aws.Retryer { return aws.NopRetryer{} }}
	e := New(cfg, io.Discard)
	_, err := e.DescribeStack(context.Background(), "shop-dev")
	want := `describe stack shop-dev: cannot reach AWS at cloudformation.us-esat-1.amazonaws.com (no such host): check the region, "us-esat-1" (--region, AWS_REGION or your profile's region), and your network connection`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("DescribeStack: %v\nwant %q", err, want)
	}
	if _, err := e.Environment(context.Background()); err == nil || !strings.Contains(err.Error(), `cannot reach AWS at sts.us-esat-1.amazonaws.com (no such host): check the region, "us-esat-1"`) {
		t.Errorf("Environment: %v", err)
	}
}

// The progress lines of a stack of 10 resources or more keep their status
// column aligned: [ 9/12 ...] then [10/12 ...].
func TestProgressColumnsAligned(t *testing.T) {
	e, _, out := newEngine(t)
	queues := func(tpl map[string]any) {
		for i := range 6 {
			resources(tpl)[fmt.Sprintf("Queue%d", i)] = map[string]any{"Type": "AWS::SQS::Queue"}
		}
	}
	if _, err := deployAssembly(context.Background(), e, assembly(t, queues), Options{}); err != nil {
		t.Fatal(err)
	}
	col := -1
	for _, line := range strings.Split(out.String(), "\n") {
		i := strings.Index(line, "] CREATE_")
		if !strings.HasPrefix(line, "  [") || i < 0 || strings.Contains(line, "FrameworkAssets") || strings.Contains(line, "AssetsBucket") {
			continue
		}
		if col >= 0 && i != col {
			t.Fatalf("status column at %d, then %d:\n%s", col, i, out)
		}
		col = i
	}
	if col < 0 || !strings.Contains(out.String(), "[ 9/12 ") || !strings.Contains(out.String(), "[12/12 ") {
		t.Errorf("output:\n%s", out)
	}
}

// WaitIdle waits for the operation running on the stack, saying so once,
// and returns the stack once it is idle; Plan then updates it where it
// would have refused. Interrupted, nothing was deployed.
func TestWaitIdle(t *testing.T) {
	e, fake, out := newEngine(t)
	ctx := context.Background()
	if st, err := e.WaitIdle(ctx, "hello-dev"); st != nil || err != nil {
		t.Fatalf("no stack: %v, %v", st, err)
	}
	fake.CFN.SetStatus("hello-dev", "UPDATE_IN_PROGRESS")
	e.PollInterval = time.Millisecond
	go func() {
		for fake.CFN.Calls("DescribeStacks") < 5 {
			time.Sleep(time.Millisecond)
		}
		fake.CFN.SetStatus("hello-dev", "UPDATE_COMPLETE")
	}()
	st, err := e.WaitIdle(ctx, "hello-dev")
	if err != nil || st == nil || st.Status != "UPDATE_COMPLETE" {
		t.Fatalf("WaitIdle = %+v, %v; want the stack once UPDATE_COMPLETE", st, err)
	}
	if n := strings.Count(out.String(), "Stack hello-dev is UPDATE_IN_PROGRESS: another operation is running on it; waiting for it to finish..."); n != 1 {
		t.Errorf("the waiting line appears %d times:\n%s", n, out)
	}

	fake.CFN.SetStatus("hello-dev", "UPDATE_IN_PROGRESS")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = e.WaitIdle(cctx, "hello-dev")
	var ie *InterruptedError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "nothing was deployed") {
		t.Errorf("interrupted: %v, want an InterruptedError saying nothing was deployed", err)
	}
}

// badProcessOutput is a credential_process output the SDK cannot parse
// (Expiration is a number), holding a secret and a session token.
const badProcessOutput = `{"Version": 1, "AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "SessionToken": "IQoJb3JpZ2luX2VjEJr/wEaCXVzLWVhc3QtMSJHMEUCIQ==", "Expiration": 12}`

// A profile's credential_process whose output does not parse is an error
// that says so without its secret and token, which the SDK's message
// quotes whole.
func TestCredentialProcessErrorIsRedacted(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	if err := os.WriteFile(out, []byte(badProcessOutput), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "config")
	if err := os.WriteFile(cfgFile, []byte("[profile dev]\nregion = us-east-1\ncredential_process = cat "+out+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfgFile)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_PROFILE", "")
	_, err := LoadConfig(context.Background(), "dev", "")
	if err == nil {
		t.Fatal("LoadConfig accepted credentials that do not parse")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "no AWS credentials: ") || strings.Contains(msg, "wJalrXUtnFEMI") || strings.Contains(msg, "IQoJb3") || strings.Contains(msg, "AKIAIOSFODNN7EXAMPLE") {
		t.Errorf("error %q: want no AWS credentials, without the secret, the token or the whole key ID", msg)
	}
}
