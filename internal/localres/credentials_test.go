package localres

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/manifest"
)

// processProfile makes profile dev of this process's AWS configuration
// take its credentials from a credential_process, as SSO and assume-role
// profiles take temporary ones; the credentials it prints are set with
// the returned function (fail: it fails instead). They
// expire within the SDK cache's refresh window, so every retrieval runs
// the process.
func processProfile(t *testing.T) func(key, fail string) {
	dir := t.TempDir()
	script := filepath.Join(dir, "creds.sh")
	if err := os.WriteFile(script, []byte(`if [ -f "$0.fail" ]; then exit 1; fi; cat "$0.json"`), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "config")
	if err := os.WriteFile(config, []byte("[profile dev]\nregion = us-east-1\ncredential_process = /bin/sh "+script+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", config)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	set := func(key, fail string) {
		os.Remove(script + ".fail")
		if fail != "" {
			if err := os.WriteFile(script+".fail", []byte(fail), 0o600); err != nil {
				t.Fatal(err)
			}
			return
		}
		b, _ := json.Marshal(map[string]any{"Version": 1, "AccessKeyId": key, "SecretAccessKey": "secret-" + key,
			"SessionToken": "token-" + key, "Expiration": time.Now().Add(time.Minute).UTC().Format(time.RFC3339)})
		if err := os.WriteFile(script+".json", b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	set("AKIDONE", "")
	return set
}

// get fetches the app's credentials endpoint with token.
func get(t *testing.T, url, token string) (int, map[string]string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// A deployed stage read with a profile's credentials: the app gets the
// container credentials endpoint instead of static keys, the endpoint
// serves what the profile gives now (the CLI's own calls too), refuses a
// wrong token, answers a refresh failure with what to run (reported once),
// and stops with the session.
func TestDeployedStageServesRefreshedCredentials(t *testing.T) {
	moto := startMoto(t)
	set := processProfile(t)
	moto.CreateStack(t, "shop-dev", `{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}},
		"Outputs": {"ResJobsName": {"Value": "real-jobs"}, "ResJobsArn": {"Value": "arn:aws:sqs:us-east-1:123456789012:real-jobs"}, "ResJobsUrl": {"Value": "https://sqs/real-jobs"}}}`)
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}}}
	var mu sync.Mutex
	var reported []string
	ctx := context.Background()
	r, err := Resolve(ctx, m, Options{App: "shop", Stage: "dev", Profile: "dev", RefreshFailed: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, err.Error())
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	env := envMap(r.Env)
	uri, token := env[awscall.EnvContainerURI], env[awscall.EnvContainerToken]
	if !strings.HasPrefix(uri, "http://127.0.0.1:") || len(token) < 32 {
		t.Fatalf("environment %v: want the credentials endpoint on 127.0.0.1 and a token", r.Env)
	}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
		if _, ok := env[k]; ok {
			t.Errorf("environment sets %s: %v", k, r.Env)
		}
	}
	if env["FRAMEWORK_RES_JOBS_NAME"] != "real-jobs" {
		t.Errorf("environment %v: want the stack's outputs", r.Env)
	}

	status, body := get(t, uri, token)
	if status != 200 || body["AccessKeyId"] != "AKIDONE" || body["SecretAccessKey"] != "secret-AKIDONE" || body["Token"] != "token-AKIDONE" {
		t.Errorf("endpoint answered %d %v, want AKIDONE's credentials", status, body)
	}
	if _, err := time.Parse(time.RFC3339, body["Expiration"]); err != nil {
		t.Errorf("Expiration %q: %v", body["Expiration"], err)
	}

	// The profile's credentials change (refreshed): the app and the CLI
	// get the new ones.
	set("AKIDTWO", "")
	if status, body = get(t, uri, token); status != 200 || body["AccessKeyId"] != "AKIDTWO" {
		t.Errorf("after the profile's credentials changed: %d %v, want AKIDTWO", status, body)
	}
	for _, kv := range r.Env {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_CONTAINER_") {
			t.Setenv(k, v)
		}
	}
	app := awscall.FromEnv()
	if c, err := app.CurrentCredentials(ctx); err != nil || c.AccessKeyID != "AKIDTWO" {
		t.Errorf("the app's awscall credentials: %v, %v; want AKIDTWO", c.AccessKeyID, err)
	}
	if c, err := r.Client.call.CurrentCredentials(ctx); err != nil || c.AccessKeyID != "AKIDTWO" {
		t.Errorf("the CLI's own calls: %v, %v; want AKIDTWO", c.AccessKeyID, err)
	}

	for _, wrong := range []string{"", "not-the-token", token + "x"} {
		if status, _ := get(t, uri, wrong); status != http.StatusUnauthorized {
			t.Errorf("token %q: HTTP %d, want 401", wrong, status)
		}
	}

	// The profile cannot be refreshed: the app's calls fail saying what
	// failed and what to do, and the CLI is told once.
	const advice = "the credential_process of profile dev could not be refreshed"
	set("", "the SSO session has expired")
	status, body = get(t, uri, token)
	if status != http.StatusInternalServerError || !strings.Contains(body["message"], advice) || !strings.Contains(body["message"], "fix what it runs") {
		t.Errorf("refresh failure: %d %v, want 500 saying %s and to fix what it runs", status, body, advice)
	}
	err = app.Call(ctx, "secretsmanager", "GetSecretValue", nil, nil)
	if err == nil || !strings.Contains(err.Error(), advice) {
		t.Errorf("the app's call: %v, want the refresh failure", err)
	}
	mu.Lock()
	if len(reported) != 1 || !strings.Contains(reported[0], advice) {
		t.Errorf("reported %q, want one line saying %s", reported, advice)
	}
	mu.Unlock()
	set("AKIDTHREE", "")
	if status, body = get(t, uri, token); body["AccessKeyId"] != "AKIDTHREE" {
		t.Errorf("after signing in again: %d %v, want AKIDTHREE", status, body)
	}

	r.Close()
	if _, err := http.Get(uri); err == nil {
		t.Error("the endpoint still answers after Close")
	}
}

