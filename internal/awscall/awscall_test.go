package awscall_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/awscall"
	"github.com/framework-dev/framework/internal/mototest"
)

func motoConfig(s *mototest.Server) awscall.Config {
	return awscall.Config{Region: mototest.Region, Endpoint: s.URL,
		Credentials: awscall.Credentials{AccessKeyID: "AKIAMOTOTEST", SecretAccessKey: "moto-secret"}}
}

// Secrets Manager and SSM (JSON 1.1), DynamoDB and SQS (JSON 1.0) answer
// calls made through awscall as they answer the SDK's.
func TestCallsAgainstMoto(t *testing.T) {
	moto := mototest.Start(t)
	c := motoConfig(moto)
	ctx := context.Background()

	if err := c.Call(ctx, "secretsmanager", "CreateSecret", map[string]any{"Name": "apiKey", "SecretString": "s3cret"}, nil); err != nil {
		t.Fatal(err)
	}
	var sec struct{ SecretString string }
	if err := c.Call(ctx, "secretsmanager", "GetSecretValue", map[string]string{"SecretId": "apiKey"}, &sec); err != nil {
		t.Fatal(err)
	}
	if sec.SecretString != "s3cret" {
		t.Errorf("secret %q, want s3cret", sec.SecretString)
	}

	if err := c.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": "/app/flag", "Value": "on", "Type": "SecureString"}, nil); err != nil {
		t.Fatal(err)
	}
	var par struct{ Parameter struct{ Value string } }
	if err := c.Call(ctx, "ssm", "AmazonSSM.GetParameter", map[string]any{"Name": "/app/flag", "WithDecryption": true}, &par); err != nil {
		t.Fatal(err)
	}
	if par.Parameter.Value != "on" {
		t.Errorf("parameter %q, want on (decrypted)", par.Parameter.Value)
	}

	err := c.Call(ctx, "dynamodb", "CreateTable", map[string]any{
		"TableName":            "todos",
		"AttributeDefinitions": []map[string]string{{"AttributeName": "id", "AttributeType": "S"}},
		"KeySchema":            []map[string]string{{"AttributeName": "id", "KeyType": "HASH"}},
		"BillingMode":          "PAY_PER_REQUEST",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tables struct{ TableNames []string }
	if err := c.Call(ctx, "dynamodb", "ListTables", nil, &tables); err != nil {
		t.Fatal(err)
	}
	if len(tables.TableNames) != 1 || tables.TableNames[0] != "todos" {
		t.Errorf("tables %v, want [todos]", tables.TableNames)
	}

	var q struct{ QueueUrl string }
	if err := c.Call(ctx, "sqs", "CreateQueue", map[string]string{"QueueName": "jobs"}, &q); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(q.QueueUrl, "/jobs") {
		t.Errorf("queue URL %q does not end in /jobs", q.QueueUrl)
	}
}

// An AWS error answer names the service, the operation, AWS's code and
// its message.
func TestErrorAnswerNamesServiceOperationAndCode(t *testing.T) {
	moto := mototest.Start(t)
	err := motoConfig(moto).Call(context.Background(), "secretsmanager", "GetSecretValue", map[string]string{"SecretId": "missing"}, nil)
	var e *awscall.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *awscall.Error", err, err)
	}
	if e.Code != "ResourceNotFoundException" || !awscall.IsCode(err, "ResourceNotFoundException") {
		t.Errorf("code %q, want ResourceNotFoundException", e.Code)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "secretsmanager GetSecretValue: ResourceNotFoundException: ") || len(msg) < 60 {
		t.Errorf("error %q does not name the service, operation, code and AWS's message", msg)
	}
}

// The environment gives the region, credentials and endpoints; a service's
// own endpoint variable wins over AWS_ENDPOINT_URL.
func TestFromEnv(t *testing.T) {
	var got struct{ target, auth, ctype string }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.target, got.auth, got.ctype = r.Header.Get("X-Amz-Target"), r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "eu-central-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "x")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", srv.URL)
	if err := awscall.Call(context.Background(), "secretsmanager", "ListSecrets", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got.target != "secretsmanager.ListSecrets" || got.ctype != "application/x-amz-json-1.1" {
		t.Errorf("X-Amz-Target %q, Content-Type %q", got.target, got.ctype)
	}
	if !strings.Contains(got.auth, "Credential=AKIAENV/") || !strings.Contains(got.auth, "/eu-central-1/secretsmanager/aws4_request") {
		t.Errorf("Authorization %q does not use the environment's key and region", got.auth)
	}

	t.Setenv("AWS_DEFAULT_REGION", "")
	err := awscall.Call(context.Background(), "secretsmanager", "ListSecrets", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "set AWS_REGION") {
		t.Errorf("without a region: %v, want an error saying to set AWS_REGION", err)
	}
	err = awscall.Call(context.Background(), "sns", "Publish", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `unknown service "sns"`) {
		t.Errorf("unknown service: %v", err)
	}
}

// Without an endpoint, a service is called at its regional endpoint.
func TestRegionalEndpoint(t *testing.T) {
	var host string
	c := awscall.Config{Region: "eu-west-1", Credentials: awscall.Credentials{AccessKeyID: "a", SecretAccessKey: "b"},
		HTTPClient: &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			host = r.URL.Host
			return nil, errors.New("offline")
		})}}
	_ = c.Call(context.Background(), "dynamodbstreams", "ListStreams", nil, nil)
	if host != "streams.dynamodb.eu-west-1.amazonaws.com" {
		t.Errorf("host %q, want streams.dynamodb.eu-west-1.amazonaws.com", host)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
