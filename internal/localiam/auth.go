package localiam

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
)

// identity is one function's credentials, made for one Proxy.
type identity struct {
	function, key, secret string
}

// Unauthenticated reports a call refused before any IAM check, and not
// sent on: unsigned, badly signed, signed too long ago, a presigned URL
// past its expiry or altered, or signed with an access key that is no
// function's of this run.
type Unauthenticated struct {
	// Function is the function whose access key signed the call; "" when
	// the key is no function's, or the call names none.
	Function string
	// KeyID is the access key id the call names ("" when none). It is
	// not secret: presigned URLs carry it.
	KeyID string
	// Service is the service the call is signed for, when it says.
	Service string
	// Why says what was wrong.
	Why string
}

// Line is the log line of u.
func (u Unauthenticated) Line() string {
	who := "an unsigned call"
	switch {
	case u.Function != "":
		who = "a call signed as function " + u.Function
	case u.KeyID != "":
		who = "a call signed with access key " + u.KeyID + ", which is no function's of this run,"
	}
	if u.Service != "" {
		who += " to " + u.Service
	}
	return "IAM: " + who + " was refused and not sent on: " + u.Why +
		"; only a function's process may call through the check, signing with the credentials it gets in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (--no-iam-check lets every call through unchecked)"
}

// authError is why authenticate refused a request: its kind for the
// service's error code, the service's own message, and why for the log
// line and the message's end.
type authError struct {
	kind     errKind
	function string
	key      string
	service  string
	awsMsg   string
	why      string
}

// The services' own messages of the refusals.
const (
	msgUnknownKey   = "The security token included in the request is invalid."
	msgMissingAuth  = "Request is missing Authentication Token"
	msgSignature    = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."
	msgRequestTime  = "The difference between the request time and the current time is too large."
	msgHashMismatch = "The provided 'x-amz-content-sha256' header does not match what was computed."
)

// payload hashes of X-Amz-Content-Sha256 other than a hex SHA-256.
const (
	unsignedPayload          = "UNSIGNED-PAYLOAD"
	streamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
)

// authenticated is a request whose signature the proxy verified.
type authenticated struct {
	id              *identity
	region, service string
	// hash is the payload hash the signature covers and the call is
	// signed again with: X-Amz-Content-Sha256 as declared, the hex
	// SHA-256 of body, or UNSIGNED-PAYLOAD for a presigned URL.
	hash string
	// body is the request's body when it had to be read to verify the
	// signature (a request without X-Amz-Content-Sha256).
	body     []byte
	haveBody bool
}

