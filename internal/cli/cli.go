// Package cli is the `framework` command line tool: a kong command tree in
// which every command is a struct with a Run method that parses nothing
// itself and delegates to a package under internal/.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/framework-dev/framework/internal/localinvoke"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/pipeline"
	"github.com/framework-dev/framework/internal/procgroup"
	"github.com/framework-dev/framework/internal/scratch"
	"github.com/framework-dev/framework/internal/synth"
)

// Version is the CLI's version, set at build time with -ldflags -X; when
// it is not, a CLI installed with `go install .../cli/framework@VERSION`
// reports the module version it was built from (see version).
var Version = devVersion

// devVersion is Version when no version was set at build time.
const devVersion = "0.1.0-dev"

// version is the CLI's version: Version when set at build time, else the
// framework module's version recorded in the binary by `go install
// ...@VERSION` (without its "v"), else devVersion.
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(Version, bi)
}

// versionOf is version for the -ldflags value v and the build info bi
// (nil when the binary records none).
func versionOf(v string, bi *debug.BuildInfo) string {
	if v != devVersion {
		return v
	}
	if bi != nil && bi.Main.Path == synth.Module && synth.Fetchable(bi.Main.Version) {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return v
}

// SourceDir is the directory of the framework checkout the CLI was built
// from, set by `make build` with -ldflags -X. new-project uses it to point a
// development build's projects at this checkout; it is empty for released
// builds, which require the framework module by version instead.
var SourceDir = ""

// Globals are the flags every command accepts.
type Globals struct {
	ProjectDir string `name:"project-dir" short:"C" default:"." help:"Directory of the project (the one holding .framework/)." type:"path"`
	Verbose    bool   `short:"v" help:"Print more: the AWS SDK's own log lines (its warnings about retries, connections and credentials) on stderr; for synth, how long each step took (engine build and start, the two Go builds, Node.js and aws-cdk-lib, CDK synthesis)."`
}

// CLI is the root of the command tree.
type CLI struct {
	Globals

	Version kong.VersionFlag `help:"Print the version and exit."`

	NewProject NewProjectCmd `cmd:"" name:"new-project" help:"Create a new project directory."`
	Local      LocalCmd      `cmd:"" help:"Serve the app on a local HTTP server, rebuilding on every edit."`
	Synth      SynthCmd      `cmd:"" help:"Synthesize the stage's CloudFormation stack into a cloud assembly."`
	Diff       DiffCmd       `cmd:"" help:"Show what a deploy would change in the stage's stack."`
	Deploy     DeployCmd     `cmd:"" help:"Deploy the app to a stage (one CloudFormation stack per stage)."`
	URL        URLCmd        `cmd:"" name:"url" help:"Print the deployed base URL of a stage."`
	Logs       LogsCmd       `cmd:"" help:"Print a deployed function's CloudWatch Logs (--follow to keep printing)."`
	Invoke     InvokeCmd     `cmd:"" help:"Invoke a deployed function and print its result and the tail of its log."`
	Secret     SecretCmd     `cmd:"" help:"Set the values of the app's declared secrets and parameters."`
	Destroy    DestroyCmd    `cmd:"" aliases:"delete" help:"Delete a stage's stack: its REST API, function and role."`
	GenPolicy  GenPolicyCmd  `cmd:"" name:"gen-policy" help:"Print the IAM policy generated from the app's AWS SDK calls."`
	OpenAPI    OpenAPICmd    `cmd:"" name:"openapi" help:"Write the OpenAPI 3.0 document of the app (routes, typed schemas, errors, security)."`
	Cache      CacheCmd      `cmd:"" help:"Show the CLI's cache of synthesis engines and project builds (--json), or clear it (cache clean)."`

	GeneratePipeline GeneratePipelineCmd `cmd:"" name:"generate-pipeline" help:"Write a CI/CD pipeline for the app (--github): a GitHub Actions workflow that tests, diffs pull requests and deploys the main branch, and the CloudFormation template of the OIDC-trusted AWS roles it runs with."`
}

// ExitError carries a specific exit code for a failed command.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Main runs the CLI with args (without the program name) and returns the
// process exit code. Errors are printed as one line on stderr.
func Main(args []string, stdout, stderr io.Writer) int {
	var root CLI
	return run(&root, args, processEnv(stdout, stderr))
}

// MainEnv runs the CLI with args in env (tests give their own streams,
// terminal answers, environment and synthesis) and returns the exit code.
func MainEnv(args []string, env *Env) int {
	var root CLI
	return run(&root, args, env)
}

// vars are the values kong writes in place of ${name} in the flags'
// defaults and help texts: the version, the default stage and the stage
// names hotswap takes for production, and framework local's cap on each
// function's processes and how long it keeps an idle one.
func vars() kong.Vars {
	return kong.Vars{
		"version":              version(),
		"default_stage":        names.DefaultStage,
		"production_stages":    strings.Join(names.ProductionStages, ", "),
		"pipeline_workflow":    pipeline.DefaultWorkflowPath,
		"pipeline_template":    pipeline.DefaultTemplatePath,
		"function_concurrency": strconv.Itoa(localinvoke.DefaultMaxProcesses),
		"function_idle":        fmt.Sprintf("%.0f minutes", localinvoke.DefaultIdleTimeout.Minutes()),
	}
}

// run parses args into the command tree root and runs the chosen command
// with env bound for its Run method.
func run(root any, args []string, env *Env) int {
	env = env.withDefaults()
	stdout, stderr := env.Stdout, env.Stderr
	exitCode := -1
	parser, err := kong.New(root,
		kong.Name(cliName),
		kong.Description(cliDescription),
		kong.UsageOnError(),
		vars(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exitCode = code; panic(exitSignal{}) }),
		kong.BindTo(stdout, (*io.Writer)(nil)),
		kong.Bind(env),
	)
	if err != nil {
		fmt.Fprintf(stderr, "framework: internal error: %v\n", err)
		return 1
	}
	code := func() (code int) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(exitSignal); ok {
					code = exitCode
					return
				}
				// A bug of ours: one line, the trace only on request.
				fmt.Fprintf(stderr, "framework: internal error: %v (please report it with the command you ran; set %s=1 for the stack trace)\n", r, names.EnvDebug)
				if env.Getenv(names.EnvDebug) == "1" {
					fmt.Fprintf(stderr, "%s", debug.Stack())
				}
				code = 70
			}
		}()
		ctx, err := parser.Parse(args)
		if err != nil {
			fmt.Fprintf(stderr, "framework: %s\n", parseError(err))
			return 2
		}
		if r, ok := root.(*CLI); ok {
			ctx.Bind(&r.Globals)
			if r.Verbose {
				env.SDKLog = env.Stderr
			}
		}
		if err := ctx.Run(); err != nil {
			fmt.Fprintf(stderr, "Error: %s\n", oneLine(err))
			var ee *ExitError
			if errors.As(err, &ee) {
				return ee.Code
			}
			return 1
		}
		return 0
	}()
	return code
}

