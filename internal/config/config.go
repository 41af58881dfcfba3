// Package config reads, validates and writes a project's configuration file,
// .framework/config.json: top-level defaults plus per-stage overrides of the
// settings that shape the deployed function, its role and its REST API stage.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/userfile"
)

// Dir is the project's configuration directory, relative to the project root.
const Dir = names.ConfigDir

// FileName is the name of the configuration file inside Dir.
const FileName = "config.json"

// FormatVersion is the only configuration format version this package reads.
const FormatVersion = "1.0"

// Defaults applied when neither the top level nor the stage sets a key.
const (
	DefaultManageRole       = true
	DefaultAutogenPolicy    = true
	DefaultLambdaMemorySize = 128 // MB
	DefaultLambdaTimeout    = 60  // seconds
	DefaultArchitecture     = ArchARM64
	DefaultStage            = names.DefaultStage // the stage commands use when --stage is not given
)

// Limits enforced on values, as AWS enforces them.
const (
	MinLambdaMemorySize = 128   // MB
	MaxLambdaMemorySize = 10240 // MB
	MinLambdaTimeout    = 1     // seconds
	MaxLambdaTimeout    = 900   // seconds; API Gateway still ends a request after 29 s
	// MaxEnvironmentSize is Lambda's limit on the total size of a function's
	// environment variables (keys plus values), in bytes.
	MaxEnvironmentSize = 4096
	// MaxTags is CloudFormation's limit on the number of stack tags.
	MaxTags = 50
)

// Lambda's names of the architectures a function runs on, the values the
// file's architecture key and the construct's Config accept. This is the
// one place they are spelled.
const (
	ArchARM64 = "arm64"  // AWS Graviton; the default
	ArchX8664 = "x86_64" // Intel and AMD
)

// FilePath returns the path of the configuration file of the project in projectDir.
func FilePath(projectDir string) string {
	return filepath.Join(projectDir, names.ConfigFile)
}

// File is a parsed and validated configuration file: the top-level defaults
// and the stages it declares, before any stage is resolved.
type File struct {
	// Path is the file the configuration was read from (used in error messages).
	Path string
	// Version is the configuration format version, FormatVersion.
	Version string
	// AppName is the app's name as new-project wrote it; may be empty.
	AppName string
	// Schema is the file's "$schema", the JSON Schema editors check it
	// with; the framework keeps it when writing and reads nothing from it.
	Schema string
	// Defaults are the settings written at the top level of the file.
	Defaults Settings
	// Stages are the per-stage overrides, keyed by stage name.
	Stages map[string]Settings
}

// Settings are the keys that may appear both at the top level and in a
// stage. A nil pointer or map means the key is absent.
type Settings struct {
	ManageRole           *bool             `json:"manage_role,omitempty"`
	RoleID               *string           `json:"role_id,omitempty"`
	AutogenPolicy        *bool             `json:"autogen_policy,omitempty"`
	LambdaMemorySize     *int              `json:"lambda_memory_size,omitempty"`
	LambdaTimeout        *int              `json:"lambda_timeout,omitempty"`
	Architecture         *string           `json:"architecture,omitempty"`
	APIGatewayStage      *string           `json:"api_gateway_stage,omitempty"`
	EnvironmentVariables map[string]string `json:"environment_variables,omitempty"`
	Tags                 map[string]string `json:"tags,omitempty"`
	// LambdaFunctions are per-function settings, keyed by function name.
	LambdaFunctions map[string]FunctionSettings `json:"lambda_functions,omitempty"`
	// AWSEndpoint is the AWS emulator `framework local` uses (aws_endpoint).
	AWSEndpoint *string `json:"aws_endpoint,omitempty"`

	// OperationSettings are the production settings (operations.go),
	// written inline among the other keys.
	OperationSettings
	// FrontDoorSettings choose the stage's front door (frontdoor.go).
	FrontDoorSettings
	// LoggingSettings set framework.Logger's level (logging.go).
	LoggingSettings
}

