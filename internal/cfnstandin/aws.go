package cfnstandin

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// AWS is a CloudFormation + STS stand-in and an S3 fake (gofakes3) served on
// 127.0.0.1, wired together: a stack resource of type AWS::S3::Bucket
// creates the bucket in the S3 fake, and templates sent by TemplateURL are
// read from it.
type AWS struct {
	// CFN is the CloudFormation and STS stand-in.
	CFN *Server
	// S3 is the S3 fake's storage.
	S3 *s3mem.Backend
	// CFNURL and S3URL are the servers' base URLs.
	CFNURL, S3URL string
}

// Start starts the servers for the test and sets the environment the AWS
// SDK's default chain reads, so that clients created by the code under test
// reach them: endpoints (AWS_ENDPOINT_URL_CLOUDFORMATION, _STS, _S3),
// static credentials, region us-east-1, and no shared config files or
// instance metadata.
func Start(t testing.TB) *AWS {
	t.Helper()
	a, stop := Serve()
	t.Cleanup(stop)
	for k, v := range a.Environ(t.TempDir()) {
		t.Setenv(k, v)
	}
	return a
}

// Serve starts the servers on 127.0.0.1 and returns them with a function
// that stops them; unlike Start it changes no environment (see Environ).
func Serve() (*AWS, func()) {
	backend := s3mem.New()
	s3srv := httptest.NewServer(gofakes3.New(backend).Server())
	cfn := New()
	cfn.OnCreate = func(r Resource) error {
		if r.Type == "AWS::S3::Bucket" {
			return backend.CreateBucket(r.PhysicalID)
		}
		return nil
	}
	cfnsrv := httptest.NewServer(cfn)
	a := &AWS{CFN: cfn, S3: backend, CFNURL: cfnsrv.URL, S3URL: s3srv.URL}
	return a, func() { cfnsrv.Close(); s3srv.Close() }
}

// Environ returns the environment variables Start sets, for a child
// process; dir receives empty shared config and credentials files.
func (a *AWS) Environ(dir string) map[string]string {
	return map[string]string{
		"AWS_ENDPOINT_URL_CLOUDFORMATION": a.CFNURL,
		"AWS_ENDPOINT_URL_STS":            a.CFNURL,
		"AWS_ENDPOINT_URL_S3":             a.S3URL,
		"AWS_ACCESS_KEY_ID":               "AKIASTANDIN",
		"AWS_SECRET_ACCESS_KEY":           "standin-secret",
		"AWS_SESSION_TOKEN":               "",
		"AWS_REGION":                      a.CFN.Region,
		"AWS_DEFAULT_REGION":              "",
		"AWS_PROFILE":                     "",
		"AWS_CONFIG_FILE":                 filepath.Join(dir, "aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE":     filepath.Join(dir, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED":       "true",
		"AWS_ENDPOINT_URL":                "",
	}
}
