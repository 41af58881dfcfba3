package test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/framework-dev/framework/internal/cfnstandin"
	"github.com/framework-dev/framework/internal/mototest"
)

// cloud is CloudFormation and STS from the stand-in (test/cfnstandin:
// moto's CloudFormation lacks the change-set lifecycle deploy needs) with
// S3, IAM and Lambda from moto: the stand-in's resource hooks create the
// assets bucket, the execution role and the function in moto, and update
// the function's code there when CloudFormation updates it, so that the
// CLI's Lambda and S3 calls meet what a deploy made.
type cloud struct {
	moto   *mototest.Server
	cfn    *cfnstandin.Server
	lambda *lambda.Client
	s3     *s3.Client
	env    []string
}

// startShop skips the test in -short mode (needsCDK); otherwise it starts
// the AWS stand-ins and makes a new project named shop to deploy to them,
// returning its directory.
func startShop(t *testing.T) (*cloud, string) {
	t.Helper()
	needsCDK(t)
	c := startCloud(t)
	return c, newProject(t, c.env, "shop")
}

func startCloud(t testing.TB) *cloud {
	t.Helper()
	m := mototest.Start(t)
	cfg := m.Config()
	c := &cloud{
		moto:   m,
		cfn:    cfnstandin.New(),
		lambda: lambda.NewFromConfig(cfg),
		s3:     s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true }),
	}
	var mu sync.Mutex
	roles := map[string]string{} // logical id → ARN
	ctx := context.Background()
	resolve := func(v any) string {
		if s, ok := v.(string); ok {
			return s
		}
		if m, ok := v.(map[string]any); ok {
			if s, ok := m["Fn::Sub"].(string); ok {
				return strings.NewReplacer("${AWS::AccountId}", mototest.AccountID, "${AWS::Region}", mototest.Region).Replace(s)
			}
		}
		return fmt.Sprint(v)
	}
	code := func(r cfnstandin.Resource) (string, string) {
		m, _ := r.Properties["Code"].(map[string]any)
		return resolve(m["S3Bucket"]), resolve(m["S3Key"])
	}
	c.cfn.OnCreate = func(r cfnstandin.Resource) error {
		switch r.Type {
		case "AWS::S3::Bucket":
			_, err := c.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(r.PhysicalID)})
			return err
		case "AWS::IAM::Role":
			doc, _ := json.Marshal(r.Properties["AssumeRolePolicyDocument"])
			if err := m.CreateRole(r.PhysicalID, string(doc)); err != nil {
				return err
			}
			mu.Lock()
			roles[r.LogicalID] = "arn:aws:iam::" + mototest.AccountID + ":role/" + r.PhysicalID
			mu.Unlock()
		case "AWS::Lambda::Function":
			bucket, key := code(r)
			role := ""
			if ga, ok := r.Properties["Role"].(map[string]any)["Fn::GetAtt"].([]any); ok {
				mu.Lock()
				role = roles[ga[0].(string)]
				mu.Unlock()
			}
			_, err := c.lambda.CreateFunction(ctx, &lambda.CreateFunctionInput{
				FunctionName: aws.String(r.PhysicalID), Role: aws.String(role), Runtime: lambdatypes.RuntimeProvidedal2023,
				Handler: aws.String("bootstrap"), Code: &lambdatypes.FunctionCode{S3Bucket: aws.String(bucket), S3Key: aws.String(key)},
			})
			return err
		}
		return nil
	}
	c.cfn.OnUpdate = func(r cfnstandin.Resource) error {
		if r.Type != "AWS::Lambda::Function" {
			return nil
		}
		bucket, key := code(r)
		_, err := c.lambda.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String(r.PhysicalID), S3Bucket: aws.String(bucket), S3Key: aws.String(key)})
		return err
	}
	srv := httptest.NewServer(c.cfn)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	me := m.Environ(dir)
	env := map[string]string{
		"AWS_ENDPOINT_URL":                "",
		"AWS_ENDPOINT_URL_CLOUDFORMATION": srv.URL,
		"AWS_ENDPOINT_URL_STS":            srv.URL,
		"AWS_ENDPOINT_URL_S3":             m.URL,
		"AWS_ENDPOINT_URL_LAMBDA":         m.URL,
	}
	for k, v := range me {
		if _, ok := env[k]; !ok {
			env[k] = v
		}
	}
	c.env = standinEnv(t, env)
	return c
}