// authenticate verifies r's SigV4 signature, in its Authorization header
// or its query (a presigned URL), with the secret of the function whose
// access key it names, at now. A presigned URL's signature is removed
// from r, which is then signed again in headers.
func (p *Proxy) authenticate(r *http.Request, now time.Time) (*authenticated, *authError) {
	header := r.Header.Get("Authorization")
	q, qerr := url.ParseQuery(r.URL.RawQuery)
	presigned := header == "" && (q.Has("X-Amz-Credential") || q.Has("X-Amz-Signature") || q.Has("X-Amz-Algorithm"))
	if header == "" && !presigned {
		return nil, &authError{kind: errMissingAuth, awsMsg: msgMissingAuth, why: "the request is not signed"}
	}
	var a awscall.Authorization
	if presigned {
		if qerr != nil {
			return nil, &authError{kind: errMalformed, awsMsg: "The query string is malformed.", why: "the presigned URL's query is malformed"}
		}
		cred := strings.Split(q.Get("X-Amz-Credential"), "/")
		if len(cred) != 5 || cred[4] != "aws4_request" {
			return nil, &authError{kind: errMalformed, awsMsg: "Error parsing the X-Amz-Credential parameter.", why: "the presigned URL's X-Amz-Credential is not KEY/DAY/REGION/SERVICE/aws4_request"}
		}
		a = awscall.Authorization{AccessKeyID: cred[0], Day: cred[1], Region: cred[2], Service: cred[3]}
	} else {
		var err error
		if a, err = awscall.ParseAuthorization(header); err != nil {
			return nil, &authError{kind: errMalformed, key: a.AccessKeyID, service: a.Service, awsMsg: "The request signature does not conform to AWS standards.", why: err.Error()}
		}
	}
	p.mu.Lock()
	id := p.keys[a.AccessKeyID]
	p.mu.Unlock()
	fail := func(kind errKind, awsMsg, why string) (*authenticated, *authError) {
		e := &authError{kind: kind, key: a.AccessKeyID, service: a.Service, awsMsg: awsMsg, why: why}
		if id != nil {
			e.function = id.function
		}
		return nil, e
	}
	if id == nil {
		return fail(errUnknownKey, msgUnknownKey, "the access key is not one this run gave a function")
	}
	declared := r.Header.Get("X-Amz-Content-Sha256")
	switch {
	case declared == "", declared == unsignedPayload, declared == streamingUnsignedTrailer, awscall.IsHexSHA256(declared):
	case strings.HasPrefix(declared, "STREAMING-"):
		// Chunk-signed bodies (STREAMING-AWS4-HMAC-SHA256-PAYLOAD) are
		// refused rather than verified chunk by chunk: the AWS SDK for
		// Go v2 does not send them (it signs the payload's hash, or sends
		// it unsigned with a trailing checksum).
		return fail(errNotImplemented, "A header you provided implies functionality that is not implemented.",
			"its body is chunk-signed ("+declared+"), which the check does not verify: sign the payload's SHA-256 or UNSIGNED-PAYLOAD instead")
	default:
		return fail(errMalformed, "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, or a valid sha256 value.",
			"its X-Amz-Content-Sha256 is neither a hex SHA-256 nor a payload hash SigV4 defines")
	}
	out := &authenticated{id: id, region: a.Region, service: a.Service, hash: declared}
	if presigned {
		switch err := awscall.VerifyPresigned(r, id.secret, now); {
		case errors.Is(err, awscall.ErrPresignExpired):
			return fail(errPresignExpired, "Request has expired", "the presigned URL expired")
		case errors.Is(err, awscall.ErrRequestTime):
			return fail(errRequestTime, msgRequestTime, "the presigned URL is dated more than 15 minutes in the future")
		case errors.Is(err, awscall.ErrPresignSignature):
			return fail(errSignature, msgSignature, "the presigned URL's signature does not match it (the URL was altered, or not signed with the function's secret)")
		case err != nil:
			return fail(errMalformed, "Query-string authentication requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.", err.Error())
		}
		stripPresign(r)
		out.hash = r.Header.Get("X-Amz-Content-Sha256")
		return out, nil
	}
	if declared == "" {
		// The JSON and query services sign the body's hash without
		// sending it: the body is read to verify the signature.
		body, kerr := readCapped(r)
		if kerr != nil {
			kerr.function, kerr.key, kerr.service = id.function, a.AccessKeyID, a.Service
			return nil, kerr
		}
		out.body, out.haveBody, out.hash = body, true, sha256Hex(body)
	}
	switch err := awscall.VerifySigned(r, a, id.secret, out.hash, now); {
	case errors.Is(err, awscall.ErrRequestTime):
		return fail(errRequestTime, msgRequestTime, "its X-Amz-Date "+r.Header.Get("X-Amz-Date")+" is more than 15 minutes from now")
	case errors.Is(err, awscall.ErrSignature):
		return fail(errSignature, msgSignature, "its signature does not match the request (altered, or not signed with the function's secret)")
	case err != nil:
		return fail(errMalformed, "The request signature does not conform to AWS standards.", err.Error())
	}
	return out, nil
}

// refuseUnauthenticated answers r with e in the shape of its service and
// reports it.
func (p *Proxy) refuseUnauthenticated(w http.ResponseWriter, r *http.Request, e *authError) {
	service := e.service
	if service == "" {
		service = serviceOf(r)
	}
	writeError(w, r, protocolOf(r, service), e.kind, e.awsMsg+" (framework local's IAM check: "+e.why+")")
	if p.o.Unauthenticated != nil {
		p.o.Unauthenticated(Unauthenticated{Function: e.function, KeyID: e.key, Service: e.service, Why: e.why})
	}
}

// serviceOf guesses the service of an unsigned request for its error's
// shape: X-Amz-Target's prefix, else S3's.
func serviceOf(r *http.Request) string {
	if prefix, _ := target(r); prefix != "" {
		switch {
		case strings.HasPrefix(prefix, "AmazonSQS"):
			return "sqs"
		}
		return "json"
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || r.URL.Query().Has("Action") {
		return "query"
	}
	return "s3"
}
