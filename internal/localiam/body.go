package localiam

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"strconv"
)

// maxReadBody is the largest body the proxy reads whole: the bodies of
// the JSON and query services and of S3's DeleteObjects, which the check
// reads or the signature covers without a declared hash. DynamoDB's
// largest requests (BatchWriteItem, TransactWriteItems) stay under 16 MB;
// SQS's and SNS's under 1 MB and 256 KB. Larger ones are refused.
const maxReadBody = 24 << 20

// readCapped reads r's body whole, refusing one over maxReadBody.
func readCapped(r *http.Request) ([]byte, *authError) {
	tooLarge := &authError{kind: errTooLarge, awsMsg: "Request entity too large",
		why: "its body is larger than the " + strconv.Itoa(maxReadBody>>20) + " MiB the check reads whole (only S3 object uploads are streamed)"}
	if r.ContentLength > maxReadBody {
		return nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReadBody+1))
	if err != nil {
		return nil, &authError{kind: errMalformed, awsMsg: "The request body could not be read.", why: "its body could not be read: " + err.Error()}
	}
	if len(body) > maxReadBody {
		return nil, tooLarge
	}
	return body, nil
}

// streamed reports whether the body of r, a call signed for service, is
// sent upstream as it comes rather than read first: S3's (object uploads
// and parts, which the check does not read) but DeleteObjects', whose keys
// it checks.
func streamed(r *http.Request, service string) bool {
	return service == "s3" && !(r.Method == http.MethodPost && r.URL.Query().Has("delete"))
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// errBodyMismatch is the upstream request's error when the body streamed
// does not hash to its signed X-Amz-Content-Sha256.
var errBodyMismatch = errors.New("the body does not match its signed X-Amz-Content-Sha256")

// verifyingReader passes a body on while hashing it, and holds back its
// last byte until the end: only when the whole body hashes to want does
// the last byte go, with io.EOF; otherwise the read fails with
// errBodyMismatch, so the upstream request never has the whole body and
// fails, whatever its length says.
type verifyingReader struct {
	r        io.Reader
	h        hash.Hash
	want     []byte
	held     byte
	holding  bool
	err      error
	mismatch bool
}

func newVerifyingReader(r io.Reader, wantHex string) *verifyingReader {
	want, _ := hex.DecodeString(wantHex)
	return &verifyingReader{r: r, h: sha256.New(), want: want}
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n := 0
		if v.holding {
			p[0] = v.held
			n = 1
		}
		m, err := v.r.Read(p[n:])
		v.h.Write(p[n : n+m])
		n += m
		switch {
		case err == io.EOF:
			if !bytes.Equal(v.h.Sum(nil), v.want) {
				v.mismatch, v.err = true, errBodyMismatch
				return 0, v.err
			}
			v.holding, v.err = false, io.EOF
			return n, io.EOF
		case err != nil:
			// The caller's connection failed: what came is not all.
			v.err = err
			return 0, err
		case n == 0:
			continue
		}
		v.held, v.holding = p[n-1], true
		if n > 1 {
			return n - 1, nil
		}
		if len(p) == 1 {
			// No room to pass a byte and hold one: read on into the
			// held byte's place next time.
			return 0, nil
		}
	}
}