// A failed refresh names what gave the credentials and what to do for it:
// an SSO profile is signed in again, an instance role (no profile at all)
// is not a matter of `aws sso login`.
func TestRefreshFailureNamesTheSource(t *testing.T) {
	cases := []struct{ source, want, not string }{
		{"SSOProvider", "SSO session of profile dev could not be refreshed (connection refused): run `aws sso login --profile dev`", ""},
		{"AssumeRoleProvider", "the role of profile dev could not be refreshed", ""},
		{"ProcessProvider", "credential_process of profile dev", "aws sso login"},
		{"EC2RoleProvider", "this instance's role (EC2 instance metadata) could not be refreshed", "profile"},
		{"CredentialsEndpointProvider", "the container credentials endpoint", "profile"},
		{"WebIdentityCredentials", "AWS_WEB_IDENTITY_TOKEN_FILE", "aws sso login"},
		{"", "profile dev could not be refreshed (connection refused): sign in again (`aws sso login --profile dev`", ""},
	}
	for _, c := range cases {
		t.Run(c.source, func(t *testing.T) {
			src := &credentialsSource{source: c.source, profile: "dev",
				provider: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
					return aws.Credentials{}, errors.New("connection refused")
				})}
			_, err := src.retrieve(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) || (c.not != "" && strings.Contains(err.Error(), c.not)) {
				t.Errorf("error %v: want %q in it and not %q", err, c.want, c.not)
			}
			if err != nil && !strings.HasSuffix(err.Error(), "the app gets the new credentials without a restart") {
				t.Errorf("error %v: want it to end saying no restart is needed", err)
			}
		})
	}
}

// With AWS_ACCESS_KEY_ID in the CLI's environment, the app inherits it:
// no endpoint is served.
func TestDeployedStageWithEnvironmentKeysServesNothing(t *testing.T) {
	moto := startMoto(t)
	moto.CreateStack(t, "shop-dev", `{"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}, "Outputs": {"ResJobsName": {"Value": "real-jobs"}}}`)
	m := &manifest.Manifest{App: "shop", Resources: []manifest.Resource{{Name: "jobs", Kind: manifest.ResourceQueue}}}
	r, err := Resolve(context.Background(), m, Options{App: "shop", Stage: "dev"})
	if err != nil && r == nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, kv := range r.Env {
		if strings.HasPrefix(kv, "AWS_CONTAINER_") || strings.HasPrefix(kv, "AWS_ACCESS_KEY_ID=") {
			t.Errorf("environment sets %s: the app inherits the CLI's keys", kv)
		}
	}
	if r.creds != nil {
		t.Error("a credentials endpoint was started")
	}
}

// The app's own AWS SDK, when no profile gives it credentials, reads them
// from the endpoint too.
func TestAppSDKReadsTheCredentialsEndpoint(t *testing.T) {
	srv, err := serveCredentials(&credentialsSource{provider: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDSERVED", SecretAccessKey: "s", SessionToken: "t", CanExpire: true, Expires: time.Now().Add(time.Hour)}, nil
	}), profile: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	for _, kv := range srv.environ() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	none := filepath.Join(t.TempDir(), "none")
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || c.AccessKeyID != "AKIDSERVED" || c.SessionToken != "t" {
		t.Errorf("the SDK's credentials: %+v, %v; want AKIDSERVED's", c, err)
	}
}

// A credential_process output that does not parse reaches the terminal
// and the app (the endpoint's JSON error, which the app logs) without its
// secret and token: the SDK's error quotes the output whole.
func TestRefreshFailureRedactsTheOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	const secret, token = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "IQoJb3JpZ2luX2VjEJr/wEaCXVzLWVhc3QtMSJHMEUCIQ=="
	bad := `{"Version": 1, "AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "` + secret + `", "SessionToken": "` + token + `", "Expiration": 12}`
	if err := os.WriteFile(out, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "config")
	if err := os.WriteFile(cfgFile, []byte("[profile dev]\nregion = us-east-1\ncredential_process = cat "+out+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfgFile)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithSharedConfigProfile("dev"))
	if err != nil {
		t.Fatal(err)
	}
	var reported []string
	src := &credentialsSource{provider: cfg.Credentials, profile: "dev", source: "ProcessProvider", failed: func(err error) { reported = append(reported, err.Error()) }}
	srv, err := serveCredentials(src)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	status, body := get(t, srv.url, srv.token)
	for _, msg := range append([]string{body["message"]}, reported...) {
		if strings.Contains(msg, secret) || strings.Contains(msg, token) || strings.Contains(msg, "AKIAIOSFODNN7EXAMPLE") {
			t.Errorf("message %q quotes a secret", msg)
		}
	}
	if status != http.StatusInternalServerError || !strings.Contains(body["message"], "credential_process of profile dev could not be refreshed") || len(reported) != 1 {
		t.Errorf("endpoint answered %d %v, reported %q; want 500 naming the credential_process, reported once", status, body, reported)
	}
}
