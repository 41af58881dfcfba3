package awscall_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
)

// credsEndpoint stands in for a container credentials endpoint: it
// answers a new access key (AKID1, AKID2, ...) at each fetch, expiring at
// expires, and refuses a request without the token.
type credsEndpoint struct {
	*httptest.Server
	token   string
	expires time.Time

	mu      sync.Mutex
	fetches int
	fail    string // when set, answered with HTTP 500
}

func startCredsEndpoint(t *testing.T, expires time.Time) *credsEndpoint {
	e := &credsEndpoint{token: "token-" + t.Name(), expires: expires}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != e.token {
			http.Error(w, `{"message":"wrong token"}`, http.StatusUnauthorized)
			return
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.fail != "" {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"code":"CredentialsUnavailable","message":%q}`, e.fail)
			return
		}
		e.fetches++
		fmt.Fprintf(w, `{"AccessKeyId":"AKID%d","SecretAccessKey":"secret","Token":"session","Expiration":%q}`,
			e.fetches, e.expires.Format(time.RFC3339))
	}))
	t.Cleanup(e.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv(awscall.EnvContainerURI, e.URL+"/creds")
	t.Setenv(awscall.EnvContainerToken, e.token)
	return e
}

func (e *credsEndpoint) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fetches
}

// service stands in for an AWS service: it records the access key and
// session token each request was signed with.
func service(t *testing.T) (*httptest.Server, func() (string, string)) {
	var mu sync.Mutex
	var key, token string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth := r.Header.Get("Authorization")
		_, after, _ := strings.Cut(auth, "Credential=")
		key, _, _ = strings.Cut(after, "/")
		token = r.Header.Get("X-Amz-Security-Token")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() (string, string) {
		mu.Lock()
		defer mu.Unlock()
		return key, token
	}
}

// clocked starts a credentials endpoint whose credentials expire an hour
// after t0 and a service, and returns the environment's configuration
// calling the service, its clock at t0 + the duration last given to at.
func clocked(t *testing.T) (e *credsEndpoint, c awscall.Config, signed func() (string, string), at func(time.Duration)) {
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	e = startCredsEndpoint(t, t0.Add(time.Hour))
	svc, signed := service(t)
	now := t0
	c = awscall.FromEnv()
	c.Endpoint, c.Now = svc.URL, func() time.Time { return now }
	return e, c, signed, func(d time.Duration) { now = t0.Add(d) }
}

// Without AWS_ACCESS_KEY_ID, calls are signed with the credentials of the
// container endpoint, sent the token; they are fetched once and reused
// until a few minutes before they expire, then fetched again, and the
// calls are signed with the new key.
func TestContainerCredentialsAreCachedThenRefreshed(t *testing.T) {
	e, c, signed, at := clocked(t)
	ctx := context.Background()

	for _, step := range []struct {
		at      time.Duration
		key     string
		fetches int
	}{
		{0, "AKID1", 1},
		{30 * time.Minute, "AKID1", 1}, // cached
		{time.Hour - awscall.RefreshBefore - time.Second, "AKID1", 1}, // still cached
		{time.Hour - awscall.RefreshBefore + time.Second, "AKID2", 2}, // refreshed before expiry
		{time.Hour + time.Minute, "AKID3", 3},                         // the endpoint still answers the old expiry: fetched again
		{time.Hour + time.Minute + time.Second, "AKID4", 4},           // and again: expired credentials are never reused
	} {
		at(step.at)
		if err := c.Call(ctx, "secretsmanager", "ListSecrets", nil, nil); err != nil {
			t.Fatalf("at +%s: %v", step.at, err)
		}
		key, token := signed()
		if key != step.key || token != "session" {
			t.Errorf("at +%s: signed with %s (token %q), want %s (token session)", step.at, key, token, step.key)
		}
		if n := e.count(); n != step.fetches {
			t.Errorf("at +%s: %d fetches, want %d", step.at, n, step.fetches)
		}
	}
}

// framework/resource's handles read the environment at each call: they
// share one fetch.
func TestContainerCredentialsSharedAcrossCalls(t *testing.T) {
	e := startCredsEndpoint(t, time.Now().Add(time.Hour))
	svc, signed := service(t)
	t.Setenv("AWS_ENDPOINT_URL", svc.URL)
	for range 3 {
		if err := awscall.Call(context.Background(), "dynamodb", "ListTables", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if key, _ := signed(); key != "AKID1" || e.count() != 1 {
		t.Errorf("signed with %s after %d fetches, want AKID1 after 1", key, e.count())
	}
}

// A refresh that fails before the cached credentials expire keeps them;
// once they expired, the call fails with the endpoint's message.
func TestContainerCredentialsErrorStatusSurfacesMessage(t *testing.T) {
	e, c, signed, at := clocked(t)
	ctx := context.Background()
	if err := c.Call(ctx, "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.fail = "the SSO session of profile dev has expired: run `aws sso login --profile dev`"
	e.mu.Unlock()

	at(time.Hour - time.Minute)
	if err := c.Call(ctx, "sqs", "ListQueues", nil, nil); err != nil {
		t.Errorf("a minute before expiry, a failed refresh: %v, want the cached credentials used", err)
	} else if key, _ := signed(); key != "AKID1" {
		t.Errorf("signed with %s, want the cached AKID1", key)
	}

	at(time.Hour + time.Second)
	err := c.Call(ctx, "sqs", "ListQueues", nil, nil)
	if err == nil {
		t.Fatal("expired credentials and a failing endpoint: no error")
	}
	for _, want := range []string{"sqs ListQueues: ", awscall.EnvContainerURI, "HTTP 500", "aws sso login --profile dev"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// A wrong token is refused by the endpoint; the error names the token's
// variable.
func TestContainerCredentialsWrongToken(t *testing.T) {
	startCredsEndpoint(t, time.Now().Add(time.Hour))
	t.Setenv(awscall.EnvContainerToken, "not-the-token")
	err := awscall.Call(context.Background(), "ssm", "GetParameter", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "HTTP 401") || !strings.Contains(err.Error(), awscall.EnvContainerToken) {
		t.Errorf("wrong token: %v, want HTTP 401 naming %s", err, awscall.EnvContainerToken)
	}
}

// Credentials are fetched only from https or this machine's loopback; any
// other http URL is refused without a request, saying what to set.
func TestContainerCredentialsURLMustBeLoopbackOrHTTPS(t *testing.T) {
	var asked bool
	c := awscall.Config{Region: "eu-west-1", HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		asked = true
		return nil, fmt.Errorf("offline")
	})}}
	for _, u := range []string{"http://169.254.1.1/creds", "http://example.com/creds", "http://10.0.0.1:8080/", "ftp://127.0.0.1/", "not a url"} {
		c.Provider = awscall.ContainerCredentials(u, "")
		err := c.Call(context.Background(), "ssm", "GetParameter", nil, nil)
		if err == nil || !strings.Contains(err.Error(), awscall.EnvContainerURI) || !strings.Contains(err.Error(), "neither an https URL nor an http one on this machine") {
			t.Errorf("%s: %v, want a refusal naming %s", u, err, awscall.EnvContainerURI)
		}
	}
	if asked {
		t.Error("the service was called without credentials")
	}
}

// AWS_ACCESS_KEY_ID wins over the container endpoint, as in the AWS SDKs.
func TestEnvironmentKeysWinOverContainerEndpoint(t *testing.T) {
	e := startCredsEndpoint(t, time.Now().Add(time.Hour))
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "x")
	svc, signed := service(t)
	t.Setenv("AWS_ENDPOINT_URL", svc.URL)
	if err := awscall.Call(context.Background(), "ssm", "GetParameter", nil, nil); err != nil {
		t.Fatal(err)
	}
	if key, _ := signed(); key != "AKIAENV" || e.count() != 0 {
		t.Errorf("signed with %s after %d fetches, want AKIAENV and none", key, e.count())
	}
}

// The token file (EKS Pod Identity) wins over the token and is read at
// each fetch, so a rotated token is sent; a token file that cannot be read
// is named in the error.
func TestContainerTokenFileIsReadAtEachFetch(t *testing.T) {
	e, c, signed, at := clocked(t)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(e.token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(awscall.EnvContainerToken, "not-the-token")
	t.Setenv(awscall.EnvContainerTokenFile, file)
	c.Provider = awscall.FromEnv().Provider
	ctx := context.Background()
	if err := c.Call(ctx, "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatalf("with the token file: %v", err)
	}
	if key, _ := signed(); key != "AKID1" {
		t.Errorf("signed with %q, want AKID1", key)
	}

	// The agent rotates the token and the file: the refresh sends the new one.
	e.mu.Lock()
	e.token = "rotated-" + e.token
	e.mu.Unlock()
	if err := os.WriteFile(file, []byte(e.token), 0o600); err != nil {
		t.Fatal(err)
	}
	at(time.Hour)
	if err := c.Call(ctx, "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatalf("after the token rotated: %v", err)
	}
	if key, _ := signed(); key != "AKID2" {
		t.Errorf("signed with %q after the rotation, want AKID2", key)
	}

	os.Remove(file)
	at(3 * time.Hour)
	err := c.Call(ctx, "sqs", "ListQueues", nil, nil)
	if err == nil || !strings.Contains(err.Error(), awscall.EnvContainerTokenFile) || !strings.Contains(err.Error(), file) {
		t.Errorf("token file gone: %v, want an error naming %s and the file", err, awscall.EnvContainerTokenFile)
	}
}

// AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (ECS, CodeBuild) is fetched from
// ECS's agent, and wins over the full URI, as in the AWS SDKs; a full URI
// may name ECS's or EKS's agent over http.
func TestContainerRelativeURIAndAgents(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	awscall.SetContainerClient(t, &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		asked = append(asked, r.URL.String()+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		body := `{"AccessKeyId":"AKIDAGENT","SecretAccessKey":"s","Token":"t","Expiration":"2099-01-01T00:00:00Z"}`
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
	})})
	svc, signed := service(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv(awscall.EnvContainerURI, "http://127.0.0.1:1/never")
	t.Setenv(awscall.EnvContainerToken, "")
	t.Setenv(awscall.EnvContainerTokenFile, "")
	rel := "/v2/credentials/" + t.Name()
	t.Setenv(awscall.EnvContainerRelativeURI, rel)
	c := awscall.FromEnv()
	c.Endpoint = svc.URL
	if err := c.Call(context.Background(), "sqs", "ListQueues", nil, nil); err != nil {
		t.Fatal(err)
	}
	if key, _ := signed(); key != "AKIDAGENT" {
		t.Errorf("signed with %q, want the agent's AKIDAGENT", key)
	}

	t.Setenv(awscall.EnvContainerRelativeURI, "")
	for _, u := range []string{"http://169.254.170.23/v1/credentials?" + t.Name(), "http://[fd00:ec2::23]/v1/credentials?" + t.Name()} {
		t.Setenv(awscall.EnvContainerURI, u)
		t.Setenv(awscall.EnvContainerToken, "pod-token")
		c := awscall.FromEnv()
		c.Endpoint = svc.URL
		if err := c.Call(context.Background(), "sqs", "ListQueues", nil, nil); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"http://169.254.170.2" + rel + " ",
		"http://169.254.170.23/v1/credentials?" + t.Name() + " pod-token",
		"http://[fd00:ec2::23]/v1/credentials?" + t.Name() + " pod-token"}
	if !slices.Equal(asked, want) {
		t.Errorf("asked\n%q\nwant\n%q", asked, want)
	}
}