type exitSignal struct{}

// missingValue matches kong's report of a flag given last without its
// value: `--port: expected port value but got "EOL" (<EOL>)`.
var missingValue = regexp.MustCompile(`^(-[^:]+): expected .* value but got "EOL" \(<EOL>\)$`)

// parseError is the one line for an error in the command line.
func parseError(err error) string {
	msg := oneLine(err)
	if m := missingValue.FindStringSubmatch(msg); m != nil {
		return m[1] + " needs a value: give it after the flag (see --help)"
	}
	return msg
}

// oneLine joins a multi-line error message into one line. Its lines are
// most often several messages (errors.Join's, a list of invalid
// declarations): each is kept apart from the next by "; ", unless it ends
// with punctuation of its own ("2 invalid declarations:" then the first).
func oneLine(err error) string {
	var b strings.Builder
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			if s := b.String(); strings.ContainsRune(":;,.", rune(s[len(s)-1])) {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// Run is the program entry point used by cli/framework. Synthesis runs in
// a program of its own, the engine (internal/synth), which links the AWS
// CDK; this one does not.
//
// The run keeps its temporary files in a private directory (scratch.Begin)
// and removes it when the command returns, fails or is interrupted twice:
// nothing is left in TMPDIR, not even what the synthesis engine and the
// CDK's Node.js write there.
func Run() {
	dir, err := scratch.Begin()
	if err != nil {
		fmt.Fprintf(os.Stderr, "framework: warning: cannot create a private temporary directory (%v); temporary files may be left in %s\n", err, os.TempDir())
	}
	procgroup.AdoptOrphans()
	end := sync.OnceFunc(func() {
		synth.Close()               // a synthesis engine still at work, and its Node.js
		procgroup.KillDescendants() // what a child that ended left running (a go list of the policy scan)
		dir.End()
	})
	interrupted := func() { end(); os.Exit(130) }
	signals := newSignalRouter(interrupted)
	signals.listen()
	env := processEnv(os.Stdout, os.Stderr)
	env.Signals = signals.Context
	var root CLI
	code := run(&root, os.Args[1:], env)
	signals.End()
	end()
	os.Exit(code)
}
