package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	certUSEast1 = "arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-123456789abc"
	certEUWest1 = "arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-0000-4000-8000-123456789abc"
	layerARN    = "arn:aws:lambda:eu-west-1:123456789012:layer:otel:3"
)

func TestOperationErrors(t *testing.T) {
	testParseErrors(t, []parseErrorCase{
		{"reserved concurrency negative", `{"reserved_concurrency": -1}`,
			[]string{path + ": reserved_concurrency: -1 is negative"}},
		{"reserved concurrency as string", `{"stages": {"prod": {"reserved_concurrency": "5"}}}`,
			[]string{"stages.prod.reserved_concurrency: must be a whole number of concurrent executions, not a string: write 5 without quotes"}},
		{"layers not a list", `{"layers": "` + layerARN + `"}`,
			[]string{`layers: must be an array of strings, not a string: write ["` + layerARN + `"]`}},
		{"layer not an ARN", `{"stages": {"prod": {"layers": ["` + layerARN + `", "otel"]}}}`,
			[]string{`stages.prod.layers[1]: "otel" is not a Lambda layer version ARN`}},
		{"layer without version", `{"layers": ["arn:aws:lambda:eu-west-1:123456789012:layer:otel"]}`,
			[]string{`layers[0]: "arn:aws:lambda:eu-west-1:123456789012:layer:otel" is not a Lambda layer version ARN`}},
		{"layer twice", `{"layers": ["` + layerARN + `", "` + layerARN + `"]}`, []string{`layers[1]: "` + layerARN + `" is listed twice`}},
		{"six layers", `{"layers": ["arn:aws:lambda:eu-west-1:123456789012:layer:a:1", "arn:aws:lambda:eu-west-1:123456789012:layer:b:1", "arn:aws:lambda:eu-west-1:123456789012:layer:c:1", "arn:aws:lambda:eu-west-1:123456789012:layer:d:1", "arn:aws:lambda:eu-west-1:123456789012:layer:e:1", "arn:aws:lambda:eu-west-1:123456789012:layer:f:1"]}`,
			[]string{"layers: 6 layers: Lambda allows 5 at most"}},
		{"bad subnet", `{"subnet_ids": ["subnet-xyz"], "security_group_ids": ["sg-0123abcd"]}`,
			[]string{`subnet_ids[0]: "subnet-xyz" is not a subnet ID`}},
		{"bad security group", `{"subnet_ids": ["subnet-0123abcd"], "security_group_ids": ["0123abcd"]}`,
			[]string{`security_group_ids[0]: "0123abcd" is not a security group ID`}},
		{"subnets without groups", `{"stages": {"prod": {"subnet_ids": ["subnet-0123abcd"]}}}`,
			[]string{path + `: stages.prod.subnet_ids: stage "prod" puts the function in subnets without security_group_ids`}},
		{"groups without subnets", `{"security_group_ids": ["sg-0123abcd"]}`,
			[]string{path + `: security_group_ids: stage "dev" gives security groups without subnet_ids`}},
		{"xray as string", `{"xray": "true"}`, []string{"xray: must be true or false, not a string: write true without quotes"}},
		{"retention not allowed", `{"log_retention_in_days": 10}`,
			[]string{"log_retention_in_days: 10 is not a retention CloudWatch Logs accepts: use one of 1, 3, 5, 7, 14, 30,", "did you mean 7?"}},
		{"retention in a stage", `{"stages": {"prod": {"log_retention_in_days": 0}}}`,
			[]string{"stages.prod.log_retention_in_days: 0 is not a retention CloudWatch Logs accepts", "did you mean 1?"}},
		{"endpoint type lower case", `{"api_gateway_endpoint_type": "regional"}`,
			[]string{`api_gateway_endpoint_type: "regional": write it in capitals, "REGIONAL"`}},
		{"endpoint type unknown", `{"api_gateway_endpoint_type": "GLOBAL"}`,
			[]string{`api_gateway_endpoint_type: "GLOBAL" is not an API Gateway endpoint type: use "EDGE"`}},
		{"private without policy", `{"stages": {"prod": {"api_gateway_endpoint_type": "PRIVATE"}}}`,
			[]string{`stages.prod.api_gateway_endpoint_type: PRIVATE for stage "prod" requires api_gateway_policy_file`}},
		{"empty policy file", `{"api_gateway_policy_file": " "}`, []string{"api_gateway_policy_file: is empty"}},
		{"compression too large", `{"minimum_compression_size": 10485761}`,
			[]string{"minimum_compression_size: 10485761 is out of range: API Gateway allows 0 to 10485760 bytes"}},
		{"domain not an object", `{"api_gateway_custom_domain": "api.example.com"}`,
			[]string{"api_gateway_custom_domain: must be an object, not a string"}},
		{"domain without certificate", `{"api_gateway_custom_domain": {"domain_name": "api.example.com"}}`,
			[]string{"api_gateway_custom_domain: certificate_arn is missing"}},
		{"domain as URL", `{"stages": {"prod": {"api_gateway_custom_domain": {"domain_name": "https://api.example.com", "certificate_arn": "` + certUSEast1 + `"}}}}`,
			[]string{`stages.prod.api_gateway_custom_domain.domain_name: "https://api.example.com" is not a domain name: give the host name alone`}},
		{"domain in capitals", `{"api_gateway_custom_domain": {"domain_name": "API.example.com", "certificate_arn": "` + certUSEast1 + `"}}`,
			[]string{`api_gateway_custom_domain.domain_name: "API.example.com" has capitals`}},
		{"domain key typo", `{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate": "` + certUSEast1 + `"}}`,
			[]string{`api_gateway_custom_domain.certificate: unknown key of a custom domain: did you mean "certificate_arn"?`}},
		{"bad certificate", `{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:iam::123456789012:server-certificate/x"}}`,
			[]string{`api_gateway_custom_domain.certificate_arn: "arn:aws:iam::123456789012:server-certificate/x" is not an ACM certificate ARN`}},
		{"bad TLS version", `{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "` + certUSEast1 + `", "tls_version": "1.2"}}`,
			[]string{`api_gateway_custom_domain.tls_version: "1.2" is not a TLS version API Gateway offers: use "TLS_1_2"`}},
		{"bad base path", `{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "` + certUSEast1 + `", "base_path": "v 1"}}`,
			[]string{`api_gateway_custom_domain.base_path: "v 1" is not a base path API Gateway accepts`}},
		{"bad hosted zone", `{"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "` + certUSEast1 + `", "hosted_zone_id": "example.com"}}`,
			[]string{`api_gateway_custom_domain.hosted_zone_id: "example.com" is not a Route 53 hosted zone ID`}},
		{"domain outside zone", `{"api_gateway_custom_domain": {"domain_name": "api.example.org", "certificate_arn": "` + certUSEast1 + `", "hosted_zone_name": "example.com"}}`,
			[]string{`api_gateway_custom_domain.hosted_zone_name: "api.example.org" is not in the hosted zone "example.com"`}},
		{"edge certificate outside us-east-1", `{"stages": {"prod": {"api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "` + certEUWest1 + `"}}}}`,
			[]string{`stages.prod.api_gateway_custom_domain.certificate_arn: the certificate is in eu-west-1, but an EDGE endpoint (the default) is served by CloudFront`}},
		{"private with domain", `{"api_gateway_endpoint_type": "PRIVATE", "api_gateway_policy_file": "p.json", "api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "` + certUSEast1 + `"}}`,
			[]string{`api_gateway_custom_domain: stage "dev" has a PRIVATE endpoint`}},
		{"operation key typo", `{"stages": {"prod": {"log_retention_days": 7}}}`,
			[]string{`stages.prod.log_retention_days: unknown key: did you mean "log_retention_in_days"?`}},
		{"xray spelled out", `{"x_ray": true}`, []string{`x_ray: unknown key: did you mean "xray"?`}},
		{"access log as string", `{"access_log": "off"}`, []string{"access_log: must be true or false, not a string"}},
		{"unknown key lists production keys", `{"zzzzzzzzzz": 1}`,
			[]string{"zzzzzzzzzz: unknown key: known keys are ", "; and to run the stage in production: access_log, api_gateway_custom_domain,"}},
	})
}

