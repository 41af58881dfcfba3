package localiam

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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
	// Policies are the functions' statements; with none, every call is
	// refused (the check fails closed), NoPolicies saying why.
	Policies Policies
	// NoPolicies says why Policies is nil, for the refusals' line.
	NoPolicies string
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
	// Unauthenticated, when set, is told of every call refused before
	// any check: unsigned, badly signed, expired, or signed with an access
	// key that is no function's.
	Unauthenticated func(Unauthenticated)
	// Unmodeled, when set, is told of a call refused because the check
	// cannot classify it, once per function, service, operation and
	// reason until the target changes.
	Unmodeled func(function string, u *Unmodeled)
	// NoPolicy, when set, is told of a call refused because there is no
	// policy to check it against (why says why), once per function and
	// reason until the target changes.
	NoPolicy func(function, why string)
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

	mu       sync.Mutex
	keys     map[string]*identity // by access key id
	byFunc   map[string]*identity // by function
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
	p := &Proxy{URL: "http://" + ln.Addr().String(), o: o, ln: ln, done: make(chan struct{}),
		keys: map[string]*identity{}, byFunc: map[string]*identity{}, reported: map[string]bool{}}
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
	p.mu.Lock()
	clear(p.reported)
	p.mu.Unlock()
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
// endpoint, and credentials of the function's own, an access key id and
// a secret key made for it when the proxy first names it and the same on
// every call after (so that warm processes are reused); the proxy
// verifies each call's signature with that secret. It wins over the
// variables before it; nil for a nil proxy.
func (p *Proxy) Environ(function string) []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	id, ok := p.byFunc[function]
	if !ok {
		id = &identity{function: function, key: "FWLOCAL" + randomHex(8), secret: randomHex(20)}
		p.byFunc[function], p.keys[id.key] = id, id
	}
	p.mu.Unlock()
	return []string{"AWS_ENDPOINT_URL=" + p.URL, "AWS_ACCESS_KEY_ID=" + id.key, "AWS_SECRET_ACCESS_KEY=" + id.secret,
		"AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_CONTAINER_CREDENTIALS_FULL_URI=", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN=", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="}
}

// serviceEnvIDs are the AWS_ENDPOINT_URL_<ID> of the services the proxy
// checks, by signing name.
var serviceEnvIDs = map[string]string{"dynamodb": "DYNAMODB", "sqs": "SQS", "sns": "SNS", "s3": "S3", "secretsmanager": "SECRETS_MANAGER", "ssm": "SSM"}

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

// ServeHTTP checks one call and refuses it or sends it upstream: its
// signature first (authenticate), then what it does (Classify) against
// the policy of the function that signed it. It fails closed: a call it
// cannot authenticate, classify or find a policy for is refused, and
// nothing of it is sent on.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isPreflight(r) {
		p.forwardPreflight(w, r)
		return
	}
	a, aerr := p.authenticate(r, time.Now())
	if aerr != nil {
		p.refuseUnauthenticated(w, r, aerr)
		return
	}
	function, service := a.id.function, a.service
	body := a.body
	var stream io.Reader
	var verifier *verifyingReader
	switch {
	case a.haveBody:
	case streamed(r, service):
		stream = r.Body
		if awscall.IsHexSHA256(a.hash) {
			verifier = newVerifyingReader(r.Body, a.hash)
			stream = verifier
		}
	default:
		var kerr *authError
		if body, kerr = readCapped(r); kerr == nil && awscall.IsHexSHA256(a.hash) && sha256Hex(body) != a.hash {
			kerr = &authError{kind: errHashMismatch, awsMsg: msgHashMismatch, why: errBodyMismatch.Error()}
		}
		if kerr != nil {
			kerr.function, kerr.key, kerr.service = function, a.id.key, service
			p.refuseUnauthenticated(w, r, kerr)
			return
		}
	}
	t := p.target.Load()
	c, err := Classify(r, body, service, t.Env)
	var um *Unmodeled
	known := false
	if t.Policies != nil {
		_, known = t.Policies.Allows(function, "", "")
	}
	switch {
	case t.Policies == nil:
		p.refuseNoPolicy(w, r, service, function, t.NoPolicies)
		return
	case !known:
		p.refuseNoPolicy(w, r, service, function, "the policies know no function named "+function)
		return
	case errors.As(err, &um):
		if um.Operation == "" && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			// The query protocol's operation, in a form body (IAM, STS).
			if q, err := url.ParseQuery(string(body)); err == nil {
				um.Operation = q.Get("Action")
			}
		}
		p.refuseUnmodeled(w, r, function, um)
		return
	case err != nil:
		p.refuseUnmodeled(w, r, function, &Unmodeled{Service: service, Operation: c.Operation, Why: err.Error()})
		return
	}
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
	out := upstreamBody{hash: a.hash, verifier: verifier}
	switch {
	case stream != nil:
		out.r, out.length = stream, r.ContentLength
	case len(body) > 0:
		out.r, out.length = bytes.NewReader(body), int64(len(body))
	}
	if err := p.forward(w, r, t, c, out, a.region, service); errors.Is(err, errBodyMismatch) {
		p.refuseUnauthenticated(w, r, &authError{kind: errHashMismatch, function: function, key: a.id.key, service: service, awsMsg: msgHashMismatch,
			why: errBodyMismatch.Error() + " (the upload was cut off before its end, so the emulator or AWS did not take it)"})
	}
}

