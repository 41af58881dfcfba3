package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/framework-dev/framework/internal/names"
)

var (
	appNameRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*$`)
	stageRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)
	apigwRE    = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	envNameRE  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]+$`) // Lambda's own pattern: two characters at least
	roleNameRE = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)
	roleARNRE  = regexp.MustCompile(`^arn:aws[A-Za-z-]*:iam::\d{12}:role/(?:[\x{21}-\x{7E}]*/)?[\w+=,.@-]{1,64}$`)
	tagCharsRE = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)
)

// Lengths that keep the stack name <app>-<stage> within CloudFormation's 128 characters.
const (
	maxAppNameLen   = 63
	maxStageNameLen = 64
)

// reservedEnv are the environment variables Lambda sets itself and refuses
// in a function's configuration.
var reservedEnv = map[string]bool{
	"_HANDLER": true, "_X_AMZN_TRACE_ID": true, "AWS_DEFAULT_REGION": true, "AWS_REGION": true,
	"AWS_EXECUTION_ENV": true, "AWS_LAMBDA_FUNCTION_NAME": true, "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": true,
	"AWS_LAMBDA_FUNCTION_VERSION": true, "AWS_LAMBDA_INITIALIZATION_TYPE": true,
	"AWS_LAMBDA_LOG_GROUP_NAME": true, "AWS_LAMBDA_LOG_STREAM_NAME": true, "AWS_ACCESS_KEY": true,
	"AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true,
	names.EnvLambdaRuntimeAPI: true, "LAMBDA_TASK_ROOT": true, "LAMBDA_RUNTIME_DIR": true,
}

// ReservedEnvPrefix starts the names of the environment variables the
// framework itself sets (FRAMEWORK_MODE, FRAMEWORK_STAGE, ...); the
// configuration may not set them.
const ReservedEnvPrefix = names.EnvPrefix

// CheckAppName reports whether name can be an app name: it starts the stack
// name <app>-<stage>, which CloudFormation limits to letters, digits and
// hyphens, starting with a letter.
func CheckAppName(name string) error {
	switch {
	case name == "":
		return errors.New("the app name is empty: it starts the stack name <app>-<stage>, so give it letters, digits and hyphens, starting with a letter")
	case !appNameRE.MatchString(name):
		return fmt.Errorf("%q is not a valid app name: it starts the stack name <app>-<stage>, so use only letters, digits and hyphens, starting with a letter", name)
	case len(name) > maxAppNameLen:
		return fmt.Errorf("app name %q is %d characters long: at most %d fit in a stack name", name, len(name), maxAppNameLen)
	}
	return nil
}

// CheckStageName reports whether name can be a stage name: it ends the
// stack name <app>-<stage>, so letters, digits and hyphens only.
func CheckStageName(name string) error {
	switch {
	case name == "":
		return errors.New("the stage name is empty: use letters, digits and hyphens, for example dev or prod")
	case !stageRE.MatchString(name):
		return fmt.Errorf("%q is not a valid stage name: it becomes part of the stack name <app>-<stage>, so use only letters, digits and hyphens, starting with a letter or digit", name)
	case len(name) > maxStageNameLen:
		return fmt.Errorf("stage name %q is %d characters long: at most %d fit in a stack name", name, len(name), maxStageNameLen)
	}
	return nil
}

// CheckAWSEndpoint checks the URL of an AWS emulator (aws_endpoint): an
// http or https URL with a host.
func CheckAWSEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL: give the AWS emulator's, such as http://localhost:4566 (LocalStack) or http://127.0.0.1:5000 (moto), or remove the key to use the deployed stage's resources", endpoint)
	}
	return nil
}

func checkAPIGatewayStage(name string) error {
	switch {
	case name == "":
		return errors.New("is empty: give the REST API stage a name (letters, digits, hyphens and underscores), or remove the key to use the stage name")
	case !apigwRE.MatchString(name):
		return fmt.Errorf("%q is not a valid API Gateway stage name: use only letters, digits, hyphens and underscores", name)
	case len(name) > 128:
		return fmt.Errorf("%q is longer than the 128 characters API Gateway allows", name)
	}
	return nil
}

func checkRoleID(id string) error {
	if id == "" {
		return errors.New("is empty: give the ARN or the name of an existing IAM role, or remove the key")
	}
	if strings.HasPrefix(id, "arn:") {
		if !roleARNRE.MatchString(id) {
			return fmt.Errorf("%q is not an IAM role ARN: expected arn:aws:iam::<12-digit account>:role/<name>", id)
		}
		return nil
	}
	if !roleNameRE.MatchString(id) {
		return fmt.Errorf("%q is neither an IAM role ARN nor a role name (up to 64 letters, digits and +=,.@_-)", id)
	}
	return nil
}

