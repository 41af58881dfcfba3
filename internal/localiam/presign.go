package localiam

import (
	"fmt"
	"io"
	"net/http"
)

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
