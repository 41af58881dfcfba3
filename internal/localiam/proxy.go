package localiam

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
)

// Target is where allowed calls go and what they are checked against;
// Proxy.SetTarget changes it as the app's declarations change.
type Target struct {
	// Upstream is the emulator's URL (--aws-endpoint), or the endpoint
	// the CLI's own environment or profile names; "" sends each call to
	// its service's regional endpoint at AWS (a deployed stage).
	Upstream string
	// Endpoints are endpoints by signing name that win over Upstream (the
	// CLI's AWS_ENDPOINT_URL_<SERVICE> variables).
	Endpoints map[string]string
	// Region is the region the calls are made in.
	Region string
	// Credentials are the real credentials allowed calls are signed with
	// again: the emulator's, or the CLI's for the deployed stage.
	Credentials func(context.Context) (awscall.Credentials, error)
	// Policies are the functions' statements; nil lets every call
	// through unchecked.
	Policies Policies
	// Env names the resources requests give by name (the account, the
	// declared secrets' ARNs); its Region defaults to Region.
	Env Env
	// Hint, when set, says what would grant function the check it was
	// refused (the Allow to add), for the log line and the error message.
	Hint func(function string, ch Check) string
	// WebSocket is the app's local WebSocket API, where the allowed
	// @connections calls go (nil: none runs).
	WebSocket *WebSocket
}

// Options configure a Proxy.
type Options struct {
	Target
	// Denied, when set, is told of every refused call.
	Denied func(Denied)
	// Unchecked, when set, is told once per service and operation of a
	// call the proxy could not check and let through (service and
	// operation empty: once per function the policies do not know).
	Unchecked func(function, service, operation string)
	// Client sends the calls upstream; nil means a client of its own.
	Client *http.Client
}

// Proxy is the local IAM checking proxy. Its zero value is not usable:
// call Start.
type Proxy struct {
	// URL is where the function processes send their AWS calls.
	URL string

	o      Options
	target atomic.Pointer[Target]
	ln     net.Listener
	srv    *http.Server
	done   chan struct{}
	secret string

	mu       sync.Mutex
	keys     map[string]string // access key id -> function
	byFunc   map[string]string // function -> access key id
	reported map[string]bool
}

// Start serves a proxy on a free port of 127.0.0.1.
func Start(o Options) (*Proxy, error) {
	if o.Client == nil {
		o.Client = &http.Client{
			// The answer goes back as it came, compressed or not: the SDKs
			// check its checksums.
			Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 32, IdleConnTimeout: 90 * time.Second, DisableCompression: true},
			// Redirects (S3's 301 to a bucket's region) go back to the SDK.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the local IAM check on 127.0.0.1: %w", err)
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), o: o, ln: ln, done: make(chan struct{}), secret: randomHex(20),
		keys: map[string]string{}, byFunc: map[string]string{}, reported: map[string]bool{}}
	p.SetTarget(o.Target)
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return strings.ToUpper(hex.EncodeToString(b))
}

// SetTarget changes where calls go and what they are checked against; the
// functions' credentials stay valid.
func (p *Proxy) SetTarget(t Target) {
	if t.Env.Region == "" {
		t.Env.Region = t.Region
	}
	p.target.Store(&t)
}

// Close stops the proxy and waits until it stopped.
func (p *Proxy) Close() {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil {
		_ = p.srv.Close()
	}
	<-p.done
}

// Environ is what the process of function needs for its AWS calls to go
// through the proxy as that function: the proxy's URL as every service's
// endpoint, and credentials whose key id is the function's (the same on
// every call, so that warm processes are reused). It wins over the
// variables before it; nil for a nil proxy.
func (p *Proxy) Environ(function string) []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	key, ok := p.byFunc[function]
	if !ok {
		key = "FWLOCAL" + randomHex(8)
		p.byFunc[function], p.keys[key] = key, function
	}
	p.mu.Unlock()
	return []string{"AWS_ENDPOINT_URL=" + p.URL, "AWS_ACCESS_KEY_ID=" + key, "AWS_SECRET_ACCESS_KEY=" + p.secret,
		"AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_CONTAINER_CREDENTIALS_FULL_URI=", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN=", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="}
}