// functionName returns the name of the one function in moto.
func (c *cloud) functionName(t testing.TB) string {
	t.Helper()
	out, err := c.lambda.ListFunctions(context.Background(), &lambda.ListFunctionsInput{})
	if err != nil || len(out.Functions) != 1 {
		t.Fatalf("functions in moto: %d, %v; want 1", len(out.Functions), err)
	}
	return aws.ToString(out.Functions[0].FunctionName)
}

// codeSHA256 returns the CodeSha256 Lambda reports for the function.
func (c *cloud) codeSHA256(t testing.TB, name string) string {
	t.Helper()
	out, err := c.lambda.GetFunctionConfiguration(context.Background(), &lambda.GetFunctionConfigurationInput{FunctionName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.CodeSha256)
}

// packageSHA256 returns the base64 SHA-256 of the Lambda package in the
// dev stage's cloud assembly (cdk.out/dev), as Lambda reports a function's code.
func packageSHA256(t testing.TB, proj string) string {
	t.Helper()
	zips, _ := filepath.Glob(filepath.Join(proj, "cdk.out", "dev", "asset.*.zip"))
	if len(zips) != 1 {
		t.Fatalf("cdk.out/dev holds %d packages, want 1", len(zips))
	}
	b, err := os.ReadFile(zips[0])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// editGreeting rewrites the greeting the new project's route returns.
func editGreeting(t testing.TB, proj, greeting string) {
	t.Helper()
	path := filepath.Join(proj, "main.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), `"hello": `)
	if i < 0 {
		t.Fatalf("main.go of new-project returns no \"hello\" key:\n%s", src)
	}
	j := strings.Index(string(src[i+9:]), "}")
	out := string(src[:i+9]) + fmt.Sprintf("%q", greeting) + string(src[i+9+j:])
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addUsersRoute adds POST /users/{name} to the new project's app.
func addUsersRoute(t testing.TB, proj string) {
	t.Helper()
	path := filepath.Join(proj, "main.go")
	src, _ := os.ReadFile(path)
	out := strings.Replace(string(src), "\tapp.Run()", `	app.Route("/users/{name}", func(r *framework.Request, name string) (any, error) {
		return map[string]string{"name": name}, nil
	}, framework.Methods("POST"))

	app.Run()`, 1)
	if out == string(src) {
		t.Fatalf("main.go of new-project has no app.Run() line:\n%s", src)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeployHotswap drives `framework deploy --hotswap` against the stand-in
// and moto: the first deploy is full (nothing deployed yet), a code-only
// change is hotswapped through Lambda without a change set, a plain deploy
// reconciles a function left running hotswapped code, a new route falls
// back to a full deploy, code changed by someone else is refused unless
// --force, and a stage named like production is refused.
func TestDeployHotswap(t *testing.T) {
	c, proj := startShop(t)
	run := cliRunner(t, proj, c.env)

	out := run(0, "deploy", "--hotswap")
	wantOutput(t, out, "Hotswap not possible: stack shop-dev is not deployed yet. Deploying fully.", "Initiating first time deployment...", "Deployed stack shop-dev in ", "Rest API URL: https://")
	fn := c.functionName(t)
	original := c.codeSHA256(t, fn)
	if want := packageSHA256(t, proj); original != want {
		t.Errorf("function code %s after the first deploy, want the package's %s", original, want)
	}
	deployedTemplate := c.cfn.Template("shop-dev")
	changeSets := c.cfn.Calls("CreateChangeSet")

	// A code-only change: hotswapped, no change set, template untouched.
	editGreeting(t, proj, "hotswapped")
	out = run(0, "deploy", "--hotswap")
	wantOutput(t, out, "Hotswapping 1 function of stack shop-dev through the Lambda API (CloudFormation skipped)...",
		"  updated AppFunction0D24CA27 ("+fn+") in ", "Hotswapped 1 function of stack shop-dev in ",
		"Note: stack shop-dev now differs from its template", "The next full `framework deploy --stage dev` reconciles it.", "Rest API URL: https://")
	if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want || got == original {
		t.Errorf("function code %s after the hotswap, want the new package's %s (was %s)", got, want, original)
	}
	if n := c.cfn.Calls("CreateChangeSet") - changeSets; n != 0 {
		t.Errorf("the hotswap created %d change sets", n)
	}
	if c.cfn.Template("shop-dev") != deployedTemplate {
		t.Error("the hotswap changed the deployed template")
	}
	out = run(0, "deploy", "--hotswap")
	wantOutput(t, out, "No changes: stack shop-dev matches its template and its functions run the new code.")

	// Back to the deployed source: CloudFormation sees no change, and the
	// plain deploy puts the template's code back in place of the hotswapped one.
	editGreeting(t, proj, "world")
	out = run(0, "deploy")
	wantOutput(t, out, "No changes: stack shop-dev is up to date.", "Reconciled function AppFunction0D24CA27 ("+fn+"): it ran hotswapped code; it now runs its template's.")
	if got := c.codeSHA256(t, fn); got != original {
		t.Errorf("function code %s after the reconciling deploy, want the template's %s", got, original)
	}

	// A new route cannot be hotswapped: a full deploy, saying why.
	addUsersRoute(t, proj)
	changeSets = c.cfn.Calls("CreateChangeSet")
	out = run(0, "deploy", "--hotswap")
	wantOutput(t, out, "Hotswap not possible: a route change (+ POST /users/{name}). Deploying fully.", "Updating stack shop-dev", "Deployed stack shop-dev in ")
	if n := c.cfn.Calls("CreateChangeSet") - changeSets; n != 1 {
		t.Errorf("the fallback created %d change sets, want 1", n)
	}
	if !strings.Contains(c.cfn.Template("shop-dev"), "/users/{name}") {
		t.Error("the deployed template lacks the new route")
	}
	if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want {
		t.Errorf("function code %s after the full deploy, want %s", got, want)
	}

	// Someone else changes the function's code: the hotswap refuses to
	// overwrite it, --force goes ahead.
	theirs := c.putCode(t, fn, "someone else's package")
	editGreeting(t, proj, "mine")
	out = run(1, "deploy", "--hotswap")
	wantOutput(t, out, "function AppFunction0D24CA27 ("+fn+") runs code with SHA-256 "+theirs+", not the ", "someone else changed it; run a full `framework deploy --stage dev`", "or pass --force")
	if got := c.codeSHA256(t, fn); got != theirs {
		t.Errorf("the refused hotswap changed the function's code to %s", got)
	}
	out = run(0, "deploy", "--hotswap", "--force")
	wantOutput(t, out, "Hotswapped 1 function of stack shop-dev")
	if got, want := c.codeSHA256(t, fn), packageSHA256(t, proj); got != want {
		t.Errorf("function code %s after the forced hotswap, want %s", got, want)
	}

	// Production-like stages are refused before anything is built.
	out = run(1, "deploy", "--hotswap", "--stage", "prod")
	wantOutput(t, out, "stage prod is named like a production stage: hotswap refuses it", "pass --force if this stage is not production")
	out = run(1, "deploy", "--no-hotswap")
	wantOutput(t, out, "--no-hotswap goes with --watch")
}

// putCode uploads body as a package to moto's S3 and points the function
// at it, as another tool would, and returns its CodeSha256.
func (c *cloud) putCode(t testing.TB, fn, body string) string {
	t.Helper()
	ctx := context.Background()
	bucket := "framework-assets-" + mototest.AccountID + "-" + mototest.Region
	if _, err := c.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("theirs.zip"), Body: strings.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
	out, err := c.lambda.UpdateFunctionCode(ctx, &lambda.UpdateFunctionCodeInput{FunctionName: aws.String(fn), S3Bucket: aws.String(bucket), S3Key: aws.String("theirs.zip")})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.CodeSha256)
}
