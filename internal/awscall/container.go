package awscall

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// CredentialsFunc gives the credentials a call made at now is signed
// with. It may cache them, and is called by concurrent calls.
type CredentialsFunc func(ctx context.Context, now time.Time) (Credentials, error)

// The container credentials protocol's variables, as the AWS SDKs read
// them: the relative URI (ECS, CodeBuild) wins over the full one, and the
// token file (EKS Pod Identity, read at each fetch as it is rotated) over
// the token.
const (
	EnvContainerURI         = "AWS_CONTAINER_CREDENTIALS_FULL_URI"
	EnvContainerRelativeURI = "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"
	EnvContainerToken       = "AWS_CONTAINER_AUTHORIZATION_TOKEN"
	EnvContainerTokenFile   = "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"
)

// ecsCredentialsHost serves the relative URI.
const ecsCredentialsHost = "http://169.254.170.2"

// containerHosts are the link-local hosts, beside the loopback, that an
// http full URI may name: ECS's and EKS Pod Identity's agents.
var containerHosts = []string{"169.254.170.2", "169.254.170.23", "fd00:ec2::23"}

// RefreshBefore is how long before their expiry cached credentials are
// fetched again.
const RefreshBefore = 5 * time.Minute

// containerSources are the sources ContainerCredentials made, by URL and
// token, so that every call of a process (FromEnv is read at each call)
// shares one cache.
var containerSources sync.Map

// containerClient fetches container credentials.
var containerClient = &http.Client{Timeout: 30 * time.Second}

// ContainerCredentials returns the credentials served at rawURL as the
// container credentials protocol (ECS, and what every AWS SDK reads from
// AWS_CONTAINER_CREDENTIALS_FULL_URI) serves them: a GET, sent with the
// header Authorization: token when token is not empty, answered with the
// JSON object {"AccessKeyId", "SecretAccessKey", "Token", "Expiration"},
// Expiration in RFC 3339. The answer is cached and fetched again
// RefreshBefore its expiry; when that fetch fails, the cached credentials
// are used until they expire. Only an https URL or an http one on this
// machine's loopback (127.0.0.1, [::1], localhost) or an ECS or EKS
// credentials agent's address is fetched from.
func ContainerCredentials(rawURL, token string) CredentialsFunc {
	return (&containerSource{url: rawURL, token: token, variable: EnvContainerURI}).shared()
}

// containerFromEnv returns the credentials of the container credentials
// endpoint the environment names (see EnvContainerURI), or nil when it
// names none.
func containerFromEnv() CredentialsFunc {
	src := &containerSource{tokenFile: os.Getenv(EnvContainerTokenFile)}
	switch rel, full := os.Getenv(EnvContainerRelativeURI), os.Getenv(EnvContainerURI); {
	case rel != "":
		src.url, src.variable = ecsCredentialsHost+rel, EnvContainerRelativeURI
	case full != "":
		src.url, src.variable = full, EnvContainerURI
	default:
		return nil
	}
	if src.tokenFile == "" {
		src.token = os.Getenv(EnvContainerToken)
	}
	return src.shared()
}

// containerSource is the cache of one container credentials endpoint.
type containerSource struct {
	url, token string
	// tokenFile, when set, holds the token instead, read at each fetch.
	tokenFile string
	// variable is the environment variable that gave url.
	variable string

	mu      sync.Mutex
	creds   Credentials // zero until fetched
	expires time.Time   // zero: they do not expire
}

// shared returns the get of the source ContainerCredentials or FromEnv
// made for the same endpoint before, or of this one.
func (s *containerSource) shared() CredentialsFunc {
	key := strings.Join([]string{s.variable, s.url, s.token, s.tokenFile}, "\n")
	v, _ := containerSources.LoadOrStore(key, s)
	return v.(*containerSource).get
}

