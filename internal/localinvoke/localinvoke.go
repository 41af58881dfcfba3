// Package localinvoke runs one handler of an app's local build with one
// event, as its deployed function would run it: the app is built for this
// machine, started with the handler's FRAMEWORK_HANDLER and the stage's
// environment against a local Lambda Runtime API (internal/runtimeapi),
// and sent the event through the real aws-lambda-go runtime loop. It is
// `framework invoke NAME --local`.
package localinvoke

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/eventsample"
	"github.com/framework-dev/framework/internal/localiam"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/remote"
)

// Options are the inputs of Run.
type Options struct {
	// ProjectDir is the app's project directory.
	ProjectDir string
	// Stage selects the environment variables and timeout of
	// .framework/config.json (default dev).
	Stage string
	// Name is the handler: an event handler's or plain function's name, or
	// "api" (or "" or the app's name) for the REST API's function.
	Name string
	// Event is the event, JSON; nil sends a realistic sample for the
	// handler's kind.
	Event []byte
	// Log, when not nil, receives the function's output as it runs.
	Log io.Writer
	// Endpoint, Profile and Region say where the app's declared resources
	// are (see internal/localres): an AWS emulator's URL, or the deployed
	// stage read with that profile's credentials in that region.
	Endpoint, Profile, Region string
	// LogFormat is the format of the function's log lines
	// (names.EnvLogFormat); empty means names.LogText.
	LogFormat string
	// Notice, when not nil, receives the line saying that the deployed
	// stage's resources could not be read, or which ones the emulator
	// could not create, the handler then running without them; and the
	// line saying the deployed stage's credentials could not be refreshed
	// while it ran; and the local IAM check's lines (a call refused, a
	// call not checked).
	Notice func(string)
	// NoIAMCheck turns off the local IAM check (internal/localiam).
	NoIAMCheck bool
	// Policies computes the policies the functions' deployed roles will
	// have (see localiam.Where); the IAM check refuses what they do not
	// allow.
	Policies func(ctx context.Context, m *manifest.Manifest) (*perms.Policies, error)
}

// Invocation is what Run did.
type Invocation struct {
	// Function is the handler's manifest entry (Kind framework.KindHTTP
	// and Name "api" for the REST API's function).
	Function manifest.Function
	// Event is the event sent: Options.Event or the sample.
	Event []byte
	// Result is the outcome, as `framework invoke` reports a deployed one:
	// FunctionError "Unhandled" with the error's type and message when the
	// handler failed, the function's output as LogTail.
	Result *remote.Result
}

// maxLogTail is how much of the function's output Result.LogTail keeps,
// as Lambda's log tail does.
const maxLogTail = 4096

