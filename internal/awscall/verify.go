package awscall

import (
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MaxSkew is how far a signed request's X-Amz-Date may be from the time
// it arrives, before or after: AWS refuses a request signed more than 15
// minutes earlier or later than its own clock.
const MaxSkew = 15 * time.Minute

// ErrSignature is VerifySigned's answer for a request whose signature does
// not match what the request is (altered, or signed with another secret);
// ErrRequestTime for one whose X-Amz-Date is more than MaxSkew from now.
var (
	ErrSignature   = ErrPresignSignature
	ErrRequestTime = errors.New("The difference between the request time and the current time is too large")
)

// Authorization is what a SigV4 Authorization header says.
type Authorization struct {
	// AccessKeyID is the key the request says it is signed with.
	AccessKeyID string
	// Day, Region and Service are the rest of its credential scope.
	Day, Region, Service string
	// SignedHeaders are the lower-case names of the signed headers.
	SignedHeaders []string
	// Signature is the hex signature.
	Signature string
}

// Scope is the credential scope after the key id: DAY/REGION/SERVICE/aws4_request.
func (a Authorization) Scope() string {
	return a.Day + "/" + a.Region + "/" + a.Service + "/aws4_request"
}

// ParseAuthorization reads a SigV4 Authorization header
// ("AWS4-HMAC-SHA256 Credential=KEY/DAY/REGION/SERVICE/aws4_request,
// SignedHeaders=a;b, Signature=HEX"). An error says what is malformed.
func ParseAuthorization(h string) (Authorization, error) {
	var a Authorization
	rest, ok := strings.CutPrefix(h, "AWS4-HMAC-SHA256 ")
	if !ok {
		return a, errors.New("the Authorization header is not AWS Signature Version 4 (AWS4-HMAC-SHA256)")
	}
	var cred, signed, sig string
	seen := 0
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			cred, seen = v, seen|1
		case "SignedHeaders":
			signed, seen = v, seen|2
		case "Signature":
			sig, seen = v, seen|4
		default:
			return a, errors.New("the Authorization header has an unknown component " + strconv.Quote(k))
		}
	}
	if seen != 7 {
		return a, errors.New("the Authorization header lacks its Credential, SignedHeaders or Signature")
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[0] == "" || parts[4] != "aws4_request" {
		return a, errors.New("the Authorization header's Credential is not KEY/DAY/REGION/SERVICE/aws4_request")
	}
	a.AccessKeyID, a.Day, a.Region, a.Service = parts[0], parts[1], parts[2], parts[3]
	a.SignedHeaders = strings.Split(signed, ";")
	a.Signature = sig
	if !slices.Contains(a.SignedHeaders, "host") {
		return a, errors.New("the Authorization header's SignedHeaders do not include host")
	}
	return a, nil
}

// VerifySigned checks the SigV4 signature a of r, as the service would:
// the canonical request made of r's method, path, query, the headers a
// names and payloadHash (the value of X-Amz-Content-Sha256 as the signer
// declared it, or the hex SHA-256 of the body when the request has no such
// header), signed with secret, the secret key of a.AccessKeyID, at the
// time X-Amz-Date says. It returns ErrRequestTime when that time is more
// than MaxSkew from now, ErrSignature when the signature does not match,
// another error when the request is malformed. The path is taken as S3
// signs it (as sent) for s3, and escaped once more for the other services,
// as the AWS SDKs sign them; a signature over the path as sent is accepted
// too (this package's Sign).
func VerifySigned(r *http.Request, a Authorization, secret, payloadHash string, now time.Time) error {
	date := r.Header.Get("X-Amz-Date")
	when, err := time.Parse(amzDate, date)
	if err != nil {
		return errors.New("the request has no valid X-Amz-Date header")
	}
	if d := now.Sub(when); d > MaxSkew || d < -MaxSkew {
		return ErrRequestTime
	}
	if a.Day != when.Format("20060102") {
		return ErrSignature
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		return errors.New("the request's query is malformed: " + err.Error())
	}
	var ch strings.Builder
	for _, n := range a.SignedHeaders {
		ch.WriteString(n)
		ch.WriteByte(':')
		switch n {
		case "host":
			host := r.Host
			if host == "" {
				host = r.URL.Host
			}
			ch.WriteString(strings.Join(strings.Fields(host), " "))
		case "content-length":
			v := r.Header.Get("Content-Length")
			if v == "" && r.ContentLength >= 0 {
				v = strconv.FormatInt(r.ContentLength, 10)
			}
			ch.WriteString(v)
		default:
			for i, v := range r.Header.Values(n) {
				if i > 0 {
					ch.WriteByte(',')
				}
				ch.WriteString(strings.Join(strings.Fields(v), " "))
			}
		}
		ch.WriteByte('\n')
	}
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	key := signingKey(secret, a.Day, a.Region, a.Service)
	sign := func(path string) string {
		canonical := strings.Join([]string{r.Method, path, canonicalQuery(r.URL), ch.String(), strings.Join(a.SignedHeaders, ";"), payloadHash}, "\n")
		toSign := "AWS4-HMAC-SHA256\n" + date + "\n" + a.Scope() + "\n" + hexSHA256([]byte(canonical))
		return hex.EncodeToString(hmacSHA256(key, []byte(toSign)))
	}
	if hmac.Equal([]byte(a.Signature), []byte(sign(path))) {
		return nil
	}
	if a.Service != "s3" {
		if again := escapePath(path); again != path && hmac.Equal([]byte(a.Signature), []byte(sign(again))) {
			return nil
		}
	}
	return ErrSignature
}

// escapePath percent-encodes every byte of an already escaped path but
// the unreserved characters and /, as the SDKs do to the paths they sign
// for every service but S3.
func escapePath(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = uriEncode(s)
	}
	return strings.Join(segs, "/")
}

// IsHexSHA256 reports whether s is a payload hash as SigV4 writes it: 64
// lower-case hex digits.
func IsHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
