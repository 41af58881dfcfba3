package awscall

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request Sign signed verifies with the same secret, at a time within
// 15 minutes; altered, signed with another secret or too long ago, it
// does not.
func TestVerifySigned(t *testing.T) {
	creds := Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	body := `{"TableName":"todos"}`
	req := func(c Credentials, at time.Time) (*http.Request, Authorization) {
		r, _ := http.NewRequest("POST", "http://127.0.0.1:1/a%20b?x=1&y=2", strings.NewReader(body))
		r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
		Sign(r, []byte(body), c, "us-east-1", "dynamodb", at)
		a, err := ParseAuthorization(r.Header.Get("Authorization"))
		if err != nil {
			t.Fatal(err)
		}
		return r, a
	}
	r, a := req(creds, now)
	if err := VerifySigned(r, a, "secret", hexSHA256([]byte(body)), now.Add(14*time.Minute)); err != nil {
		t.Errorf("signed right: %v", err)
	}
	if err := VerifySigned(r, a, "secret", hexSHA256([]byte("{}")), now); !errors.Is(err, ErrSignature) {
		t.Errorf("another body: %v", err)
	}
	if err := VerifySigned(r, a, "other", hexSHA256([]byte(body)), now); !errors.Is(err, ErrSignature) {
		t.Errorf("another secret: %v", err)
	}
	if err := VerifySigned(r, a, "secret", hexSHA256([]byte(body)), now.Add(16*time.Minute)); !errors.Is(err, ErrRequestTime) {
		t.Errorf("16 minutes later: %v", err)
	}
	r.URL.RawQuery = "x=1&y=3"
	if err := VerifySigned(r, a, "secret", hexSHA256([]byte(body)), now); !errors.Is(err, ErrSignature) {
		t.Errorf("another query: %v", err)
	}
	if _, err := ParseAuthorization("AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1/dynamodb/aws4_request, Signature=00"); err == nil {
		t.Error("an Authorization header without SignedHeaders parsed")
	}
}

// The signature check's own cost per request.
func BenchmarkVerifySigned(b *testing.B) {
	creds := Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}
	now := time.Now()
	body := []byte(`{"TableName":"todos","Key":{"id":{"S":"1"}}}`)
	r, _ := http.NewRequest("POST", "http://127.0.0.1:1/", nil)
	r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	Sign(r, body, creds, "us-east-1", "dynamodb", now)
	a, _ := ParseAuthorization(r.Header.Get("Authorization"))
	for b.Loop() {
		if err := VerifySigned(r, a, "secret", hexSHA256(body), now); err != nil {
			b.Fatal(err)
		}
	}
}
