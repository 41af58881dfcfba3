// Package engine is the synthesis engine: the part of `framework synth`,
// `diff` and `deploy` that runs the AWS CDK (its Go bindings, through jsii
// and Node.js). It is the only code of the CLI that links the CDK, so it
// runs as a program of its own, cli/framework-synth, which the CLI builds
// once into the user's cache and starts for each synthesis (see
// internal/synth). The framework CLI itself links none of the CDK.
//
// Synth prepares the construct's inputs in Go (constructs.Prepare: the
// route manifest, the Linux package, the policy and the stage's
// configuration, tags included), then runs the AWS CDK (stacks.New on
// constructs.App) through jsii, which needs Node.js 20 or newer; a missing
// or older node is a one-line *synth.NodeError. jsii's Node version banners
// are silenced, and so is CDK's default template lint (CDK_VALIDATION=false
// unless the environment sets it), which would cost seconds on every synth.
//
// The assembly directory records what it was made from (KeyFile): a synth
// whose manifest, package hash, configuration, stage, policy and framework
// build are all unchanged keeps the assembly and returns Result.Reused.
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/constructs"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/nodeshim"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/stacks"
	"github.com/framework-dev/framework/internal/synth"
)

// The engine speaks in internal/synth's types, which the CLI shares.
type (
	// Options selects what to synthesize and where.
	Options = synth.Options
	// Result describes the assembly Synth wrote.
	Result = synth.Result
	// NodeError is a missing or unsupported Node.js.
	NodeError = synth.NodeError
)

// checkNode checks Node.js and prepares the environment jsii starts it with.
var checkNode = synth.CheckNode

// Synth synthesizes the stage's stack of the project into a cloud assembly,
// in this process.
func Synth(ctx context.Context, o Options) (*Result, error) { return run(ctx, o) }

// KeyFile is the file inside the assembly directory that records what the
// assembly was synthesized from; a synth whose inputs hash to the same key
// keeps the assembly as it is (Result.Reused).
const KeyFile = "framework-synth.json"

// formatVersion changes whenever this package's output changes for the same
// inputs, so an assembly written by an older synth is never reused.
const formatVersion = "synth/2"

// inputs are everything the assembly is made from, prepared in plain Go
// (constructs.Prepare) before CDK starts.
type inputs struct {
	*constructs.Prepared
	// nodeShim starts the CDK's Node.js through the running program (Options.NodeShim).
	nodeShim bool
	// timings, when not nil, receives the duration of each CDK step.
	timings *timings
}

// stackName is <app>-<stage>.
func (in *inputs) stackName() string { return names.StackName(in.Manifest.App, in.Stage) }

