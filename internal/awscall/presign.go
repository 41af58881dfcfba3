package awscall

import (
	"context"
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxPresignExpiry is the longest validity SigV4 allows a presigned URL.
const MaxPresignExpiry = 7 * 24 * time.Hour

// ErrPresignExpired and ErrPresignSignature are VerifyPresigned's
// answers for a URL past its expiry and for one whose signature does not
// match (tampered with, or signed with another secret).
var (
	ErrPresignExpired   = errors.New("Request has expired")
	ErrPresignSignature = errors.New("The request signature we calculated does not match the signature you provided")
)

// PresignS3 returns a URL that lets whoever holds it send method (GET,
// PUT, ...) on the object key of bucket for expires, signed with the
// configuration's credentials (SigV4 in the query string, the payload
// unsigned as S3 allows). The URL is path style at the configured
// endpoint (AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL: an emulator, or
// framework local's IAM check) and virtual-host style at S3's regional
// endpoint otherwise. With temporary credentials (a Lambda function's
// role) the URL stops working when they expire, even before expires.
func (c Config) PresignS3(ctx context.Context, method, bucket, key string, expires time.Duration) (string, error) {
	if expires < time.Second || expires > MaxPresignExpiry {
		return "", fmt.Errorf("presign: expiry %v is out of range: use 1 s to 7 days", expires)
	}
	if bucket == "" || key == "" {
		return "", errors.New("presign: no bucket or no key")
	}
	if c.Region == "" {
		return "", errors.New("presign: no AWS region: set AWS_REGION")
	}
	creds, err := c.CurrentCredentials(ctx)
	if err != nil {
		return "", fmt.Errorf("presign: %w", err)
	}
	path := "/" + s3KeyPath(key)
	var base string
	switch ep := c.s3Endpoint(); {
	case ep != "":
		base = strings.TrimRight(ep, "/")
		path = "/" + uriEncode(bucket) + path
	default:
		suffix := "amazonaws.com"
		if strings.HasPrefix(c.Region, "cn-") {
			suffix = "amazonaws.com.cn"
		}
		base = "https://" + bucket + ".s3." + c.Region + "." + suffix
	}
	u, err := url.Parse(base + path)
	if err != nil {
		return "", fmt.Errorf("presign: endpoint %q: %w", base, err)
	}
	return Presign(method, u, creds, c.Region, "s3", c.now(), expires), nil
}

// s3Endpoint is the endpoint S3 is called at when one is configured.
func (c Config) s3Endpoint() string {
	if u := c.Endpoints["s3"]; u != "" {
		return u
	}
	return c.Endpoint
}

// s3KeyPath percent-encodes an object key for a URL's path, its slashes
// kept.
func s3KeyPath(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = uriEncode(p)
	}
	return strings.Join(parts, "/")
}

// Presign returns u (its path already percent-encoded as it is to be
// sent) presigned for method: the X-Amz-* query parameters of SigV4 with
// the host as the only signed header and an unsigned payload, valid for
// expires from now.
func Presign(method string, u *url.URL, creds Credentials, region, service string, now time.Time, expires time.Duration) string {
	now = now.UTC()
	day := now.Format("20060102")
	scope := day + "/" + region + "/" + service + "/aws4_request"
	q := u.Query()
	q.Set("X-Amz-Algorithm", "AWS4-HMAC-SHA256")
	q.Set("X-Amz-Credential", creds.AccessKeyID+"/"+scope)
	q.Set("X-Amz-Date", now.Format(amzDate))
	q.Set("X-Amz-Expires", strconv.Itoa(int(expires/time.Second)))
	q.Set("X-Amz-SignedHeaders", "host")
	if creds.SessionToken != "" {
		q.Set("X-Amz-Security-Token", creds.SessionToken)
	}
	v := *u
	v.RawQuery = canonicalQueryOf(q)
	sig := presignSignature(method, &v, map[string]string{"host": u.Host}, []string{"host"}, creds.SecretAccessKey, scope, now)
	return v.String() + "&X-Amz-Signature=" + sig
}

// presignSignature is the signature of a presigned request to u (its
// query without X-Amz-Signature) whose signed headers are names, of
// values headers.
func presignSignature(method string, u *url.URL, headers map[string]string, names []string, secret, scope string, now time.Time) string {
	var ch strings.Builder
	for _, n := range names {
		ch.WriteString(n + ":" + strings.Join(strings.Fields(headers[n]), " ") + "\n")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	canonical := strings.Join([]string{method, path, canonicalQuery(u), ch.String(), strings.Join(names, ";"), "UNSIGNED-PAYLOAD"}, "\n")
	toSign := "AWS4-HMAC-SHA256\n" + now.Format(amzDate) + "\n" + scope + "\n" + hexSHA256([]byte(canonical))
	parts := strings.Split(scope, "/")
	key := signingKey(secret, parts[0], parts[1], parts[2])
	return hex.EncodeToString(hmacSHA256(key, []byte(toSign)))
}

// canonicalQueryOf encodes q as canonicalQuery orders it.
func canonicalQueryOf(q url.Values) string {
	return canonicalQuery(&url.URL{RawQuery: q.Encode()})
}

// VerifyPresigned checks the query-string signature of r, a request to a
// presigned URL, as the service would: with secret (the secret key of the
// access key in its X-Amz-Credential) and at now. It returns
// ErrPresignExpired past the URL's expiry, ErrRequestTime when it is
// signed more than MaxSkew in the future, ErrPresignSignature when the
// signature does not match what r is (method, path, query, signed
// headers), another error when the URL is not a presigned one or its
// expiry is longer than SigV4 allows.
func VerifyPresigned(r *http.Request, secret string, now time.Time) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errors.New("the presigned URL's query is malformed: " + err.Error())
	}
	if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" {
		return errors.New("not a SigV4 presigned URL")
	}
	cred := strings.SplitN(q.Get("X-Amz-Credential"), "/", 2)
	when, err := time.Parse(amzDate, q.Get("X-Amz-Date"))
	secs, err2 := strconv.Atoi(q.Get("X-Amz-Expires"))
	if len(cred) != 2 || strings.Count(cred[1], "/") != 3 || err != nil || err2 != nil || secs < 1 {
		return errors.New("the presigned URL's X-Amz-Credential, X-Amz-Date or X-Amz-Expires is malformed")
	}
	if secs > int(MaxPresignExpiry/time.Second) {
		return errors.New("the presigned URL's X-Amz-Expires is more than 7 days (604800 seconds)")
	}
	if now.After(when.Add(time.Duration(secs) * time.Second)) {
		return ErrPresignExpired
	}
	if when.Sub(now) > MaxSkew {
		return ErrRequestTime
	}
	if !strings.HasPrefix(cred[1], when.UTC().Format("20060102")+"/") {
		return ErrPresignSignature
	}
	names := strings.Split(strings.ToLower(q.Get("X-Amz-SignedHeaders")), ";")
	if !slices.Contains(names, "host") {
		return ErrPresignSignature
	}
	headers := map[string]string{}
	for _, n := range names {
		if n == "host" {
			headers[n] = r.Host
			if headers[n] == "" {
				headers[n] = r.URL.Host
			}
			continue
		}
		headers[n] = strings.Join(r.Header.Values(n), ",")
	}
	got := q.Get("X-Amz-Signature")
	q.Del("X-Amz-Signature")
	u := *r.URL
	u.RawQuery = q.Encode()
	want := presignSignature(r.Method, &u, headers, names, secret, cred[1], when.UTC())
	if !hmac.Equal([]byte(got), []byte(want)) {
		return ErrPresignSignature
	}
	return nil
}