// Run builds the app, runs the handler once with the event and returns
// the result. Errors are the build's, a handler name the app does not
// have, or a function that never answers; a handler's own error is in the
// Result.
func Run(ctx context.Context, o Options) (*Invocation, error) {
	if o.Stage == "" {
		o.Stage = names.DefaultStage
	}
	m, err := build.Manifest(ctx, o.ProjectDir)
	if err != nil {
		return nil, err
	}
	env, timeout, endpoint, err := stageEnv(o.ProjectDir, o.Stage)
	if err != nil {
		return nil, err
	}
	// What synth refuses for this stage is refused here too, with the
	// same message.
	stage, err := declspec.Load(o.ProjectDir, o.Stage)
	if err != nil {
		return nil, err
	}
	if err := declspec.Check(m, stage); err != nil {
		return nil, fmt.Errorf("%w\n(framework synth and deploy refuse this stage for the same reason)", err)
	}
	if o.Endpoint == "" { // --aws-endpoint wins over the stage's aws_endpoint
		o.Endpoint = endpoint
	}
	if o.LogFormat == "" {
		o.LogFormat = names.LogText
	}
	// As `framework local` runs it, and as the stack gives every function
	// its stage.
	env = append(env, names.EnvLogFormat+"="+o.LogFormat, names.EnvStage+"="+o.Stage)
	inv := &Invocation{Function: manifest.Function{Name: names.APIHandlerName, Kind: framework.KindHTTP}, Event: o.Event}
	handler := ""
	if o.Name != "" && o.Name != names.APIHandlerName && o.Name != m.App {
		i := slices.IndexFunc(m.Functions, func(f manifest.Function) bool { return f.Name == o.Name })
		if i < 0 {
			known := []string{names.APIHandlerName}
			for _, f := range m.Functions {
				known = append(known, f.Name)
			}
			slices.Sort(known)
			return nil, fmt.Errorf("the app %s has no function %q; its functions are: %s", m.App, o.Name, strings.Join(known, ", "))
		}
		inv.Function, handler = m.Functions[i], o.Name
	}
	// So is a call beyond a declaration, as framework local refuses to
	// start the app: the deployed role would refuse it. The policies are
	// computed once, for this check and the IAM check's.
	if o.Policies != nil {
		pols, err := o.Policies(ctx, m)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := localiam.CeilingRefusal(err); err != nil {
			return nil, err
		}
		o.Policies = func(context.Context, *manifest.Manifest) (*perms.Policies, error) { return pols, err }
	}
	res, err := localres.Resolve(ctx, m, localres.Options{App: localres.AppName(o.ProjectDir, m), Stage: o.Stage, Endpoint: o.Endpoint, Profile: o.Profile, Region: o.Region,
		Config: stage,
		RefreshFailed: func(err error) {
			if o.Notice != nil {
				o.Notice(err.Error())
			}
		}})
	defer res.Close()
	switch {
	case err != nil && res == nil && !errors.Is(err, localres.ErrNoneDeployed):
		return nil, err
	case err != nil && o.Notice != nil:
		o.Notice(err.Error()) // the handler runs with what could be found
	}
	if res != nil && o.Notice != nil {
		for _, ch := range res.Changes {
			o.Notice(ch.Line)
		}
	}
	iamEnv, proxy, stopIAM, err := checkIAM(ctx, o, m, res, inv.Function.Name, env)
	if err != nil {
		return nil, err
	}
	defer stopIAM()
	// The resources' variables the deployed function gets, and no others.
	env = append(env, res.FunctionEnv(localres.Uses(m)[inv.Function.Name], proxy)...)
	env = append(env, iamEnv...)
	if inv.Event == nil {
		// The sample names the resource that feeds the handler where it is.
		f := inv.Function
		if arn := res.SourceARN(&f); arn != "" {
			f.Source, f.SourceResource = arn, ""
		}
		if inv.Event, err = eventsample.For(f); err != nil {
			return nil, err
		}
	}
	bin, err := build.Host(ctx, o.ProjectDir, "invoke")
	if err != nil {
		return nil, err
	}
	inv.Result, err = Exec(ctx, Process{
		Bin: bin, Env: env, Handler: handler, Log: o.Log,
		Timeout:      timeout.Of(handler),
		FunctionName: names.StackName(m.App, o.Stage) + "-" + inv.Function.Name,
	}, inv.Event)
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", inv.Function.Name, err)
	}
	return inv, nil
}

// checkIAM starts the local IAM check for the function named function
// (unless Options.NoIAMCheck), and returns what its environment env gets,
// the proxy's URL ("" without the check) and how to stop it.
func checkIAM(ctx context.Context, o Options, m *manifest.Manifest, res *localres.Resources, function string, env []string) ([]string, string, func(), error) {
	notice := func(line string) {
		if o.Notice != nil {
			o.Notice(line)
		}
	}
	if o.NoIAMCheck {
		notice(NoIAMCheckWarning)
		return nil, "", func() {}, nil
	}
	t, err := localiam.TargetFor(ctx, localiam.Where{Endpoint: o.Endpoint, Profile: o.Profile, Region: o.Region, Policies: o.Policies}, m, res)
	if ctx.Err() != nil {
		return nil, "", nil, ctx.Err()
	}
	if msg := localiam.Problem(t, err); msg != "" {
		notice(msg)
	}
	p, err := localiam.Start(localiam.Options{Target: t,
		Denied:          func(d localiam.Denied) { notice(d.Line()) },
		Unauthenticated: func(u localiam.Unauthenticated) { notice(u.Line()) },
		Unmodeled:       func(fn string, u *localiam.Unmodeled) { notice(localiam.UnmodeledLine(fn, u)) },
		NoPolicy:        func(fn, why string) { notice(localiam.NoPolicyLine(fn, why)) }})
	if err != nil {
		return nil, "", nil, err
	}
	return append(localres.ProxyEndpoints(env, p.URL, o.Endpoint), p.Environ(function)...), p.URL, p.Close, nil
}

