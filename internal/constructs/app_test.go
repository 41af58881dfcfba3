package constructs

import (
	"strings"
	"testing"
)

func TestAuthorizerFunctionArn(t *testing.T) {
	for _, tc := range []struct{ uri, want, err string }{
		{uri: "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:auth/invocations",
			want: "arn:aws:lambda:eu-west-1:123456789012:function:auth"},
		{uri: "arn:aws-cn:apigateway:cn-north-1:lambda:path/2015-03-31/functions/arn:aws-cn:lambda:cn-north-1:123456789012:function:auth:live/invocations",
			want: "arn:aws-cn:lambda:cn-north-1:123456789012:function:auth:live"},
		{uri: "https://example.com/auth", err: "not a Lambda invocation URI"},
		{uri: "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/auth/invocations", err: "does not hold a Lambda function ARN"},
		{uri: "", err: "not a Lambda invocation URI"},
	} {
		got, err := AuthorizerFunctionArn(tc.uri)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("AuthorizerFunctionArn(%q) = %q, %v; want error %q", tc.uri, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("AuthorizerFunctionArn(%q) = %q, %v; want %q", tc.uri, got, err, tc.want)
		}
	}
}

func TestConfigResolved(t *testing.T) {
	c, err := (*Config)(nil).resolved("prod")
	if err != nil {
		t.Fatal(err)
	}
	if c.MemorySize != 128 || c.TimeoutSeconds != 60 || c.Architecture != ArchARM64 || c.APIGatewayStage != "prod" {
		t.Errorf("defaults %+v", c)
	}
	for _, bad := range []Config{{MemorySize: 64}, {MemorySize: 20000}, {TimeoutSeconds: 901}, {Architecture: "amd64"}} {
		if _, err := bad.resolved("dev"); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	c, err = (&Config{APIGatewayStage: "v1", Architecture: ArchX8664}).resolved("prod")
	if err != nil || c.APIGatewayStage != "v1" || c.Architecture != ArchX8664 {
		t.Errorf("explicit values %+v, %v", c, err)
	}
}

func TestPrepareRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props *AppProps
		want  string
	}{
		{"nil", nil, "no props"},
		{"nothing", &AppProps{}, "set ProjectDir, or both Manifest and PackageZip"},
		{"both", &AppProps{ProjectDir: ".", PackageZip: "x.zip"}, "not both"},
		{"bad stage", &AppProps{ProjectDir: ".", Stage: "no/slash"}, "stage"},
		{"missing config", &AppProps{ProjectDir: t.TempDir()}, "config.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prepare(t.Context(), tc.props, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNewPreparedAppRefusesIncompleteInputs(t *testing.T) {
	for _, p := range []*Prepared{nil, {}, {Stage: "dev", Config: &Config{}}} {
		if _, err := NewPreparedApp(nil, "App", p); err == nil || !strings.Contains(err.Error(), "constructs.Prepare") {
			t.Errorf("NewPreparedApp(%+v) err = %v, want one saying to use constructs.Prepare", p, err)
		}
	}
}
