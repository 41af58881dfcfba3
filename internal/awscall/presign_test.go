package awscall

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// A presigned S3 URL is the one the AWS SDK's signer makes for the same
// request, deployed (virtual-host style, with a session token) as at an
// emulator (path style), keys with spaces and slashes included; and
// VerifyPresigned accepts it until it expires, and refuses it altered.
func TestPresignS3MatchesTheSDK(t *testing.T) {
	when := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	creds := Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", SessionToken: "token/+="}
	for _, tc := range []struct {
		cfg  Config
		want string // scheme and host
	}{
		{Config{Region: "eu-west-1", Credentials: creds}, "https://todo-files.s3.eu-west-1.amazonaws.com"},
		{Config{Region: "us-east-1", Credentials: creds, Endpoint: "http://127.0.0.1:5000"}, "http://127.0.0.1:5000"},
	} {
		tc.cfg.Now = func() time.Time { return when }
		got, err := tc.cfg.PresignS3(context.Background(), "PUT", "todo-files", "in/a photo+1.jpg", 15*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(got)
		if u.Scheme+"://"+u.Host != tc.want {
			t.Errorf("URL %s, want it at %s", got, tc.want)
		}
		q := u.Query()
		sig := q.Get("X-Amz-Signature")
		q.Del("X-Amz-Signature")
		req, _ := http.NewRequest("PUT", u.Scheme+"://"+u.Host+u.EscapedPath()+"?X-Amz-Expires=900", nil)
		sdk, _, err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).PresignHTTP(context.Background(),
			aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, SessionToken: creds.SessionToken},
			req, "UNSIGNED-PAYLOAD", "s3", tc.cfg.Region, when)
		if err != nil {
			t.Fatal(err)
		}
		su, _ := url.Parse(sdk)
		if want := su.Query().Get("X-Amz-Signature"); sig != want {
			t.Errorf("signature of %s is %s, the SDK's (%s) is %s", got, sig, sdk, want)
		}

		r, _ := http.NewRequest("PUT", got, nil)
		if err := VerifyPresigned(r, creds.SecretAccessKey, when.Add(14*time.Minute)); err != nil {
			t.Errorf("VerifyPresigned of a valid URL: %v", err)
		}
		if err := VerifyPresigned(r, creds.SecretAccessKey, when.Add(16*time.Minute)); err != ErrPresignExpired {
			t.Errorf("VerifyPresigned after expiry: %v, want ErrPresignExpired", err)
		}
		r.Method = "DELETE"
		if err := VerifyPresigned(r, creds.SecretAccessKey, when); err != ErrPresignSignature {
			t.Errorf("VerifyPresigned with another method: %v, want ErrPresignSignature", err)
		}
	}
	if _, err := (Config{Region: "us-east-1", Credentials: creds}).PresignS3(context.Background(), "GET", "b", "k", 8*24*time.Hour); err == nil {
		t.Error("an expiry over 7 days was accepted")
	}
}