// Stage is the resolved configuration of one stage: the defaults of this
// package, then the file's top-level keys, then the stage's own keys.
type Stage struct {
	// Name is the stage name; the stack is named <app>-<Name>.
	Name string
	// ManageRole is true (the default) when the framework creates the
	// execution role and its policy.
	ManageRole bool
	// RoleID is the ARN or name of an existing execution role; required when
	// ManageRole is false and ignored otherwise.
	RoleID string
	// EnvironmentVariables are the function's environment: the top-level map
	// merged with the stage's, the stage winning on equal keys. Never nil.
	EnvironmentVariables map[string]string
	// LambdaMemorySize is the function's memory in MB (128 to 10240, default 128).
	LambdaMemorySize int
	// LambdaTimeout is the function's timeout in seconds (1 to 900, default
	// 60). API Gateway ends every request after 29 seconds whatever this is,
	// so a longer timeout only helps work the function does after replying.
	LambdaTimeout int
	// Architecture is ArchARM64 (default) or ArchX8664.
	Architecture string
	// APIGatewayStage is the REST API stage name, the last segment of the
	// endpoint URL; defaults to Name.
	APIGatewayStage string
	// AutogenPolicy is true (the default) when the policy is generated from
	// the source; false uses .framework/policy.json as written.
	AutogenPolicy bool
	// Tags are the stack's tags: the top-level map merged with the stage's. Never nil.
	Tags map[string]string
	// LambdaFunctions are the memory and timeout of the functions named in
	// lambda_functions (top level, then the stage's, key by key, over the
	// stage's own values); nil when there is none.
	LambdaFunctions map[string]FunctionConfig
	// AWSEndpoint is the URL of the AWS emulator (LocalStack, moto) that
	// `framework local` and `invoke --local` use when --aws-endpoint is not
	// given; empty means the deployed stage's resources. Deploys ignore it.
	AWSEndpoint string
	// Operations are the production settings (operations.go).
	Operations
	// FrontDoor is the stage's front door (frontdoor.go).
	FrontDoor
	// Logging is framework.Logger's level and sampling (logging.go),
	// also in EnvironmentVariables.
	Logging
}

// Environ returns the stage's environment variables as sorted KEY=VALUE
// strings, ready to append to os.Environ() for a local run.
func (s *Stage) Environ() []string {
	env := make([]string, 0, len(s.EnvironmentVariables))
	for _, k := range slices.Sorted(maps.Keys(s.EnvironmentVariables)) {
		env = append(env, k+"="+s.EnvironmentVariables[k])
	}
	return env
}