// serviceEnvIDs are the AWS_ENDPOINT_URL_<ID> of the services the proxy
// checks, by signing name.
var serviceEnvIDs = map[string]string{"dynamodb": "DYNAMODB", "sqs": "SQS", "sns": "SNS", "s3": "S3", "secretsmanager": "SECRETS_MANAGER", "ssm": "SSM"}

// ClearServiceEndpoints are the environment entries that empty the
// endpoint variables of the services the proxy checks
// (AWS_ENDPOINT_URL_DYNAMODB, ...) set in env: an SDK would prefer them to
// the proxy's AWS_ENDPOINT_URL. The proxy sends those services' calls
// there (ServiceEndpoints).
func ClearServiceEndpoints(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		for _, id := range serviceEnvIDs {
			if k == "AWS_ENDPOINT_URL_"+id {
				out = append(out, k+"=")
			}
		}
	}
	return out
}

// ServiceEndpoints are the endpoints env names for the services the proxy
// checks, by signing name (Target.Endpoints).
func ServiceEndpoints(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		for service, id := range serviceEnvIDs {
			if k == "AWS_ENDPOINT_URL_"+id && v != "" {
				out[service] = v
			}
		}
	}
	return out
}

// scope is the key id, region and service of a SigV4 Authorization
// header's credential scope.
func scope(auth string) (key, region, service string, ok bool) {
	const alg = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, alg) {
		return "", "", "", false
	}
	_, cred, found := strings.Cut(auth, "Credential=")
	if !found {
		return "", "", "", false
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(strings.TrimSpace(cred), "/")
	if len(parts) != 5 {
		return "", "", "", false
	}
	return parts[0], parts[2], parts[3], true
}

func (p *Proxy) once(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reported[key] {
		return false
	}
	p.reported[key] = true
	return true
}

// presignQuery are the query parameters of a presigned URL's signature.
var presignQuery = []string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Security-Token"}

// presignedScope is scope for a presigned URL, and whether it expired.
func presignedScope(r *http.Request) (key, region, service string, ok, expired bool) {
	q := r.URL.Query()
	key, region, service, ok = scope("AWS4-HMAC-SHA256 Credential=" + q.Get("X-Amz-Credential"))
	when, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	secs, err2 := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err == nil && err2 == nil && time.Now().After(when.Add(time.Duration(secs)*time.Second)) {
		expired = true
	}
	return key, region, service, ok, expired
}

// stripPresign removes a presigned URL's signature from r, which is then
// signed again in headers, its payload unsigned as a presigned one is.
func stripPresign(r *http.Request) {
	q := r.URL.Query()
	for _, k := range presignQuery {
		q.Del(k)
	}
	r.URL.RawQuery = q.Encode()
	if r.Header.Get("X-Amz-Content-Sha256") == "" {
		r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	}
}

