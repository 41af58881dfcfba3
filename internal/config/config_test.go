package config

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const path = ".framework/config.json"

func TestParseErrors(t *testing.T) {
	testParseErrors(t, []parseErrorCase{
		{"empty file", "  \n", []string{path + ": the file is empty"}},
		{"malformed JSON", "{\n  \"app_name\": \"hello\",\n  \"lambda_timeout\": 30,\n}\n",
			[]string{path + ":4:1: invalid JSON: invalid character '}'"}},
		{"missing colon", "{\n  \"app_name\" \"hello\"\n}", []string{path + ":2:14: invalid JSON"}},
		{"error after multibyte text", "{\"app_name\": \"héllo\" x}", []string{path + ":1:22: invalid JSON"}},
		{"truncated", "{\"app_name\": \"hello\"", []string{path + ":1:21: invalid JSON: unexpected end of file"}},
		{"not an object", `["dev"]`, []string{path + ": the file must hold a JSON object, not an array"}},
		{"unknown top-level key with suggestion", `{"lamda_memory_size": 256}`,
			[]string{path + `: lamda_memory_size: unknown key: did you mean "lambda_memory_size"?`}},
		{"camel case key", `{"stages": {"prod": {"lambdaTimeout": 10}}}`,
			[]string{path + `: stages.prod.lambdaTimeout: unknown key: did you mean "lambda_timeout"?`}},
		{"unknown key without suggestion", `{"stages": {"prod": {"zzzzzzzz": 1}}}`,
			[]string{"stages.prod.zzzzzzzz: unknown key: known keys are api_gateway_stage, architecture,"}},
		{"top-only key in stage", `{"stages": {"prod": {"app_name": "x"}}}`,
			[]string{"stages.prod.app_name: app_name is only allowed at the top level"}},
		{"duplicate key", `{"lambda_timeout": 3, "lambda_timeout": 4}`,
			[]string{"lambda_timeout: the key appears more than once"}},
		{"bool as string", `{"manage_role": "false", "role_id": "r"}`,
			[]string{path + ": manage_role: must be true or false, not a string: write false without quotes"}},
		{"memory as string", `{"stages": {"prod": {"lambda_memory_size": "512"}}}`,
			[]string{"stages.prod.lambda_memory_size: must be a whole number of MB, not a string: write 512 without quotes"}},
		{"memory fraction", `{"lambda_memory_size": 512.5}`,
			[]string{"lambda_memory_size: must be a whole number of MB, not 512.5"}},
		{"memory too large", `{"stages": {"prod": {"lambda_memory_size": 20000}}}`,
			[]string{path + ": stages.prod.lambda_memory_size: 20000 is out of range: Lambda allows 128 to 10240 MB"}},
		{"memory too small", `{"lambda_memory_size": 64}`,
			[]string{"lambda_memory_size: 64 is out of range: Lambda allows 128 to 10240 MB"}},
		{"timeout zero", `{"lambda_timeout": 0}`,
			[]string{"lambda_timeout: 0 is out of range: Lambda allows 1 to 900 seconds"}},
		{"timeout too large", `{"stages": {"dev": {"lambda_timeout": 901}}}`,
			[]string{"stages.dev.lambda_timeout: 901 is out of range: Lambda allows 1 to 900 seconds"}},
		{"architecture amd64", `{"architecture": "amd64"}`,
			[]string{`architecture: "amd64" is not a Lambda architecture: did you mean "x86_64"?`}},
		{"architecture unknown", `{"stages": {"prod": {"architecture": "mips"}}}`,
			[]string{`stages.prod.architecture: "mips" is not a Lambda architecture: use "arm64"`}},
		{"manage_role false without role_id at top", `{"manage_role": false}`,
			[]string{path + `: manage_role: false requires role_id`}},
		{"manage_role false without role_id in stage", `{"stages": {"prod": {"manage_role": false}}}`,
			[]string{path + `: stages.prod.manage_role: false requires role_id`, `for stage "prod"`}},
		{"manage_role false at top, stage without role_id", `{"manage_role": false, "stages": {"prod": {}}}`,
			[]string{path + `: manage_role: false requires role_id (the ARN or name of an existing execution role) for stage "prod"`}},
		{"bad role ARN", `{"manage_role": false, "role_id": "arn:aws:iam::123:role/x"}`,
			[]string{`role_id: "arn:aws:iam::123:role/x" is not an IAM role ARN`}},
		{"bad role name", `{"manage_role": false, "role_id": "my role"}`,
			[]string{`role_id: "my role" is neither an IAM role ARN nor a role name`}},
		{"invalid stage name", `{"stages": {"my_stage": {}}}`,
			[]string{path + `: stages.my_stage: "my_stage" is not a valid stage name: it becomes part of the stack name <app>-<stage>`}},
		{"stage not an object", `{"stages": {"prod": 3}}`, []string{"stages.prod: must be an object, not a number"}},
		{"stages not an object", `{"stages": ["prod"]}`, []string{"stages: must be an object, not an array"}},
		{"env var invalid name", `{"environment_variables": {"1ABC": "x"}}`,
			[]string{`environment_variables.1ABC: "1ABC" is not a valid Lambda environment variable name`}},
		{"env var one character", `{"environment_variables": {"A": "x"}}`,
			[]string{`environment_variables.A: "A" is not a valid Lambda environment variable name`}},
		{"env var with dash", `{"stages": {"prod": {"environment_variables": {"MY-VAR": "x"}}}}`,
			[]string{`stages.prod.environment_variables.MY-VAR: "MY-VAR" is not a valid`}},
		{"env var reserved", `{"environment_variables": {"AWS_REGION": "us-east-1"}}`,
			[]string{`environment_variables.AWS_REGION: AWS_REGION is reserved: Lambda sets it itself`}},
		{"env var reserved by framework", `{"environment_variables": {"FRAMEWORK_STAGE": "x"}}`,
			[]string{`environment_variables.FRAMEWORK_STAGE: FRAMEWORK_STAGE is reserved: names starting with FRAMEWORK_ belong to the framework`}},
		{"env var value number", `{"environment_variables": {"PORT": 8080}}`,
			[]string{`environment_variables.PORT: must be a string, not a number: quote it, as in "8080"`}},
		{"env vars not an object", `{"environment_variables": ["A=B"]}`,
			[]string{"environment_variables: must be an object, not an array"}},
		{"env too large", `{"environment_variables": {"BIG": "` + strings.Repeat("x", 4094) + `"}}`,
			[]string{`environment_variables: stage`, `bytes of environment variables`}},
		{"env too large in a stage", `{"environment_variables": {"A1": "` + strings.Repeat("x", 2000) + `"}, "stages": {"prod": {"environment_variables": {"B1": "` + strings.Repeat("y", 2100) + `"}}}}`,
			[]string{`stages.prod.environment_variables: stage "prod" has 4104 bytes of environment variables (names plus values): Lambda allows 4096`}},
		{"too many tags", `{"tags": {` + manyTags(51) + `}}`, []string{`tags: stage "dev" has 51 tags: CloudFormation allows 50 per stack`}},
		{"tag aws prefix", `{"tags": {"aws:owner": "me"}}`, []string{"tags.aws:owner: tag keys starting with aws: are reserved"}},
		{"tag bad char", `{"tags": {"team": "a;b"}}`, []string{`tags.team: tag value "a;b" has characters AWS does not allow`}},
		{"api gateway stage invalid", `{"stages": {"prod": {"api_gateway_stage": "v1.0"}}}`,
			[]string{`stages.prod.api_gateway_stage: "v1.0" is not a valid API Gateway stage name`}},
		{"aws endpoint without scheme", `{"aws_endpoint": "localhost:4566"}`,
			[]string{path + `: aws_endpoint: "localhost:4566" is not an http(s) URL: give the AWS emulator's, such as http://localhost:4566 (LocalStack)`}},
		{"aws endpoint in a stage", `{"stages": {"dev": {"aws_endpoint": "ftp://x"}}}`,
			[]string{`stages.dev.aws_endpoint: "ftp://x" is not an http(s) URL`}},
		{"aws endpoint not a string", `{"aws_endpoint": 4566}`, []string{"aws_endpoint: must be a string, not a number"}},
		{"wrong version", `{"version": "2.0"}`, []string{`version: unsupported configuration version "2.0"`}},
		{"version as number", `{"version": 1.0}`, []string{"version: must be a string, not a number"}},
		{"app name invalid", `{"app_name": "my_app"}`, []string{`app_name: "my_app" is not a valid app name`}},
		{"null value", `{"lambda_timeout": null}`, []string{"lambda_timeout: must be a whole number of seconds, not null"}},
		{"several problems reported together", `{"lambda_timeout": 0, "stages": {"prod": {"architecture": "x"}}}`,
			[]string{"lambda_timeout: 0 is out of range", `stages.prod.architecture: "x" is not`}},
	})
}