func (s *containerSource) get(ctx context.Context, now time.Time) (Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.creds.AccessKeyID != "" && (s.expires.IsZero() || now.Before(s.expires.Add(-RefreshBefore))) {
		return s.creds, nil
	}
	creds, expires, err := s.fetch(ctx)
	if err != nil {
		if s.creds.AccessKeyID != "" && !s.expires.IsZero() && now.Before(s.expires) {
			return s.creds, nil
		}
		return Credentials{}, err
	}
	s.creds, s.expires = creds, expires
	return creds, nil
}

// fetch asks the endpoint for credentials.
func (s *containerSource) fetch(ctx context.Context) (Credentials, time.Time, error) {
	if s.variable == EnvContainerURI {
		if err := checkContainerURL(s.url); err != nil {
			return Credentials{}, time.Time{}, err
		}
	}
	fail := func(format string, args ...any) (Credentials, time.Time, error) {
		return Credentials{}, time.Time{}, fmt.Errorf("the credentials at %s (%s) "+format, append([]any{s.variable, s.url}, args...)...)
	}
	token, tokenVar := s.token, EnvContainerToken
	if s.tokenFile != "" {
		tokenVar = EnvContainerTokenFile
		b, err := os.ReadFile(s.tokenFile)
		if err != nil {
			return fail("could not be asked for: the token file in %s: %v", tokenVar, err)
		}
		token = strings.TrimSpace(string(b))
	}
	if strings.ContainsAny(token, "\r\n") {
		return fail("could not be asked for: the token in %s spans several lines", tokenVar)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return fail("could not be asked for: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := containerClient.Do(req)
	if err != nil {
		return fail("could not be fetched (%v): is what serves them (such as framework local) still running? Restart it, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead", err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return fail("could not be read: %v", err)
	}
	var answer struct {
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		Token           string
		Expiration      string
		Message         string `json:"message"`
		MessageU        string `json:"Message"`
	}
	jsonErr := json.Unmarshal(body, &answer)
	if resp.StatusCode >= 300 {
		msg := answer.Message
		if msg == "" {
			msg = answer.MessageU
		}
		if msg == "" && jsonErr != nil {
			msg = strings.TrimSpace(string(body))
			if len(msg) > 300 {
				msg = msg[:300] + "..."
			}
		}
		msg = Redact(msg) // an endpoint's answer may quote credentials
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			return fail("were refused (HTTP %d: %s): %s must hold the token the endpoint was started with", resp.StatusCode, msg, tokenVar)
		}
		return fail("could not be fetched: HTTP %d: %s", resp.StatusCode, msg)
	}
	if jsonErr != nil || answer.AccessKeyID == "" || answer.SecretAccessKey == "" {
		return fail("are not a JSON object with AccessKeyId and SecretAccessKey: %s", Redact(fmt.Sprintf("%.200q", body)))
	}
	var expires time.Time
	if answer.Expiration != "" {
		if expires, err = time.Parse(time.RFC3339, answer.Expiration); err != nil {
			return fail("expire at %q, not an RFC 3339 time", answer.Expiration)
		}
	}
	return Credentials{AccessKeyID: answer.AccessKeyID, SecretAccessKey: answer.SecretAccessKey, SessionToken: answer.Token}, expires, nil
}

// checkContainerURL refuses a URL credentials must not be fetched from:
// one neither https nor http on the loopback interface.
func checkContainerURL(raw string) error {
	u, err := url.Parse(raw)
	if err == nil && u.Host != "" {
		switch u.Scheme {
		case "https":
			return nil
		case "http":
			h := u.Hostname()
			if ip := net.ParseIP(h); h == "localhost" || ip != nil && (ip.IsLoopback() || slices.ContainsFunc(containerHosts, func(a string) bool { return net.ParseIP(a).Equal(ip) })) {
				return nil
			}
		}
	}
	return fmt.Errorf("%s %q is neither an https URL nor an http one on this machine (127.0.0.1, [::1], localhost) or an ECS or EKS credentials agent (%s), so credentials are not fetched from it: set it to such a URL, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead", EnvContainerURI, raw, strings.Join(containerHosts, ", "))
}