func TestOperationsResolve(t *testing.T) {
	const file = `{
  "version": "1.0",
  "app_name": "shop",
  "reserved_concurrency": 10,
  "layers": ["arn:aws:lambda:eu-west-1:123456789012:layer:otel:3"],
  "xray": true,
  "log_retention_in_days": 30,
  "minimum_compression_size": 1024,
  "stages": {
    "dev": {"xray": false, "layers": [], "access_log": false},
    "prod": {
      "reserved_concurrency": 0,
      "subnet_ids": ["subnet-0123abcd", "subnet-0123456789abcdef0"],
      "security_group_ids": ["sg-0123abcd"],
      "log_retention_in_days": 365,
      "api_gateway_endpoint_type": "REGIONAL",
      "api_gateway_custom_domain": {"domain_name": "api.example.com", "certificate_arn": "arn:aws:acm:eu-west-1:123456789012:certificate/abc", "base_path": "/v1/", "hosted_zone_name": "example.com."}
    },
    "edge": {"api_gateway_endpoint_type": "EDGE"}
  }
}`
	f, err := Parse(path, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	ten, zero, kb := 10, 0, 1024
	tests := []struct {
		stage string
		want  Operations
	}{
		{"dev", Operations{ReservedConcurrency: &ten, Layers: []string{}, LogRetentionInDays: 30, MinimumCompressionSize: &kb, NoAccessLog: true}},
		{"prod", Operations{ReservedConcurrency: &zero, Layers: []string{layerARN}, XRay: true, LogRetentionInDays: 365, MinimumCompressionSize: &kb,
			SubnetIDs: []string{"subnet-0123abcd", "subnet-0123456789abcdef0"}, SecurityGroupIDs: []string{"sg-0123abcd"}, APIGatewayEndpointType: EndpointRegional,
			APIGatewayCustomDomain: &CustomDomain{DomainName: "api.example.com", CertificateArn: "arn:aws:acm:eu-west-1:123456789012:certificate/abc", BasePath: "v1", HostedZoneName: "example.com"}}},
		{"edge", Operations{ReservedConcurrency: &ten, Layers: []string{layerARN}, XRay: true, LogRetentionInDays: 30, MinimumCompressionSize: &kb}},
		{"undeclared", Operations{ReservedConcurrency: &ten, Layers: []string{layerARN}, XRay: true, LogRetentionInDays: 30, MinimumCompressionSize: &kb}},
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			s, err := f.Stage(tt.stage)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Operations, tt.want) {
				t.Errorf("stage %s:\n got %+v\nwant %+v", tt.stage, s.Operations, tt.want)
			}
		})
	}
	prod, _ := f.Stage("prod")
	if got := prod.APIGatewayCustomDomain.URL(); got != "https://api.example.com/v1/" {
		t.Errorf("domain URL %q", got)
	}
	if got := prod.EndpointType(); got != EndpointRegional {
		t.Errorf("endpoint type %q", got)
	}
	if dev, _ := f.Stage("dev"); dev.EndpointType() != EndpointEdge {
		t.Errorf("default endpoint type %q", dev.EndpointType())
	}

	// The settings survive a write and a read.
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(path, out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, name := range []string{"dev", "prod", "edge"} {
		a, _ := f.Stage(name)
		b, _ := g.Stage(name)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("stage %s after a round trip:\n%+v\n%+v", name, a, b)
		}
	}
}