// key hashes the inputs (and this program's identity) into the reuse key.
func (in *inputs) key() (string, error) {
	pol := in.Policy
	if in.PolicyFromSource {
		pol = nil // a function of the source, which the package hash covers
	}
	b, err := json.Marshal(struct {
		Format, Exe, Stage, Zip string
		Manifest                *manifest.Manifest
		Config                  *constructs.Config
		FromSource              bool
		Policy                  *constructs.PolicyDocument
	}{formatVersion, exeIdentity(), in.Stage, in.PackageSHA256, in.Manifest, in.Config, in.PolicyFromSource, pol})
	if err != nil {
		return "", fmt.Errorf("hash the synthesis inputs: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// exeIdentity names the running program's build: a rebuilt framework may
// synthesize differently, so its assemblies are not reused across builds.
var exeIdentity = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return fmt.Sprintf("%s|%d|%d", exe, fi.Size(), fi.ModTime().UnixNano())
})

// keyRecord is the content of KeyFile.
type keyRecord struct {
	Key           string           `json:"key"`
	App           string           `json:"app"`
	Stage         string           `json:"stage"`
	StackName     string           `json:"stack_name"`
	Template      string           `json:"template"`
	ResourceCount int              `json:"resource_count"`
	Asset         string           `json:"asset"`
	Policy        *policy.Document `json:"policy,omitempty"`
	// Undeclared are Result.Undeclared, for a reused assembly.
	Undeclared []perms.UndeclaredGrant `json:"undeclared,omitempty"`
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// run implements Synth.
func run(ctx context.Context, o Options) (*Result, error) {
	if o.ProjectDir == "" {
		o.ProjectDir = "."
	}
	dir, err := filepath.Abs(o.ProjectDir)
	if err != nil {
		return nil, fmt.Errorf("project directory %s: %w", o.ProjectDir, err)
	}
	stage := o.Stage
	if stage == "" {
		stage = names.DefaultStage
	}
	out := o.OutDir
	if out == "" {
		// Each stage its own assembly, so that synthesizing one keeps
		// the others' to lint, diff or deploy with the CDK CLI. A stage
		// name is letters, digits and hyphens: a path segment.
		if err := config.CheckStageName(stage); err != nil {
			return nil, err
		}
		out = filepath.Join(dir, names.AssemblyDir, stage)
		// An assembly of an older synth written straight into cdk.out
		// would be mistaken for the current one: remove it.
		if err := clearAssembly(filepath.Join(dir, names.AssemblyDir)); err != nil {
			return nil, err
		}
	}
	if out, err = filepath.Abs(out); err != nil {
		return nil, fmt.Errorf("assembly directory %s: %w", o.OutDir, err)
	}
	// The file for its app_name (checked below), and the stage's Config
	// through the construct's own mapping, so that both paths agree.
	f, err := config.Load(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := constructs.LoadConfig(dir, stage)
	if err != nil {
		return nil, err
	}
	cfg.NoAutogenPolicy = cfg.NoAutogenPolicy || o.NoAutogenPolicy
	work, err := os.MkdirTemp("", "framework-synth-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory: %w", err)
	}
	defer os.RemoveAll(work)
	// When the assembly will most likely be written anew, Node.js and the
	// CDK (seconds) load while Go builds the app, and the policy is
	// generated at the same time; otherwise only once the assembly turns
	// out not to be reusable.
	likely := !likelyReusable(dir, out)
	shim := o.NodeShim
	tm := &timings{}
	if likely {
		go warmJSII(ctx, shim, tm)
	}
	p, err := constructs.Prepare(ctx,
		&constructs.AppProps{ProjectDir: dir, Stage: stage, Config: cfg, Progress: o.Progress},
		&constructs.PrepareOptions{PackageZip: filepath.Join(work, "function.zip"), DeferPolicy: !likely, Timed: tm.add})
	if err != nil {
		return nil, err
	}
	// The stack is named after the app as its code declares it; url and
	// destroy find it by the file's app_name without building: they must agree.
	if f.AppName != "" && f.AppName != p.Manifest.App {
		return nil, fmt.Errorf("%s has app_name %q but the app declares framework.New(%q): the stack is named <app>-<stage> and `framework url` and `destroy` read app_name, so make the two the same", f.Path, f.AppName, p.Manifest.App)
	}
	if p.Config.RoleID != "" && declaresAccess(p.Manifest) {
		progressf(o.Progress, "Note: the functions run with the existing role %s (manage_role false), which the stack does not change: the accesses the app declares to its resources are not granted; give that role them, on the resources named in the stack's outputs", p.Config.RoleID)
	}
	res, err := assemble(ctx, &inputs{Prepared: p, nodeShim: shim, timings: tm}, out, o.Progress)
	if res != nil {
		res.Timings = tm.list()
	}
	return res, err
}

// timings collects the durations of a synthesis's steps, some of which
// run at the same time.
type timings struct {
	mu    sync.Mutex
	steps []synth.Timing
}

// add records that step took d; a nil *timings records nothing.
func (t *timings) add(step string, d time.Duration) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps = append(t.steps, synth.Timing{Step: step, Seconds: d.Seconds()})
}

// since records the time from start to now as step.
func (t *timings) since(step string, start time.Time) { t.add(step, time.Since(start)) }

func (t *timings) list() []synth.Timing {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.steps)
}

// jsiiMu serializes synthesis in this process: one CDK app at a time.
var jsiiMu sync.Mutex

// jsiiStarted is set once this package has prepared jsii (guarded by jsiiMu).
var jsiiStarted bool

// likelyReusable guesses, before building, whether the assembly in out
// will be reused: it has a key file newer than every file of the project
// (outside out). A wrong guess costs time only, never correctness.
func likelyReusable(dir, out string) bool {
	fi, err := os.Stat(filepath.Join(out, KeyFile))
	if err != nil {
		return false
	}
	since := fi.ModTime()
	newer := errors.New("newer")
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p == out || (p != dir && strings.HasPrefix(d.Name(), ".") && d.Name() != names.ConfigDir) || d.Name() == "node_modules" || d.Name() == names.AssemblyDir {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(since) {
			return newer
		}
		return nil
	})
	return err == nil
}

