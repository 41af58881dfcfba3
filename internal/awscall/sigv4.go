package awscall

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Credentials are the AWS credentials a request is signed with.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
	// SessionToken is set for temporary credentials (Lambda's role, an
	// assumed role); it is sent as X-Amz-Security-Token.
	SessionToken string
}

const amzDate = "20060102T150405Z"

// Sign signs req with Signature Version 4 for service in region at time
// now: it sets X-Amz-Date, X-Amz-Security-Token when the credentials have
// a session token, and Authorization. body is the request's payload; Host
// and every header already on req but User-Agent are signed.
func Sign(req *http.Request, body []byte, creds Credentials, region, service string, now time.Time) {
	SignHash(req, hexSHA256(body), creds, region, service, now)
}

// SignHash is Sign with the payload given by its hash as SigV4's canonical
// request has it: the hex SHA-256 of the body, or what the request's
// X-Amz-Content-Sha256 says instead (UNSIGNED-PAYLOAD for S3 over TLS).
func SignHash(req *http.Request, payloadHash string, creds Credentials, region, service string, now time.Time) {
	now = now.UTC()
	req.Header.Set("X-Amz-Date", now.Format(amzDate))
	if creds.SessionToken != "" {
		req.Header.Set("X-Amz-Security-Token", creds.SessionToken)
	}
	canonical, signed := canonicalRequest(req, payloadHash)
	day := now.Format("20060102")
	scope := day + "/" + region + "/" + service + "/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + now.Format(amzDate) + "\n" + scope + "\n" + hexSHA256([]byte(canonical))
	key := signingKey(creds.SecretAccessKey, day, region, service)
	sig := hex.EncodeToString(hmacSHA256(key, []byte(toSign)))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+creds.AccessKeyID+"/"+scope+
		", SignedHeaders="+signed+", Signature="+sig)
}

// canonicalRequest returns SigV4's canonical request of req and its list of
// signed headers.
func canonicalRequest(req *http.Request, payloadHash string) (string, string) {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	headers := map[string][]string{"host": {host}}
	for k, vs := range req.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || lk == "user-agent" {
			continue
		}
		for _, v := range vs {
			headers[lk] = append(headers[lk], strings.Join(strings.Fields(v), " "))
		}
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	slices.Sort(names)
	var ch strings.Builder
	for _, k := range names {
		ch.WriteString(k + ":" + strings.Join(headers[k], ",") + "\n")
	}
	signed := strings.Join(names, ";")
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	return strings.Join([]string{req.Method, path, canonicalQuery(req.URL), ch.String(), signed, payloadHash}, "\n"), signed
}

// canonicalQuery sorts the query's parameters by name, then value, each
// percent-encoded as SigV4 requires.
func canonicalQuery(u *url.URL) string {
	q := u.Query()
	var pairs []string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, uriEncode(k)+"="+uriEncode(v))
		}
	}
	slices.Sort(pairs)
	return strings.Join(pairs, "&")
}

// uriEncode percent-encodes every byte but the unreserved characters.
func uriEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

// signingKey derives SigV4's signing key of a day, region and service.
// The key changes once a day, and a process signs with few credentials
// (the local IAM check's proxy verifies and signs every call), so the
// keys are kept: four HMACs a call were a good part of the proxy's cost.
func signingKey(secret, day, region, service string) []byte {
	id := secret + "\x00" + day + "\x00" + region + "\x00" + service
	if k, ok := signingKeys.Load(id); ok {
		return k.([]byte)
	}
	k := hmacSHA256([]byte("AWS4"+secret), []byte(day))
	k = hmacSHA256(k, []byte(region))
	k = hmacSHA256(k, []byte(service))
	k = hmacSHA256(k, []byte("aws4_request"))
	if signingKeyCount.Add(1) > maxSigningKeys {
		// Credentials that rotate, days that pass: start afresh rather
		// than grow without end.
		signingKeys.Clear()
		signingKeyCount.Store(1)
	}
	signingKeys.Store(id, k)
	return k
}

// signingKeys are the derived keys by secret, day, region and service.
var (
	signingKeys     sync.Map
	signingKeyCount atomic.Int64
)

const maxSigningKeys = 1024

func hmacSHA256(key, data []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
