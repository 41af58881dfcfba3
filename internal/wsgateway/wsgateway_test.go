package wsgateway

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/framework-dev/framework/internal/manifest"
)

// TestDecide: an authorizer's answer decides as API Gateway reads it:
// "Unauthorized" is 401, a Deny or an unreadable answer 403, another
// error 500; an Allow passes principalId and the context on as strings.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		payload, err string
		status       int
	}{
		{"", "errorString: Unauthorized", 401},
		{"", "errorString: boom", 500},
		{`{"principalId":"u","policyDocument":{"Statement":[{"Effect":"Deny"}]}}`, "", 403},
		{`not json`, "", 403},
	} {
		if ok, _, status := Decide([]byte(tc.payload), tc.err); ok || status != tc.status {
			t.Errorf("%q %q: allowed %v, status %d, want %d", tc.payload, tc.err, ok, status, tc.status)
		}
	}
	ok, passed, _ := Decide([]byte(`{"principalId":"u","policyDocument":{"Statement":[{"Effect":"Allow"}]},"context":{"n":3,"b":true}}`), "")
	if !ok || passed["principalId"] != "u" || passed["n"] != "3" || passed["b"] != "true" {
		t.Errorf("allow: %v %v", ok, passed)
	}
}

// TestIdentityMissing: a handshake without an identity source (or the
// token header, for a token authorizer) is refused before the authorizer.
func TestIdentityMissing(t *testing.T) {
	req := &manifest.Authorizer{Name: "z", IdentitySources: []string{"query.token", "header.X-Team"}}
	h, q := http.Header{"X-Team": {"a"}}, url.Values{"token": {"t"}}
	if IdentityMissing(req, h, q) {
		t.Error("both sources given: missing")
	}
	if !IdentityMissing(req, h, url.Values{"token": {""}}) || !IdentityMissing(req, http.Header{}, q) {
		t.Error("a source missing: not missing")
	}
	tok := &manifest.Authorizer{Name: "z", Header: "Authorization"}
	if !IdentityMissing(tok, http.Header{}, nil) || IdentityMissing(tok, http.Header{"Authorization": {"x"}}, nil) {
		t.Error("token header: wrong answer")
	}
}