// warmJSII starts Node.js and has the CDK synthesize a one-resource stack
// into a temporary directory, so that the modules synthesis needs are
// loaded while Go builds the app.
func warmJSII(ctx context.Context, shim bool, tm *timings) {
	jsiiMu.Lock()
	defer jsiiMu.Unlock()
	start := time.Now()
	defer tm.since("Node.js start and aws-cdk-lib load (while Go builds)", start)
	if startJSII(ctx, shim) != nil {
		return // reported by assemble
	}
	defer func() { recover() }()
	tmp, err := os.MkdirTemp("", "framework-warm-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(tmp), AnalyticsReporting: jsii.Bool(false)})
	stack := awscdk.NewStack(app, jsii.String("warm"), nil)
	awscdk.NewCfnWaitConditionHandle(stack, jsii.String("Nothing"), nil)
	app.Synth(nil)
}

// Close stops the Node.js process of the AWS CDK, if synthesis started one,
// and removes the files jsii-runtime-go keeps for it (its JavaScript
// runtime, 2.2 MB, unpacked in the temporary directory as soon as the CDK
// packages register their types at program start, whether or not anything
// is ever synthesized). With no CDK call under way it waits for Node.js to
// exit in order; a later Synth starts a new process. When a call is still
// under way (a synth stopped early by a build error while Node.js loads
// the CDK), the process is killed instead if it runs through the shim
// (Options.NodeShim), and the call fails; this is for the end of the
// program. (jsii-runtime-go may then print "Runtime process exited
// abnormally" on os.Stderr: its own waiter seeing the process end.)
func Close() {
	if !jsiiMu.TryLock() {
		nodeshim.Kill()
		return
	}
	defer jsiiMu.Unlock()
	jsii.Close()
	nodeshim.Forget()
}

// startJSII checks Node.js before the first CDK call of the process.
//
// jsii-runtime-go prepares its Node.js child process, environment included,
// while the CDK packages register their types at program start, before any
// code of ours runs; the process itself starts at the first CDK call. So
// the banner-silencing variables checkNode sets would not reach it: the
// first time, the prepared (never started) runtime is closed, and the next
// CDK call prepares a new one with the current environment.
func startJSII(ctx context.Context, shim bool) error {
	if _, err := checkNode(ctx, shim); err != nil {
		return err
	}
	if !jsiiStarted {
		jsii.Close()
		jsiiStarted = true
	}
	return nil
}

// assemble writes the cloud assembly of in into out, or keeps the one there
// when it was made from the same inputs.
func assemble(ctx context.Context, in *inputs, out string, progress io.Writer) (*Result, error) {
	key, err := in.key()
	if err != nil {
		return nil, err
	}
	if res := reusable(out, key); res != nil {
		progressf(progress, "Nothing changed since the last synth: keeping %s", out)
		return res, nil
	}
	if err := in.ResolvePolicy(); err != nil {
		return nil, err
	}
	if len(in.Unscoped) > 0 {
		acts := make([]string, len(in.Unscoped))
		for i, u := range in.Unscoped {
			acts[i] = u.Action
		}
		progressf(progress, "IAM: %s keep Resource \"*\" although the app declares resources of their service (`framework gen-policy` says why)", strings.Join(acts, ", "))
	}
	wait := time.Now()
	jsiiMu.Lock()
	defer jsiiMu.Unlock()
	in.timings.since("waiting for Node.js and aws-cdk-lib after the builds", wait)
	if err := startJSII(ctx, in.nodeShim); err != nil {
		return nil, err
	}
	if err := clearAssembly(out); err != nil {
		return nil, err
	}
	progressf(progress, "Synthesizing stack %s...", in.stackName())
	start := time.Now()
	if err := synthStack(ctx, in, out); err != nil {
		return nil, err
	}
	in.timings.since("CDK synthesis of the stack (jsii calls, template and assets)", start)
	res := &Result{
		App: in.Manifest.App, Stage: in.Stage, StackName: in.stackName(), AssemblyDir: out,
		TemplatePath: filepath.Join(out, in.stackName()+".template.json"), Policy: in.Policy,
	}
	if res.ResourceCount, err = countResources(res.TemplatePath); err != nil {
		return nil, err
	}
	if in.Perms != nil {
		res.Undeclared = in.Perms.Undeclared
	}
	rec := keyRecord{Key: key, App: res.App, Stage: res.Stage, StackName: res.StackName,
		Template: filepath.Base(res.TemplatePath), ResourceCount: res.ResourceCount, Asset: assetName(in), Policy: res.Policy,
		Undeclared: res.Undeclared}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("record the synthesis key: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, KeyFile), append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("record the synthesis key: %w", err)
	}
	return res, nil
}

// synthStack runs CDK: the app, the stage stack, the synthesis.
func synthStack(ctx context.Context, in *inputs, out string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &cdkFailure{fmt.Errorf("synthesizing stack %s: CDK failed: %v", in.stackName(), r)}
			if ctx.Err() != nil {
				err = fmt.Errorf("synthesizing stack %s: %w", in.stackName(), ctx.Err())
			}
		}
	}()
	app := awscdk.NewApp(&awscdk.AppProps{
		Outdir:             jsii.String(out),
		AnalyticsReporting: jsii.Bool(false),
		StackTraces:        jsii.Bool(false),
		// tree.json would hold a third copy of the API's body; nothing reads it.
		TreeMetadata: jsii.Bool(false),
	})
	if _, err := stacks.New(app, &stacks.Props{App: in.Prepared}); err != nil {
		if ctx.Err() != nil {
			// Node.js was stopped under the CDK (a second Ctrl-C): what it
			// answered says nothing about the stack.
			return fmt.Errorf("synthesizing stack %s: %w", in.stackName(), ctx.Err())
		}
		return fmt.Errorf("synthesizing stack %s: %w", in.stackName(), err)
	}
	app.Synth(nil)
	return nil
}