func checkEnvName(name string) error {
	switch {
	case reservedEnv[name]:
		return fmt.Errorf("%s is reserved: Lambda sets it itself and refuses it in the function's configuration; use another name", name)
	case strings.HasPrefix(name, ReservedEnvPrefix):
		return fmt.Errorf("%s is reserved: names starting with %s belong to the framework; use another name", name, ReservedEnvPrefix)
	case !envNameRE.MatchString(name):
		return fmt.Errorf("%q is not a valid Lambda environment variable name: start with a letter, then letters, digits or underscores (at least two characters in all)", name)
	}
	return nil
}

func checkTag(key, value string) error {
	switch {
	case key == "":
		return errors.New("a tag key is empty")
	case utf8.RuneCountInString(key) > 128:
		return fmt.Errorf("tag key is longer than the 128 characters AWS allows")
	case strings.HasPrefix(strings.ToLower(key), "aws:"):
		return fmt.Errorf("tag keys starting with aws: are reserved for AWS; use another key")
	case !tagCharsRE.MatchString(key):
		return fmt.Errorf("tag key %q has characters AWS does not allow: use letters, digits, spaces and _ . : / = + - @", key)
	case utf8.RuneCountInString(value) > 256:
		return fmt.Errorf("tag value is longer than the 256 characters AWS allows")
	case !tagCharsRE.MatchString(value):
		return fmt.Errorf("tag value %q has characters AWS does not allow: use letters, digits, spaces and _ . : / = + - @", value)
	}
	return nil
}

// resolve merges the package defaults, the file's top level and one stage's
// settings, then checks the rules that span keys. declared tells whether the
// stage is in the file, which decides the key path errors name.
func resolve(path, name string, top, st Settings, declared bool) (*Stage, []error) {
	s := &Stage{
		Name:                 name,
		ManageRole:           DefaultManageRole,
		AutogenPolicy:        DefaultAutogenPolicy,
		LambdaMemorySize:     DefaultLambdaMemorySize,
		LambdaTimeout:        DefaultLambdaTimeout,
		Architecture:         DefaultArchitecture,
		APIGatewayStage:      name,
		EnvironmentVariables: map[string]string{},
		Tags:                 map[string]string{},
	}
	// keyOf names the key path of a setting: the stage's when the stage sets
	// it, the top level's otherwise.
	stagePrefix := "stages." + name + "."
	keyOf := func(key string, inStage bool) string {
		if declared && inStage {
			return stagePrefix + key
		}
		return key
	}
	for _, layer := range []Settings{top, st} {
		if layer.ManageRole != nil {
			s.ManageRole = *layer.ManageRole
		}
		if layer.RoleID != nil {
			s.RoleID = *layer.RoleID
		}
		if layer.AutogenPolicy != nil {
			s.AutogenPolicy = *layer.AutogenPolicy
		}
		if layer.LambdaMemorySize != nil {
			s.LambdaMemorySize = *layer.LambdaMemorySize
		}
		if layer.LambdaTimeout != nil {
			s.LambdaTimeout = *layer.LambdaTimeout
		}
		if layer.Architecture != nil {
			s.Architecture = *layer.Architecture
		}
		if layer.APIGatewayStage != nil {
			s.APIGatewayStage = *layer.APIGatewayStage
		}
		if layer.AWSEndpoint != nil {
			s.AWSEndpoint = *layer.AWSEndpoint
		}
		maps.Copy(s.EnvironmentVariables, layer.EnvironmentVariables)
		maps.Copy(s.Tags, layer.Tags)
	}
	s.LambdaFunctions = resolveFunctions(s, top, st)
	resolveLogging(s, top, st)

	var errs []error
	fail := func(key, format string, args ...any) {
		errs = append(errs, &Error{Path: path, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if !s.ManageRole && s.RoleID == "" {
		fail(keyOf("manage_role", st.ManageRole != nil),
			"false requires role_id (the ARN or name of an existing execution role) for stage %q: add role_id, or set manage_role to true to let the framework create the role", name)
	}
	size := 0
	for k, v := range s.EnvironmentVariables {
		size += len(k) + len(v)
	}
	if size > MaxEnvironmentSize {
		fail(keyOf("environment_variables", st.EnvironmentVariables != nil),
			"stage %q has %d bytes of environment variables (names plus values): Lambda allows %d in all; move large values to SSM Parameter Store or S3", name, size, MaxEnvironmentSize)
	}
	if len(s.Tags) > MaxTags {
		fail(keyOf("tags", st.Tags != nil), "stage %q has %d tags: CloudFormation allows %d per stack", name, len(s.Tags), MaxTags)
	}
	errs = append(errs, resolveFrontDoor(path, name, s, top, st, keyOf)...)
	errs = append(errs, resolveOperations(path, name, s, top.OperationSettings, st.OperationSettings, keyOf)...)
	return s, errs
}