// NoIAMCheckWarning is the one line `--no-iam-check` prints.
const NoIAMCheckWarning = "Warning: --no-iam-check: the functions' AWS calls are not checked against the policies of their deployed roles; a call a role would refuse deployed succeeds here."

// Process is one function process: a host build of the app serving one
// handler through the Lambda runtime loop.
type Process struct {
	// Bin is the app's host build and Env its environment.
	Bin string
	Env []string
	// Handler is the FRAMEWORK_HANDLER ("" for the REST API's function).
	Handler string
	// FunctionName is the Lambda function's name the process sees.
	FunctionName string
	// Timeout is the invocation's timeout.
	Timeout time.Duration
	// Log, when not nil, receives the function's output as it runs.
	Log io.Writer
}

// Exec starts p, sends it event through a local Lambda Runtime API, and
// returns the result as `framework invoke` reports a deployed one; the
// process is ended once it answered. A handler's own error is in the
// Result; the error is a function that never answers.
func Exec(ctx context.Context, p Process, event []byte) (*remote.Result, error) {
	w, err := startWarm(p)
	if err != nil {
		return nil, err
	}
	defer w.stop()
	res, err := w.invoke(ctx, event)
	if err != nil {
		return nil, err
	}
	// The output written before the answer may still be in the pipe.
	time.Sleep(50 * time.Millisecond)
	res.LogTail = w.out.String()
	return res, nil
}

// Timeouts are the functions' timeouts of a stage: the stage's, or a
// function's lambda_functions entry's.
type Timeouts struct {
	Seconds   int
	Functions map[string]config.FunctionConfig
}

// Of is the timeout of the function that serves handler ("" for the REST
// API's).
func (t Timeouts) Of(handler string) time.Duration {
	if fc, ok := t.Functions[handler]; ok && handler != "" {
		return time.Duration(fc.LambdaTimeout) * time.Second
	}
	if t.Seconds == 0 {
		return config.DefaultLambdaTimeout * time.Second
	}
	return time.Duration(t.Seconds) * time.Second
}

// stageEnv returns the environment of the function: the user's, without
// the variables that change the app's mode, plus the stage's variables from
// .framework/config.json; its timeout; and the stage's aws_endpoint.
func stageEnv(dir, stage string) ([]string, Timeouts, string, error) {
	lim := Timeouts{Seconds: config.DefaultLambdaTimeout}
	var stageVars []string
	endpoint := ""
	f, err := config.Load(dir)
	switch {
	case err == nil:
		st, err := f.Stage(stage)
		if err != nil {
			return nil, lim, "", err
		}
		stageVars, lim.Seconds, lim.Functions = st.Environ(), st.LambdaTimeout, st.LambdaFunctions
		endpoint = st.AWSEndpoint
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, lim, "", err
	}
	return build.AppEnviron(os.Environ(), stageVars...), lim, endpoint, nil
}

// tail keeps the last maxLogTail bytes written and copies them to w.
type tail struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if n := t.buf.Len() - maxLogTail; n > 0 {
		t.buf.Next(n)
	}
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// LogFormat is the format of the log lines of an app run on this machine
// (names.EnvLogFormat) whose output goes to outs: readable text, colored
// when every one of outs is a terminal and getenv has no NO_COLOR.
func LogFormat(getenv func(string) string, outs ...io.Writer) string {
	if getenv("NO_COLOR") != "" || len(outs) == 0 {
		return names.LogText
	}
	for _, w := range outs {
		f, ok := w.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return names.LogText
		}
	}
	return names.LogColor
}