// cdkFailure is the error of a synthesis that the CDK itself failed (a
// panic through jsii), after which Node.js's state is not known.
type cdkFailure struct{ error }

func (e *cdkFailure) Unwrap() error { return e.error }

// assetName is the file CDK stages the Lambda package as.
func assetName(in *inputs) string {
	// CDK hashes a custom asset hash once more with SHA-256.
	sum := sha256.Sum256([]byte(in.PackageSHA256))
	return "asset." + hex.EncodeToString(sum[:]) + ".zip"
}

// reusable returns the Result of the assembly in out when it was made from
// the inputs that hash to key and is still whole.
func reusable(out, key string) *Result {
	b, err := os.ReadFile(filepath.Join(out, KeyFile))
	if err != nil {
		return nil
	}
	var rec keyRecord
	if json.Unmarshal(b, &rec) != nil || rec.Key != key {
		return nil
	}
	for _, name := range []string{"manifest.json", rec.Template, rec.StackName + ".assets.json", rec.Asset} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			return nil
		}
	}
	return &Result{
		App: rec.App, Stage: rec.Stage, StackName: rec.StackName, AssemblyDir: out,
		TemplatePath: filepath.Join(out, rec.Template), ResourceCount: rec.ResourceCount,
		Policy: rec.Policy, Undeclared: rec.Undeclared, Reused: true,
	}
}

// clearAssembly removes a previous cloud assembly's files from out (CDK
// adds to a directory and never removes), leaving anything else alone.
func clearAssembly(out string) error {
	os.Remove(filepath.Join(out, KeyFile))
	entries, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read assembly directory %s: %w", out, err)
	}
	for _, e := range entries {
		n := e.Name()
		if n == "manifest.json" || n == "tree.json" || n == names.AssemblyDir || n == "validation-report.json" ||
			strings.HasPrefix(n, "asset.") || strings.HasSuffix(n, ".template.json") ||
			strings.HasSuffix(n, ".assets.json") || strings.HasSuffix(n, ".metadata.json") {
			if err := os.RemoveAll(filepath.Join(out, n)); err != nil {
				return fmt.Errorf("clear the previous assembly in %s: %w", out, err)
			}
		}
	}
	return nil
}

// countResources returns the number of resources in a template file.
func countResources(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read the synthesized template: %w", err)
	}
	var t struct {
		Resources map[string]json.RawMessage
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return 0, fmt.Errorf("read the synthesized template %s: %w", path, err)
	}
	return len(t.Resources), nil
}

// declaresAccess reports whether the app declares any access to its
// resources, app-wide, per route or per function, or a handler fed by one.
func declaresAccess(m *manifest.Manifest) bool {
	if len(m.Grants) > 0 {
		return true
	}
	for _, r := range m.Routes {
		if len(r.Grants) > 0 {
			return true
		}
	}
	for _, f := range m.Functions {
		if len(f.Grants) > 0 || f.SourceResource != "" {
			return true
		}
	}
	return false
}