// Load reads and validates <projectDir>/.framework/config.json. Anything
// but a regular file (a symbolic link to one is fine) and a file over
// userfile.MaxProjectFile are refused without being read whole.
func Load(projectDir string) (*File, error) {
	path := FilePath(projectDir)
	data, err := userfile.Read(path, "the project configuration", userfile.MaxProjectFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A symbolic link whose target is missing is a configuration
			// the user has, not an absent one: it must not serve or deploy
			// with the defaults.
			if target, lerr := os.Readlink(path); lerr == nil {
				return nil, fmt.Errorf("%s: is a symbolic link to %s, which does not exist: restore the file it points to, or replace the link with the configuration itself", path, target)
			}
			return nil, fmt.Errorf("%s: no configuration file: run `framework new-project` to create a project, or create the file with at least {\"version\": %q, \"app_name\": \"<name>\"}: %w", path, FormatVersion, err)
		}
		if userfile.IsRefused(err) {
			return nil, err
		}
		return nil, fmt.Errorf("read configuration %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse validates data read from path (path is used only in error messages).
// All problems found are returned together, each a *Error.
func Parse(path string, data []byte) (*File, error) {
	p := &parser{path: path}
	f := p.parse(data)
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return f, nil
}

// Stage resolves the settings of one stage: defaults, then the stage's
// overrides. A stage absent from the file uses the defaults.
func (f *File) Stage(name string) (*Stage, error) {
	if err := CheckStageName(name); err != nil {
		return nil, fmt.Errorf("%s: stage %q: %w", f.Path, name, err)
	}
	st, declared := f.Stages[name] // zero Settings when absent
	s, errs := resolve(f.Path, name, f.Defaults, st, declared)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// StageNames returns the names of the stages the file declares, sorted.
func (f *File) StageNames() []string {
	return slices.Sorted(maps.Keys(f.Stages))
}

// Default returns the configuration new-project writes for appName: the
// format version, the app name, every default spelled out at the top level
// so that users see what they can change, and a dev stage.
func Default(appName string) *File {
	return &File{
		Version: FormatVersion,
		AppName: appName,
		Defaults: Settings{
			ManageRole:       ptr(DefaultManageRole),
			AutogenPolicy:    ptr(DefaultAutogenPolicy),
			LambdaMemorySize: ptr(DefaultLambdaMemorySize),
			LambdaTimeout:    ptr(DefaultLambdaTimeout),
			Architecture:     ptr(DefaultArchitecture),
		},
		// The dev stage with no key of its own: its REST API stage is named
		// dev anyway (api_gateway_stage defaults to the stage's name), and
		// a key only a REST API has would make switching it to another
		// front door (api_type) an edit of two keys instead of one.
		Stages: map[string]Settings{
			DefaultStage: {},
		},
	}
}

// fileJSON fixes the key order of the written file.
type fileJSON struct {
	Schema   string              `json:"$schema,omitempty"`
	Version  string              `json:"version"`
	AppName  string              `json:"app_name,omitempty"`
	Settings                     // inlined top-level settings
	Stages   map[string]Settings `json:"stages,omitempty"`
}

// Marshal encodes f as indented JSON with a trailing newline. The output is
// deterministic: keys in a fixed order, map keys sorted.
func (f *File) Marshal() ([]byte, error) {
	v := fileJSON{Schema: f.Schema, Version: f.Version, AppName: f.AppName, Settings: f.Defaults, Stages: f.Stages}
	if v.Version == "" {
		v.Version = FormatVersion
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode configuration: %w", err)
	}
	return buf.Bytes(), nil
}

// Write validates f, then writes it to <projectDir>/.framework/config.json,
// creating the directory when needed, and sets f.Path to the file written.
func (f *File) Write(projectDir string) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	path := FilePath(projectDir)
	if _, err := Parse(path, data); err != nil {
		return fmt.Errorf("refusing to write an invalid configuration: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write configuration %s: %w", path, err)
	}
	f.Path = path
	return nil
}

func ptr[T any](v T) *T { return &v }

// Error is one problem in a configuration file.
type Error struct {
	// Path is the configuration file.
	Path string
	// Line and Column locate a syntax error (1-based); zero for other problems.
	Line, Column int
	// Key is the dotted key path of the offending value, for example
	// "stages.prod.lambda_memory_size"; empty for problems with the whole file.
	Key string
	// Msg says what is wrong and how to fix it.
	Msg string
}

// Error formats the problem as path[:line:column]: key: message. A key
// segment holding a character that is not printable (an escape sequence,
// a NUL) is quoted, and such characters in the message are escaped, so
// that a value from the file never reaches the terminal raw.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(quoteKey(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(escapeUnprintable(e.Msg))
	return b.String()
}

// quoteKey quotes each segment of a dotted key path that holds a
// character that is not printable: stages."d\x1bev".tags.
func quoteKey(key string) string {
	if !strings.ContainsFunc(key, unprintable) {
		return key
	}
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if strings.ContainsFunc(p, unprintable) {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

// escapeUnprintable replaces each character of s that is not printable
// with its Go escape (\x1b, \x00, \u0085).
func escapeUnprintable(s string) string {
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unprintable(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unprintable tells a character a terminal would act on rather than show:
// the control characters (C0, DEL, C1). The JSON decoder has already
// replaced invalid UTF-8.
func unprintable(r rune) bool {
	return unicode.IsControl(r)
}
