package config

import (
	"strings"
	"testing"
)

func TestFrontDoorResolves(t *testing.T) {
	f, err := Parse(path, []byte(`{"version": "1.0", "app_name": "a", "api_type": "http",
		"stages": {"dev": {}, "prod": {"api_type": "rest", "api_gateway_stage": "v1"}, "url": {"api_type": "function_url"},
		"signed": {"api_type": "function_url", "function_url_auth": "AWS_IAM"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for stage, want := range map[string]FrontDoor{
		"dev":    {APIType: APIHTTP},
		"prod":   {},
		"url":    {APIType: APIFunctionURL, FunctionURLAuth: URLAuthNone},
		"signed": {APIType: APIFunctionURL, FunctionURLAuth: URLAuthIAM},
	} {
		st, err := f.Stage(stage)
		if err != nil {
			t.Fatalf("stage %s: %v", stage, err)
		}
		if st.FrontDoor != want {
			t.Errorf("stage %s: front door %+v, want %+v", stage, st.FrontDoor, want)
		}
	}
	// No key at all: today's REST API.
	f, err = Parse(path, []byte(`{"version": "1.0"}`))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stage("dev"); st.Type() != APIRest || st.FunctionURLAuth != "" {
		t.Errorf("default front door %+v, want rest", st.FrontDoor)
	}
}

func TestFrontDoorErrors(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"unknown type", `{"api_type": "graphql"}`, `api_type: "graphql" is not a front door: use "rest"`},
		{"capitals", `{"stages": {"dev": {"api_type": "HTTP"}}}`, `stages.dev.api_type: "HTTP": write it "http"`},
		{"http_api", `{"api_type": "http-api"}`, `api_type: "http-api": write "http" for API Gateway's HTTP API`},
		{"lambda url", `{"api_type": "lambda_url"}`, `write "function_url" for a Lambda function URL`},
		{"not a string", `{"api_type": 2}`, `api_type: must be a string, not a number`},
		{"auth unknown", `{"api_type": "function_url", "function_url_auth": "COGNITO"}`, `function_url_auth: "COGNITO" is not a function URL auth type: use "NONE"`},
		{"auth lower case", `{"api_type": "function_url", "function_url_auth": "aws_iam"}`, `write it in capitals, "AWS_IAM"`},
		{"auth without function url", `{"stages": {"dev": {"function_url_auth": "AWS_IAM"}}}`,
			`stages.dev.function_url_auth: applies to api_type "function_url" only, and stage "dev" has api_type "rest"`},
		{"stage name on http", `{"api_type": "http", "stages": {"dev": {"api_gateway_stage": "dev"}}}`,
			`stages.dev.api_gateway_stage: stage "dev" has api_type "http" (API Gateway HTTP API), which has no named stage`},
		{"edge on http", `{"stages": {"dev": {"api_type": "http", "api_gateway_endpoint_type": "EDGE"}}}`,
			`stages.dev.api_gateway_endpoint_type: stage "dev" has api_type "http" (API Gateway HTTP API), which has no EDGE endpoint type`},
		{"private on function url", `{"api_gateway_endpoint_type": "PRIVATE", "api_gateway_policy_file": "p.json", "stages": {"dev": {"api_type": "function_url"}}}`,
			`api_gateway_endpoint_type: stage "dev" has api_type "function_url" (Lambda function URL), which has no PRIVATE endpoint type`},
		{"policy on http", `{"api_type": "http", "api_gateway_policy_file": "p.json"}`, `api_gateway_policy_file: stage "dev" has api_type "http" (API Gateway HTTP API), which has no resource policy`},
		{"compression on http", `{"api_type": "http", "minimum_compression_size": 100}`, `minimum_compression_size: stage "dev" has api_type "http" (API Gateway HTTP API), which has no response compression`},
		{"domain on function url", `{"api_type": "function_url", "api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:eu-west-1:123456789012:certificate/abc"}}`,
			`api_gateway_custom_domain: stage "dev" has api_type "function_url": a Lambda function URL takes no custom domain`},
		{"tls 1.0 on http", `{"api_type": "http", "api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:eu-west-1:123456789012:certificate/abc", "tls_version": "TLS_1_0"}}`,
			`api_gateway_custom_domain.tls_version: stage "dev" has api_type "http": an HTTP API's custom domain supports TLS_1_2 only`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(path, []byte(tc.file))
			if err == nil {
				_, err = f.Stage("dev")
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to contain %s", err, tc.want)
			}
		})
	}
}

// An HTTP API's custom domain is regional: a certificate outside us-east-1
// is right for it, where the REST API's EDGE default would refuse it.
func TestFrontDoorHTTPDomainRegional(t *testing.T) {
	f, err := Parse(path, []byte(`{"api_type": "http", "api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:eu-west-1:123456789012:certificate/abc"}}`))
	if err == nil {
		_, err = f.Stage("dev")
	}
	if err != nil {
		t.Fatal(err)
	}
	f, err = Parse(path, []byte(`{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:eu-west-1:123456789012:certificate/abc"}}`))
	if err == nil {
		_, err = f.Stage("dev")
	}
	if err == nil || !strings.Contains(err.Error(), "us-east-1") {
		t.Fatalf("a REST stage with an EDGE endpoint and a eu-west-1 certificate: %v, want the us-east-1 error", err)
	}
}
