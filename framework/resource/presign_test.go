package resource

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/localiam"
	"github.com/framework-dev/framework/internal/mototest"
)

// send sends method to u with body and returns the status and the answer.
func send(t *testing.T, method, u, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body = http.NoBody
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A bucket handle presigns a PUT and a GET of a key: a client without
// credentials uploads with the one and reads the bytes back with the
// other, at the emulator as framework local runs the app (behind its IAM
// check, which the URLs go through as a browser's would) and directly; an
// expired URL and an altered one are refused as S3 refuses them.
func TestBucketPresignedPutThenGet(t *testing.T) {
	clearAWS(t)
	moto := mototest.Start(t)
	ctx := context.Background()
	const bucket = "todo-dev-files"
	s3c := s3.NewFromConfig(moto.Config(), func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s3c.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: aws.String(bucket), CORSConfiguration: &s3types.CORSConfiguration{
		CORSRules: []s3types.CORSRule{{AllowedOrigins: []string{"http://localhost:3000"}, AllowedMethods: []string{"PUT", "GET"}, AllowedHeaders: []string{"*"}}}}}); err != nil {
		t.Fatal(err)
	}
	env := moto.Environ(t.TempDir())
	proxy, err := localiam.Start(localiam.Options{Target: localiam.Target{Upstream: moto.URL, Region: "us-east-1",
		Credentials: func(context.Context) (awscall.Credentials, error) {
			return awscall.Credentials{AccessKeyID: env["AWS_ACCESS_KEY_ID"], SecretAccessKey: env["AWS_SECRET_ACCESS_KEY"]}, nil
		},
		// The function's role may read and write the bucket's objects:
		// the check refuses every call it has no policy for.
		Policies: localiam.StaticPolicies{"api": {{Actions: []string{"s3:GetObject", "s3:PutObject"}, Resources: []string{"arn:aws:s3:::" + bucket + "/*"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)

	app := framework.New("todo")
	files := NewBucket(app, "files", BucketSpec{})
	t.Setenv("FRAMEWORK_RES_FILES_NAME", bucket)
	for name, fnEnv := range map[string][]string{
		"through framework local's IAM check": proxy.Environ("api"),
		"at the emulator directly":            {"AWS_ENDPOINT_URL=" + moto.URL, "AWS_ACCESS_KEY_ID=" + env["AWS_ACCESS_KEY_ID"], "AWS_SECRET_ACCESS_KEY=" + env["AWS_SECRET_ACCESS_KEY"]},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("AWS_REGION", "us-east-1")
			for _, kv := range fnEnv {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			key := "uploads/" + strings.ReplaceAll(name, " ", "-") + "/photo 1.jpg"
			put, err := files.PresignPut(ctx, key, 15*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if code, body := send(t, "PUT", put, "the photo's bytes"); code != 200 {
				t.Fatalf("PUT to the presigned URL %s: %d %s", put, code, body)
			}
			get, err := files.PresignGet(ctx, key, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if code, body := send(t, "GET", get, ""); code != 200 || body != "the photo's bytes" {
				t.Fatalf("GET of the presigned URL: %d %q, want the uploaded bytes", code, body)
			}
			if !strings.Contains(name, "IAM check") {
				return // moto checks no signature: S3, and framework local's check, do
			}
			// A browser's CORS preflight, unsigned, gets the bucket's answer.
			pre, _ := http.NewRequest("OPTIONS", put, nil)
			pre.Header.Set("Origin", "http://localhost:3000")
			pre.Header.Set("Access-Control-Request-Method", "PUT")
			resp, err := http.DefaultClient.Do(pre)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
				t.Errorf("CORS preflight of the presigned PUT: %d %v, want the bucket's CORS answer", resp.StatusCode, resp.Header)
			}
			if code, body := send(t, "GET", strings.Replace(get, "photo%201.jpg", "photo%202.jpg", 1), ""); code != 403 || !strings.Contains(body, "SignatureDoesNotMatch") {
				t.Errorf("GET of a presigned URL whose key was altered: %d %s, want 403 SignatureDoesNotMatch", code, body)
			}
			cfg := awscall.FromEnv()
			cfg.Now = func() time.Time { return time.Now().Add(-time.Hour) }
			old, err := cfg.PresignS3(ctx, "GET", bucket, key, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if code, body := send(t, "GET", old, ""); code != 403 || !strings.Contains(body, "expired") {
				t.Errorf("GET of a presigned URL expired: %d %s, want 403 Request has expired", code, body)
			}
		})
	}
}