func TestLoadAPIGatewayPolicy(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, ".framework", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, ".framework", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("private.json", `{"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "execute-api:Invoke", "Resource": "execute-api:/*"}]}`)
	write("broken.json", "{\n  \"Statement\": [\n}")
	write("empty.json", `{"Version": "2012-10-17", "Statement": []}`)
	write("nostatement.json", `{"Version": "2012-10-17"}`)
	tests := []struct {
		file, want string
	}{
		{"private.json", ""},
		{"missing.json", `config.json: stages.prod.api_gateway_policy_file: ` + filepath.Join(dir, ".framework", "missing.json") + ` does not exist`},
		{"broken.json", "broken.json:3:1 is not a JSON object"},
		{"empty.json", "has an empty Statement list"},
		{"nostatement.json", "has no Statement"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := Parse(cfgPath, []byte(`{"stages": {"prod": {"api_gateway_endpoint_type": "PRIVATE", "api_gateway_policy_file": "`+tt.file+`"}}}`))
			if err != nil {
				t.Fatal(err)
			}
			s, err := f.Stage("prod")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := s.LoadAPIGatewayPolicy()
			if tt.want == "" {
				if err != nil || doc["Version"] != "2012-10-17" || len(doc["Statement"].([]any)) != 1 {
					t.Errorf("policy %v, %v; want the document with its version filled in", doc, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	f, _ := Parse(cfgPath, []byte(`{}`))
	s, _ := f.Stage("dev")
	if doc, err := s.LoadAPIGatewayPolicy(); doc != nil || err != nil {
		t.Errorf("no policy file: %v, %v", doc, err)
	}
}
