package awscall

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// AWS's published Signature Version 4 example: the credentials, time and
// figures of the IAM ListUsers request in AWS's SigV4 documentation.
var example = struct {
	creds      Credentials
	when       time.Time
	signingKey string
}{
	creds:      Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
	when:       time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC),
	signingKey: "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9",
}

func TestSigningKeyOfAWSExample(t *testing.T) {
	got := hex.EncodeToString(signingKey(example.creds.SecretAccessKey, "20150830", "us-east-1", "iam"))
	if got != example.signingKey {
		t.Fatalf("signing key %s, AWS's example says %s", got, example.signingKey)
	}
}

func TestSignAWSExamples(t *testing.T) {
	for _, tc := range []struct {
		name, method, url, service string
		headers                    map[string]string
		canonicalHash, signature   string
	}{
		{
			// the IAM ListUsers example of AWS's SigV4 documentation
			name: "iam ListUsers", method: "GET", url: "https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08", service: "iam",
			headers:       map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
			canonicalHash: "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59",
			signature:     "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
		},
		{
			// get-vanilla of AWS's SigV4 test suite
			name: "get-vanilla", method: "GET", url: "https://example.amazonaws.com/", service: "service",
			canonicalHash: "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
			signature:     "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, tc.url, nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			Sign(req, nil, example.creds, "us-east-1", tc.service, example.when)
			req.Header.Del("Authorization")
			canonical, _ := canonicalRequest(req, hexSHA256(nil))
			if got := hexSHA256([]byte(canonical)); got != tc.canonicalHash {
				t.Errorf("canonical request's hash %s, AWS's example says %s; canonical request:\n%s", got, tc.canonicalHash, canonical)
			}
			Sign(req, nil, example.creds, "us-east-1", tc.service, example.when)
			if auth := req.Header.Get("Authorization"); !strings.HasSuffix(auth, "Signature="+tc.signature) {
				t.Errorf("Authorization %q, AWS's example's signature is %s", auth, tc.signature)
			}
		})
	}
}

// A JSON-protocol request with a session token signs as the AWS SDK for
// Go v2 signs it.
func TestSignAgreesWithSDK(t *testing.T) {
	body := []byte(`{"SecretId":"apiKey"}`)
	creds := Credentials{AccessKeyID: "AKIAEXAMPLE", SecretAccessKey: "secret/key+1", SessionToken: "token=="}
	when := time.Date(2026, 3, 1, 9, 8, 7, 0, time.UTC)
	newReq := func() *http.Request {
		req, _ := http.NewRequest("POST", "https://secretsmanager.eu-west-1.amazonaws.com/", nil)
		req.Header.Set("Content-Type", "application/x-amz-json-1.1")
		req.Header.Set("X-Amz-Target", "secretsmanager.GetSecretValue")
		return req
	}
	ours := newReq()
	Sign(ours, body, creds, "eu-west-1", "secretsmanager", when)

	sdk := newReq()
	sdk.Header.Set("X-Amz-Security-Token", creds.SessionToken)
	err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, SessionToken: creds.SessionToken},
		sdk, hexSHA256(body), "secretsmanager", "eu-west-1", when)
	if err != nil {
		t.Fatal(err)
	}
	if ours.Header.Get("Authorization") != sdk.Header.Get("Authorization") {
		t.Fatalf("Authorization differs from the SDK's:\n ours %s\n sdk  %s", ours.Header.Get("Authorization"), sdk.Header.Get("Authorization"))
	}
}