// noPolicyHelp is what a refusal for want of a policy says to do.
const noPolicyHelp = "framework local's IAM check refuses the calls it has no policy to check against; --no-iam-check lets every call through unchecked"

// refuseNoPolicy refuses a call of function for want of a policy, why
// saying why, and reports it.
func (p *Proxy) refuseNoPolicy(w http.ResponseWriter, r *http.Request, service, function, why string) {
	if why == "" {
		why = "there are no policies to check the calls against"
	}
	writeError(w, r, protocolOf(r, service), errDenied, "User: function "+function+" (framework local) is not authorized: "+why+" ("+noPolicyHelp+")")
	if p.o.NoPolicy != nil && p.once("nopolicy "+function+" "+why) {
		p.o.NoPolicy(function, why)
	}
}

// refuseUnmodeled refuses a call of function the check cannot classify,
// and reports it.
func (p *Proxy) refuseUnmodeled(w http.ResponseWriter, r *http.Request, function string, u *Unmodeled) {
	op := u.Operation
	if op == "" {
		op = "(operation unknown)"
	}
	writeError(w, r, protocolOf(r, u.Service), errDenied, "User: function "+function+" (framework local) is not authorized to call "+u.Service+" "+op+
		": the IAM check cannot check it ("+u.Why+"), and refuses what it cannot check; --no-iam-check lets every call through unchecked")
	if p.o.Unmodeled != nil && p.once("unmodeled "+function+" "+u.Service+" "+u.Operation+" "+u.Why) {
		p.o.Unmodeled(function, u)
	}
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

// upstreamBody is the body a call is sent upstream with: r (nil for
// none) of length bytes (-1 when unknown), signed with hash; verifier,
// when set, is r checking the body against its signed hash.
type upstreamBody struct {
	r        io.Reader
	length   int64
	hash     string
	verifier *verifyingReader
}

// forward signs r, checked as c, again with the real credentials and
// sends it upstream with body, copying the answer back: streamed as it
// comes, or, for the few small answers that name the upstream's address
// (answerRewrite), read whole and rewritten to name the proxy's. Its
// error is errBodyMismatch, with nothing written, when the streamed body
// did not match its signed hash.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, t *Target, c Call, body upstreamBody, region, service string) error {
	fail := func(err error) error {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "framework local's IAM check could not send the call on: %v\n", err)
		return nil
	}
	path := c.Path
	if path == "" {
		path = r.URL.EscapedPath()
	}
	base := upstreamURL(r, t, region, service)
	rewrite := p.answerRewrite(t, c, base)
	u := base + path
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	var rd io.Reader = http.NoBody
	if body.r != nil && body.length != 0 {
		rd = body.r
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u, rd)
	if err != nil {
		return fail(err)
	}
	for k, vs := range r.Header {
		if !dropped[k] {
			out.Header[k] = vs
		}
	}
	out.ContentLength = 0
	if rd != http.NoBody {
		out.ContentLength = body.length
	}
	if service == ServiceExecuteAPI {
		// The local WebSocket API knows the proxy by its token; it gets
		// no AWS credentials.
		if t.WebSocket == nil {
			return fail(errors.New("the app runs no local WebSocket API"))
		}
		out.Header.Set(ManagementTokenHeader, t.WebSocket.Token)
	} else {
		if rewrite != nil {
			// An answer the proxy rewrites comes as it is to be read.
			out.Header.Set("Accept-Encoding", "identity")
		}
		if t.Credentials == nil {
			return fail(errors.New("no AWS credentials to send it with"))
		}
		creds, err := t.Credentials(r.Context())
		if err != nil {
			return fail(err)
		}
		// Signed with the payload hash the function signed (verified as
		// the body passes when it is a hash), or that of the body it sent.
		awscall.SignHash(out, body.hash, creds, region, service, time.Now())
	}
	resp, err := p.o.Client.Do(out)
	if body.verifier != nil && body.verifier.mismatch {
		if err == nil {
			resp.Body.Close()
		}
		return errBodyMismatch
	}
	if err != nil {
		if errors.Is(r.Context().Err(), context.Canceled) {
			return nil
		}
		return fail(err)
	}
	defer resp.Body.Close()
	var answer io.Reader = resp.Body
	if rewrite != nil && resp.StatusCode/100 == 2 {
		b, err := rewrite.rewrite(resp)
		if err != nil {
			// The call was made; what it answered is not passed on.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "framework local's IAM check sent %s %s on but cannot pass its answer back: %v\n", service, c.Operation, err)
			return nil
		}
		answer = bytes.NewReader(b)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, answer)
	return nil
}
