package localres

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/credentials/endpointcreds"
	"github.com/aws/aws-sdk-go-v2/credentials/logincreds"
	"github.com/aws/aws-sdk-go-v2/credentials/processcreds"
	"github.com/aws/aws-sdk-go-v2/credentials/ssocreds"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"

	"github.com/framework-dev/framework/internal/awscall"
)

// refreshAhead is how long before they expire the CLI's cached credentials
// are refreshed: more than awscall.RefreshBefore, so that what the app
// fetches is never about to expire.
const refreshAhead = 2 * awscall.RefreshBefore

// credentialsSource is the deployed stage's credentials provider (the SDK
// configuration's, which caches and refreshes them), as the CLI's own
// calls and the app's credentials endpoint share it: a failure to refresh
// is reported once, until the credentials are refreshed again.
type credentialsSource struct {
	provider aws.CredentialsProvider
	profile  string
	// source is the provider that gave the first credentials (their
	// Source: SSOProvider, EC2RoleProvider, ...): it says what to do when
	// a refresh fails.
	source string
	failed func(error)

	mu      sync.Mutex
	failing bool
}

// retrieve returns the current credentials, or an error saying they could
// not be refreshed and what to run.
func (s *credentialsSource) retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := s.provider.Retrieve(ctx)
	if err != nil && ctx.Err() != nil {
		return creds, err
	}
	s.mu.Lock()
	report := err != nil && !s.failing && s.failed != nil
	s.failing = err != nil
	s.mu.Unlock()
	if err != nil {
		err = refreshAdvice(s.source, s.profile, err)
		if report {
			s.failed(err)
		}
	}
	return creds, err
}

// refreshAdvice is the error for credentials of source (the provider name
// the SDK puts in Credentials.Source) and profile that could not be
// refreshed: what failed, and what to do about it.
func refreshAdvice(source, profile string, err error) error {
	var what, todo string
	switch source {
	case ssocreds.ProviderName:
		what, todo = "the SSO session of profile "+profile, "run `aws sso login --profile "+profile+"`"
	case logincreds.ProviderName:
		what, todo = "the console sign-in of profile "+profile, "run `aws login --profile "+profile+"`"
	case processcreds.ProviderName:
		what, todo = "the credential_process of profile "+profile, "fix what it runs, or sign in again if it signs you in"
	case stscreds.ProviderName:
		what, todo = "the role of profile "+profile, "check that you may still assume it and that its source credentials are valid (for an SSO source: `aws sso login --profile "+profile+"`)"
	case stscreds.WebIdentityProviderName:
		what, todo = "the web identity role", "check the token file (AWS_WEB_IDENTITY_TOKEN_FILE or the profile's web_identity_token_file) and that the role trusts it"
	case ec2rolecreds.ProviderName:
		what, todo = "this instance's role (EC2 instance metadata)", "check that the instance still has a role and reaches the metadata service"
	case endpointcreds.ProviderName:
		what, todo = "the container credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI)", "check that the endpoint runs and that the task still has its role"
	default:
		what, todo = "profile "+profile, "sign in again (`aws sso login --profile "+profile+"` for an SSO profile) or fix the profile"
	}
	// The SDK's error may quote what gave the credentials (a
	// credential_process output it could not parse, whole): it reaches the
	// terminal and the app's logs with its secrets redacted.
	return fmt.Errorf("the AWS credentials of %s could not be refreshed (%s): %s; the app gets the new credentials without a restart", what, awscall.Redact(err.Error()), todo)
}

// awscall is the source as awscall's provider.
func (s *credentialsSource) awscall(ctx context.Context, _ time.Time) (awscall.Credentials, error) {
	c, err := s.retrieve(ctx)
	return awscall.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken}, err
}

// profileName is the profile the SDK reads: profile, else AWS_PROFILE,
// else default.
func profileName(profile string) string {
	if profile == "" {
		profile = os.Getenv("AWS_PROFILE")
	}
	if profile == "" {
		profile = "default"
	}
	return profile
}

// credentialsServer serves a credentialsSource to the app on 127.0.0.1
// under the container credentials protocol (what awscall and the AWS SDKs
// read from AWS_CONTAINER_CREDENTIALS_FULL_URI), guarded by a random token.
type credentialsServer struct {
	url, token string
	srv        *http.Server
	done       chan struct{}
	closeOnce  sync.Once
}

// serveCredentials starts serving src on a free port of 127.0.0.1.
func serveCredentials(src *credentialsSource) (*credentialsServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve the app's AWS credentials on 127.0.0.1: %w", err)
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	s := &credentialsServer{url: "http://" + ln.Addr().String() + "/credentials", token: hex.EncodeToString(b), done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, src)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

func (s *credentialsServer) serve(w http.ResponseWriter, r *http.Request, src *credentialsSource) {
	answer := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(s.token)) != 1 {
		answer(http.StatusUnauthorized, map[string]string{"code": "AccessDenied", "message": "the Authorization header is not the token framework local gave the app in " + awscall.EnvContainerToken})
		return
	}
	if r.Method != http.MethodGet || r.URL.Path != "/credentials" {
		answer(http.StatusNotFound, map[string]string{"code": "NotFound", "message": "GET /credentials"})
		return
	}
	creds, err := src.retrieve(r.Context())
	if err != nil {
		answer(http.StatusInternalServerError, map[string]string{"code": "CredentialsUnavailable", "message": err.Error()})
		return
	}
	// Some SDKs require an expiry: credentials that do not expire are
	// asked for again in an hour.
	expires := time.Now().Add(time.Hour)
	if creds.CanExpire {
		expires = creds.Expires
	}
	answer(http.StatusOK, map[string]string{"AccessKeyId": creds.AccessKeyID, "SecretAccessKey": creds.SecretAccessKey,
		"Token": creds.SessionToken, "Expiration": expires.UTC().Format(time.RFC3339)})
}

// environ points the app's AWS calls at the server; the variables an SDK
// would prefer to the full URI are emptied.
func (s *credentialsServer) environ() []string {
	return []string{awscall.EnvContainerURI + "=" + s.url, awscall.EnvContainerToken + "=" + s.token,
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="}
}

// close stops the server and waits until it stopped.
func (s *credentialsServer) close() {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
			_ = s.srv.Close()
		}
		<-s.done
	})
}
