package localiam

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/framework-dev/framework/internal/awscall"
)

// checkPresigned refuses, as S3 does, a request to a presigned URL that
// expired or whose signature does not match (the URL altered, or signed
// with another secret than the proxy's); it reports whether r may go on.
func (p *Proxy) checkPresigned(w http.ResponseWriter, r *http.Request) bool {
	err := awscall.VerifyPresigned(r, p.secret, time.Now())
	switch {
	case err == nil:
		return true
	case errors.Is(err, awscall.ErrPresignExpired):
		writeS3Error(w, r, "AccessDenied", err.Error())
	case errors.Is(err, awscall.ErrPresignSignature):
		writeS3Error(w, r, "SignatureDoesNotMatch", err.Error()+" (framework local's IAM check: the presigned URL was altered, or not signed with this run's credentials)")
	default:
		writeS3Error(w, r, "AuthorizationQueryParametersError", err.Error())
	}
	return false
}

// writeS3Error answers r with S3's error document of code.
func writeS3Error(w http.ResponseWriter, r *http.Request, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("X-Amz-Request-Id", requestID())
	w.WriteHeader(http.StatusForbidden)
	if r.Method == http.MethodHead {
		return
	}
	b, _ := xml.Marshal(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string   `xml:"Code"`
		Message string   `xml:"Message"`
	}{Code: code, Message: msg})
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(b)
}

// isPreflight reports whether r is a browser's CORS preflight, which
// carries no signature (S3 answers it from the bucket's CORS rules).
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != "" && r.Header.Get("Authorization") == ""
}

// forwardPreflight sends the CORS preflight r to S3 as it came, unsigned
// (a browser about to use a presigned URL asks it), and copies the answer
// back: it asks no permission.
func (p *Proxy) forwardPreflight(w http.ResponseWriter, r *http.Request) {
	t := p.target.Load()
	u := upstreamURL(r, t, t.Env.Region, "s3") + r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	out, err := http.NewRequestWithContext(r.Context(), http.MethodOptions, u, http.NoBody)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for _, k := range []string{"Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"} {
		if v := r.Header.Get(k); v != "" {
			out.Header.Set(k, v)
		}
	}
	resp, err := p.o.Client.Do(out)
	if err != nil {
		http.Error(w, fmt.Sprintf("framework local's IAM check could not send the CORS preflight on: %v", err), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