// ServeHTTP checks one call and refuses it or sends it upstream.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isPreflight(r) {
		p.forwardPreflight(w, r)
		return
	}
	key, region, service, ok := scope(r.Header.Get("Authorization"))
	presigned := false
	if !ok && r.URL.Query().Get("X-Amz-Credential") != "" {
		// A presigned URL (S3's, handed to a browser): checked as the
		// function that signed it, then sent on signed in headers.
		var expired bool
		key, region, service, ok, expired = presignedScope(r)
		if expired {
			writeDenied(w, r, Call{protocol: protoS3}, "Request has expired")
			return
		}
		presigned = ok
	}
	p.mu.Lock()
	function, known := p.keys[key]
	p.mu.Unlock()
	if !ok || !known {
		who := "an unsigned request"
		if ok {
			who = "access key " + key
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "framework local's IAM check: %s is not a function's; let the SDK read AWS_ACCESS_KEY_ID from the environment, or pass --no-iam-check\n", who)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "framework local's IAM check could not read the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if presigned {
		if !p.checkPresigned(w, r) {
			return
		}
		stripPresign(r)
	}
	t := p.target.Load()
	c, unmodeled := Classify(r, body, service, t.Env)
	hasPolicy := false
	if t.Policies != nil {
		_, hasPolicy = t.Policies.Allows(function, "", "")
	}
	switch {
	case unmodeled != nil:
		if p.o.Unchecked != nil && p.once(service+" "+c.Operation) {
			p.o.Unchecked(function, service, c.Operation)
		}
	case !hasPolicy:
		if p.o.Unchecked != nil && p.once("function "+function) {
			p.o.Unchecked(function, "", "")
		}
	default:
		for _, ch := range c.Checks {
			if ok, _ := t.Policies.Allows(function, ch.Action, ch.Resource); ok {
				continue
			}
			hint := ""
			if t.Hint != nil {
				hint = t.Hint(function, ch)
			}
			if p.o.Denied != nil {
				p.o.Denied(Denied{Function: function, Action: ch.Action, Resource: ch.Resource, Hint: hint})
			}
			writeDenied(w, r, c, deniedMessage(function, ch, hint))
			return
		}
	}
	p.forward(w, r, t, c.Path, body, region, service)
}

// upstreamURL is the base URL calls of service go to.
func upstreamURL(r *http.Request, t *Target, region, service string) string {
	if service == ServiceExecuteAPI && t.WebSocket != nil {
		return strings.TrimRight(t.WebSocket.Endpoint, "/")
	}
	if u := t.Endpoints[service]; u != "" {
		return strings.TrimRight(u, "/")
	}
	if t.Upstream != "" {
		return strings.TrimRight(t.Upstream, "/")
	}
	host := service
	switch {
	case service == "dynamodb" && strings.HasPrefix(r.Header.Get("X-Amz-Target"), "DynamoDBStreams"):
		host = "streams.dynamodb"
	case service == "ses":
		host = "email"
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://" + host + "." + region + "." + suffix
}

// dropped are the request headers not sent upstream: the signature's,
// which is made again, and the connection's.
var dropped = map[string]bool{"Authorization": true, "X-Amz-Date": true, "X-Amz-Security-Token": true,
	"Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true, "Expect": true,
	"Te": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true}

// forward signs r again with the real credentials and sends it upstream,
// copying the answer back.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, t *Target, path string, body []byte, region, service string) {
	fail := func(err error) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "framework local's IAM check could not send the call on: %v\n", err)
	}
	if path == "" {
		path = r.URL.EscapedPath()
	}
	u := upstreamURL(r, t, region, service) + path
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	var rd io.Reader = http.NoBody
	if len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u, rd)
	if err != nil {
		fail(err)
		return
	}
	for k, vs := range r.Header {
		if !dropped[k] {
			out.Header[k] = vs
		}
	}
	out.ContentLength = int64(len(body))
	hash := r.Header.Get("X-Amz-Content-Sha256")
	if hash == "" || strings.HasPrefix(hash, "STREAMING-AWS4-HMAC") {
		// A chunk-signed body cannot be signed again as it is: sent
		// whole, it is signed whole.
		s := sha256.Sum256(body)
		hash = hex.EncodeToString(s[:])
		if out.Header.Get("X-Amz-Content-Sha256") != "" {
			out.Header.Set("X-Amz-Content-Sha256", hash)
		}
	}
	if service == ServiceExecuteAPI {
		// The local WebSocket API knows the proxy by its token; it gets
		// no AWS credentials.
		if t.WebSocket == nil {
			fail(errors.New("the app runs no local WebSocket API"))
			return
		}
		out.Header.Set(ManagementTokenHeader, t.WebSocket.Token)
	} else {
		if t.Credentials == nil {
			fail(errors.New("no AWS credentials to send it with"))
			return
		}
		creds, err := t.Credentials(r.Context())
		if err != nil {
			fail(err)
			return
		}
		awscall.SignHash(out, hash, creds, region, service, time.Now())
	}
	resp, err := p.o.Client.Do(out)
	if err != nil {
		if errors.Is(r.Context().Err(), context.Canceled) {
			return
		}
		fail(err)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
