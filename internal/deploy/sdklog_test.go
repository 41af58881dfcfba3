package deploy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// imdsV1 stands for an EC2 instance metadata service that refuses IMDSv2
// tokens (403) and hands out a role's credentials over IMDSv1: the AWS SDK
// then logs "falling back to IMDSv1" as a warning.
func imdsV1(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut && r.URL.Path == "/latest/api/token":
			http.Error(w, "forbidden", http.StatusForbidden)
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/":
			io.WriteString(w, "app-role")
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/app-role":
			io.WriteString(w, `{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"AKIAIMDS","SecretAccessKey":"secret","Token":"token","Expiration":"`+time.Now().Add(time.Hour).UTC().Format(time.RFC3339)+`"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// stderrOf runs f with os.Stderr sent to a file and returns what was
// written there.
func stderrOf(t *testing.T, f func()) string {
	t.Helper()
	file, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	saved := os.Stderr
	os.Stderr = file
	defer func() { os.Stderr = saved }()
	f()
	b, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSDKWarningsOnlyOnRequest: the AWS SDK's own warnings (here its
// fallback to IMDSv1 while finding credentials) are not printed around
// the CLI's lines; given a logger (the CLI's -v), they go there.
func TestSDKWarningsOnlyOnRequest(t *testing.T) {
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED": "false", "AWS_EC2_METADATA_SERVICE_ENDPOINT": imdsV1(t),
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
	} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	stderr := stderrOf(t, func() {
		cfg, err := LoadConfig(ctx, "", "eu-west-1")
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := cfg.Credentials.Retrieve(ctx); c.AccessKeyID != "AKIAIMDS" {
			t.Errorf("credentials %q, want the instance role's", c.AccessKeyID)
		}
	})
	if stderr != "" {
		t.Errorf("LoadConfig wrote on stderr:\n%s", stderr)
	}

	var verbose bytes.Buffer
	if _, err := LoadConfig(ctx, "", "eu-west-1", config.WithLogger(logging.NewStandardLogger(&verbose))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(verbose.String(), "WARN falling back to IMDSv1") {
		t.Errorf("the SDK's log given a logger:\n%s", verbose.String())
	}
}