// parseErrorCase is a file Parse refuses.
type parseErrorCase struct {
	name string
	json string
	want []string // each must appear in the error text
}

// testParseErrors checks that Parse refuses each case's file with a
// *config.Error naming path whose text holds each of the case's wants.
func testParseErrors(t *testing.T, tests []parseErrorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(path, []byte(tt.json))
			if err == nil {
				t.Fatalf("Parse succeeded (%+v), want an error containing %q", f, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n  %s\ndoes not contain\n  %s", err, w)
				}
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Path != path {
				t.Errorf("error is not a *config.Error naming %s: %#v", path, err)
			}
		})
	}
}

func TestStageResolution(t *testing.T) {
	const file = `{
  "version": "1.0",
  "app_name": "hello",
  "lambda_memory_size": 256,
  "architecture": "x86_64",
  "environment_variables": {"LOG_LEVEL": "info", "MODE": "default"},
  "tags": {"team": "x"},
  "stages": {
    "dev":  {"api_gateway_stage": "api"},
    "prod": {"lambda_memory_size": 512, "lambda_timeout": 20, "autogen_policy": false,
             "environment_variables": {"MODE": "prod"}, "tags": {"env": "prod"}},
    "ext":  {"manage_role": false, "role_id": "arn:aws:iam::123456789012:role/service/existing"}
  }
}`
	f, err := Parse(path, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.StageNames(), []string{"dev", "ext", "prod"}; !reflect.DeepEqual(got, want) {
		t.Errorf("StageNames() = %v, want %v", got, want)
	}
	tests := []struct {
		stage string
		want  Stage
	}{
		{"dev", Stage{Name: "dev", ManageRole: true, LambdaMemorySize: 256, LambdaTimeout: 60, Architecture: "x86_64",
			APIGatewayStage: "api", AutogenPolicy: true,
			EnvironmentVariables: map[string]string{"LOG_LEVEL": "info", "MODE": "default"},
			Tags:                 map[string]string{"team": "x"}}},
		{"prod", Stage{Name: "prod", ManageRole: true, LambdaMemorySize: 512, LambdaTimeout: 20, Architecture: "x86_64",
			APIGatewayStage: "prod", AutogenPolicy: false,
			EnvironmentVariables: map[string]string{"LOG_LEVEL": "info", "MODE": "prod"},
			Tags:                 map[string]string{"team": "x", "env": "prod"}}},
		{"ext", Stage{Name: "ext", ManageRole: false, RoleID: "arn:aws:iam::123456789012:role/service/existing",
			LambdaMemorySize: 256, LambdaTimeout: 60, Architecture: "x86_64", APIGatewayStage: "ext", AutogenPolicy: true,
			EnvironmentVariables: map[string]string{"LOG_LEVEL": "info", "MODE": "default"},
			Tags:                 map[string]string{"team": "x"}}},
		// A stage the file does not declare uses the top-level settings.
		{"staging", Stage{Name: "staging", ManageRole: true, LambdaMemorySize: 256, LambdaTimeout: 60, Architecture: "x86_64",
			APIGatewayStage: "staging", AutogenPolicy: true,
			EnvironmentVariables: map[string]string{"LOG_LEVEL": "info", "MODE": "default"},
			Tags:                 map[string]string{"team": "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.stage, func(t *testing.T) {
			got, err := f.Stage(tt.stage)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("Stage(%q) =\n  %+v\nwant\n  %+v", tt.stage, *got, tt.want)
			}
		})
	}
	// Resolving must not change the file: prod's MODE must not leak into dev.
	dev, _ := f.Stage("dev")
	if dev.EnvironmentVariables["MODE"] != "default" {
		t.Errorf("dev MODE = %q after resolving prod", dev.EnvironmentVariables["MODE"])
	}
}

func TestMinimalFileUsesDefaults(t *testing.T) {
	f, err := Parse(path, []byte(`{"version": "1.0", "app_name": "hello"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Stage("dev")
	if err != nil {
		t.Fatal(err)
	}
	want := Stage{Name: "dev", ManageRole: true, LambdaMemorySize: 128, LambdaTimeout: 60, Architecture: "arm64",
		APIGatewayStage: "dev", AutogenPolicy: true, EnvironmentVariables: map[string]string{}, Tags: map[string]string{}}
	if !reflect.DeepEqual(*s, want) {
		t.Errorf("Stage(dev) = %+v, want %+v", *s, want)
	}
}

func TestStageErrors(t *testing.T) {
	f, err := Parse(path, []byte(`{"manage_role": false, "stages": {"prod": {"role_id": "existing-role"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Stage("prod"); err != nil {
		t.Errorf("Stage(prod) with role_id: %v", err)
	}
	tests := []struct{ stage, want string }{
		{"dev", path + `: manage_role: false requires role_id (the ARN or name of an existing execution role) for stage "dev"`},
		{"bad_name", path + `: stage "bad_name": "bad_name" is not a valid stage name`},
		{"", path + `: stage "": the stage name is empty`},
	}
	for _, tt := range tests {
		_, err := f.Stage(tt.stage)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Stage(%q) error = %v, want it to contain %q", tt.stage, err, tt.want)
		}
	}
}

func TestDefaultGolden(t *testing.T) {
	data, err := Default("hello").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "default.json"), data, *update)
}

// TestDefaultTakesAnyFrontDoor: the file new-project writes serves its dev
// stage at /dev/ on a REST API, and takes api_type http or function_url
// on that stage with no other edit.
func TestDefaultTakesAnyFrontDoor(t *testing.T) {
	data, err := Default("hello").Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stage(DefaultStage)
	if err != nil || st.APIGatewayStage != DefaultStage {
		t.Fatalf("dev stage %+v, %v: want its REST API stage named dev", st, err)
	}
	for _, door := range []string{APIHTTP, APIFunctionURL} {
		edited := strings.Replace(string(data), `"dev": {}`, `"dev": {"api_type": "`+door+`"}`, 1)
		if edited == string(data) {
			t.Fatalf("the default file has no empty dev stage to edit:\n%s", data)
		}
		f, err := Parse(path, []byte(edited))
		if err == nil {
			_, err = f.Stage(DefaultStage)
		}
		if err != nil {
			t.Errorf("api_type %s added to the default file: %v", door, err)
		}
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	const file = `{"version": "1.0", "app_name": "shop", "manage_role": false, "role_id": "r1",
	  "environment_variables": {"ZED": "1", "ALPHA": "2"}, "tags": {"b": "1", "a": "2"},
	  "stages": {"prod": {"lambda_memory_size": 1024, "tags": {"env": "prod"}}, "dev": {"architecture": "x86_64"}}}`
	f, err := Parse(path, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	out1, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(out1), "}\n") || !strings.Contains(string(out1), "\n  \"app_name\": \"shop\",\n") {
		t.Errorf("Marshal output is not indented JSON with a trailing newline:\n%s", out1)
	}
	if strings.Index(string(out1), `"ALPHA"`) > strings.Index(string(out1), `"ZED"`) {
		t.Errorf("map keys are not sorted:\n%s", out1)
	}
	g, err := Parse(path, out1)
	if err != nil {
		t.Fatalf("Parse(Marshal()) failed: %v\n%s", err, out1)
	}
	g.Path, f.Path = "", ""
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip changed the file:\n%+v\n%+v", f, g)
	}
	for i := 0; i < 5; i++ {
		out, _ := g.Marshal()
		if string(out) != string(out1) {
			t.Fatalf("Marshal is not deterministic:\n%s\n%s", out, out1)
		}
	}
}

func TestLoadAndWrite(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "run `framework new-project`") {
		t.Fatalf("Load of a project without config: %v, want a not-exist error telling to run framework new-project", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, ".framework", "config.json")) {
		t.Errorf("error %q does not name the file", err)
	}

	f := Default("hello")
	if err := f.Write(dir); err != nil {
		t.Fatal(err)
	}
	if f.Path != FilePath(dir) {
		t.Errorf("Path after Write = %q, want %q", f.Path, FilePath(dir))
	}
	g, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if g.AppName != "hello" || g.Path != FilePath(dir) {
		t.Errorf("Load = %+v", g)
	}
	s, err := g.Stage("dev")
	if err != nil {
		t.Fatal(err)
	}
	if s.APIGatewayStage != "dev" || s.LambdaTimeout != DefaultLambdaTimeout {
		t.Errorf("dev stage of the default file = %+v", s)
	}

	bad := Default("hello")
	bad.Defaults.LambdaMemorySize = ptr(1)
	if err := bad.Write(t.TempDir()); err == nil || !strings.Contains(err.Error(), "lambda_memory_size: 1 is out of range") {
		t.Errorf("Write of an invalid config: %v, want a validation error", err)
	}
}

func TestEnviron(t *testing.T) {
	s := &Stage{EnvironmentVariables: map[string]string{"B": "2=3", "A": ""}}
	if got, want := s.Environ(), []string{"A=", "B=2=3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Environ() = %q, want %q", got, want)
	}
}

func TestNames(t *testing.T) {
	for _, name := range []string{"hello", "my-app", "App2"} {
		if err := CheckAppName(name); err != nil {
			t.Errorf("CheckAppName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", "2app", "my_app", "my app", strings.Repeat("a", 64)} {
		if err := CheckAppName(name); err == nil {
			t.Errorf("CheckAppName(%q) accepted an invalid name", name)
		}
	}
	for _, name := range []string{"dev", "prod", "pr-123", "2024"} {
		if err := CheckStageName(name); err != nil {
			t.Errorf("CheckStageName(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"", "-dev", "dev_1", "dév", strings.Repeat("a", 65)} {
		if err := CheckStageName(name); err == nil {
			t.Errorf("CheckStageName(%q) accepted an invalid name", name)
		}
	}
}

// manyTags returns n distinct "kN": "v" members of a JSON object.
func manyTags(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%q: \"v\"", fmt.Sprintf("k%d", i))
	}
	return strings.Join(parts, ", ")
}

// TestAWSEndpoint: aws_endpoint at the top level is every stage's
// emulator, a stage's own replaces it, and no key means none.
func TestAWSEndpoint(t *testing.T) {
	f, err := Parse(path, []byte(`{"aws_endpoint": "http://127.0.0.1:5000", "stages": {"dev": {}, "test": {"aws_endpoint": "http://localhost:4566"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for stage, want := range map[string]string{"dev": "http://127.0.0.1:5000", "test": "http://localhost:4566", "other": "http://127.0.0.1:5000"} {
		if st, err := f.Stage(stage); err != nil || st.AWSEndpoint != want {
			t.Errorf("stage %s: aws_endpoint %q (%v), want %q", stage, st.AWSEndpoint, err, want)
		}
	}
	f, err = Parse(path, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stage("dev"); st.AWSEndpoint != "" {
		t.Errorf("no key: aws_endpoint %q", st.AWSEndpoint)
	}
}
