package synth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/nodeshim"
	"github.com/framework-dev/framework/internal/procgroup"
)

// Protocol is the version of the exchange between the CLI and the engine;
// an engine that speaks another refuses the request.
const Protocol = 3

// Module is the framework's module path.
const Module = "github.com/framework-dev/framework"

// EnginePackage is the engine program's package.
const EnginePackage = Module + "/cli/framework-synth"

// EngineName is the engine program's file name.
const EngineName = "framework-synth"

// BuildHint is how long building the engine usually takes, for the
// progress line (measured with `make bench-first-run`).
const BuildHint = "about a minute with empty Go caches on 2 cores, seconds when Go's build cache has it"

// Request is what the CLI writes to the engine's stdin: one JSON object.
type Request struct {
	Protocol int     `json:"protocol"`
	Options  Options `json:"options"`
}

// Reply is one line the engine writes to stdout: first {"ready":true} once
// its program has loaded, then any number of progress lines, then one
// answer (a synthesis's result) or one error.
type Reply struct {
	Ready    bool    `json:"ready,omitempty"`
	Progress string  `json:"progress,omitempty"`
	Result   *Result `json:"result,omitempty"`
	Error    string  `json:"error,omitempty"`
}

// The engine program's commands: `framework-synth synth` synthesizes
// Request.Options. (The policy scan runs in the CLI itself: see package
// scan.)
//
// `framework-synth serve` reads any number of requests, one JSON object
// each, and answers each as synth does, keeping Node.js and the CDK
// loaded in between, until stdin ends (Session).
const (
	CommandSynth = "synth"
	CommandServe = "serve"
)

// Engine runs synthesis in the engine program, building it when missing.
type Engine struct {
	// Version is the CLI's version.
	Version string
	// SourceDir is the framework checkout the CLI was built from, or ""
	// for a CLI installed by module version.
	SourceDir string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
}

func (e *Engine) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// source is where the engine is built from: a checkout, or the framework
// module at a version (through the module cache and proxy).
type source struct {
	dir     string // a checkout, or ""
	version string // the module version when dir is ""
	sum     string
}

// source finds where to build the engine from.
func (e *Engine) source() (source, error) {
	if e.SourceDir != "" {
		if _, err := os.Stat(filepath.Join(e.SourceDir, "cli", EngineName)); err == nil {
			return source{dir: e.SourceDir}, nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == Module && Fetchable(bi.Main.Version) {
		return source{version: bi.Main.Version, sum: bi.Main.Sum}, nil
	}
	if v := "v" + strings.TrimPrefix(e.Version, "v"); Fetchable(v) && !strings.HasSuffix(v, "-dev") {
		return source{version: v}, nil
	}
	if e.SourceDir != "" {
		return source{}, fmt.Errorf("cannot build the synthesis engine: the framework source %s this CLI was built from is gone; rebuild the CLI (`make build` or `make install` in a checkout, or `go install %s/cli/framework@VERSION`), or set %s to a framework-synth program", e.SourceDir, Module, names.EnvEngine)
	}
	return source{}, fmt.Errorf("cannot build the synthesis engine: this CLI records neither its source directory nor a module version; install it with `make install` in a checkout or `go install %s/cli/framework@VERSION`, or set %s to a framework-synth program", Module, names.EnvEngine)
}

// Fetchable reports whether v is a module version the go command can
// fetch: not "(devel)" and not a local build's "+dirty" version.
func Fetchable(v string) bool {
	return strings.HasPrefix(v, "v") && !strings.Contains(v, "+") && !strings.Contains(v, "(")
}

// key names the engine build: the protocol, this CLI's version, the
// platform and the source (for a checkout, every Go file the engine may
// compile and the module graph, by size and modification time).
func (s source) key(version string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "protocol %d\nversion %s\n%s/%s\n", Protocol, version, runtime.GOOS, runtime.GOARCH)
	if s.dir == "" {
		fmt.Fprintf(h, "module %s@%s %s\n", Module, s.version, s.sum)
	} else {
		fmt.Fprintf(h, "dir %s\n", s.dir)
		err := filepath.WalkDir(s.dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if p != s.dir && (strings.HasPrefix(name, ".") || name == "test" || name == "examples" || name == "testdata" || name == "node_modules" || name == "bin" || name == names.AssemblyDir) {
					return filepath.SkipDir
				}
				return nil
			}
			if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) && name != "go.mod" && name != "go.sum" {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("read the framework source %s: %w", s.dir, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// CacheDir is where engines are built: $FRAMEWORK_CACHE_DIR/engine, by
// default <user cache dir>/framework/engine.
func (e *Engine) CacheDir() string {
	return filepath.Join(build.CacheRoot(e.getenv), build.EngineCacheName)
}

// Dir is the directory of the engine this CLI runs in CacheDir, built or
// not, or "" when it runs another (FRAMEWORK_ENGINE) or cannot tell.
func (e *Engine) Dir() string {
	if e.getenv(names.EnvEngine) != "" {
		return ""
	}
	bin, _, _, err := e.locate()
	if err != nil {
		return ""
	}
	return filepath.Dir(bin)
}

// Path returns the engine program, building it first when missing: the one
// FRAMEWORK_ENGINE names, else the one built for this CLI and source in
// CacheDir. A build says so on progress (what, how long, that it happens
// once) and reports its duration to timed.
func (e *Engine) Path(ctx context.Context, progress io.Writer, timed func(string, time.Duration)) (string, error) {
	bin, release, err := e.acquire(ctx, progress, timed)
	if err != nil {
		return "", err
	}
	release()
	return bin, nil
}

// acquire is Path for a run of the engine: until release, the engine in
// CacheDir is marked in use (a shared lock on its directory's ".lock"), so
// that the cache's trimming in another process does not remove it, and
// its use is recorded (build.EngineUsed).
func (e *Engine) acquire(ctx context.Context, progress io.Writer, timed func(string, time.Duration)) (bin string, release func(), err error) {
	for attempt := 0; ; attempt++ {
		bin, src, ready, err := e.locate()
		if err != nil {
			return "", nil, err
		}
		if e.getenv(names.EnvEngine) != "" {
			return bin, func() {}, nil
		}
		dir := filepath.Dir(bin)
		if ready {
			release, err := build.LockFileShared(filepath.Join(dir, ".lock"))
			if err != nil {
				return "", nil, err
			}
			if _, err := os.Stat(bin); err == nil {
				build.MarkUsed(filepath.Join(dir, build.EngineUsed), nil)
				return bin, release, nil
			}
			release() // removed by a trimming meanwhile: build it again
			if attempt > 2 {
				return "", nil, fmt.Errorf("the synthesis engine %s keeps disappearing: check what removes files from %s", bin, dir)
			}
		}
		if err := e.build(ctx, bin, src, progress, timed); err != nil {
			return "", nil, err
		}
	}
}

// build builds the engine program bin from src unless another run did
// while this one waited for the build's lock.
func (e *Engine) build(ctx context.Context, bin string, src source, progress io.Writer, timed func(string, time.Duration)) error {
	dir := filepath.Dir(bin)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create the synthesis engine's directory: %w", err)
	}
	unlock, err := build.LockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return nil // built by another run while this one waited
	}
	// A missing Node.js is said before a long build, not after.
	if _, err := CheckNode(ctx, false); err != nil {
		return err
	}
	if progress != nil {
		fmt.Fprintf(progress, "Building the synthesis engine (the AWS CDK's Go bindings and the policy scanner) once for this version of framework: %s; later runs and other projects reuse it (%s)\n", BuildHint, dir)
	}
	start := time.Now()
	if err := src.build(ctx, bin+".tmp"); err != nil {
		os.Remove(bin + ".tmp")
		return err
	}
	if err := os.Rename(bin+".tmp", bin); err != nil {
		return fmt.Errorf("install the synthesis engine: %w", err)
	}
	if timed != nil {
		timed("synthesis engine build (once per framework version)", time.Since(start))
	}
	return nil
}

// locate returns where the engine program is or will be built, where it
// is built from, and whether it is there.
func (e *Engine) locate() (bin string, src source, ready bool, err error) {
	if p := e.getenv(names.EnvEngine); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", src, false, fmt.Errorf("%s=%s names no synthesis engine program: unset it, or build one with `go build -o %s ./cli/framework-synth` in a framework checkout", names.EnvEngine, p, p)
		}
		return p, src, true, nil
	}
	if src, err = e.source(); err != nil {
		return "", src, false, err
	}
	key, err := src.key(e.Version)
	if err != nil {
		return "", src, false, err
	}
	bin = filepath.Join(e.CacheDir(), key, EngineName)
	_, err = os.Stat(bin)
	return bin, src, err == nil, nil
}

// prebuild builds the app of o for the host and for Lambda while the
// engine is being built, into the cache where the engine's builds find
// them up to date. Failures are left for the engine to report. The builds
// run in the background (inBackground): the engine's build is the longer,
// and the synthesis waits for it, so it goes first wherever both want a
// core.
func prebuild(ctx context.Context, o Options) {
	f, err := config.Load(o.ProjectDir)
	if err != nil {
		return
	}
	stage := o.Stage
	if stage == "" {
		stage = names.DefaultStage
	}
	st, err := f.Stage(stage)
	if err != nil {
		return
	}
	tmp, err := os.MkdirTemp("", "framework-prebuild-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	b := &build.Builder{Environ: compilerEnviron(os.Environ())}
	var wg sync.WaitGroup
	wg.Go(func() { inBackground(func() { b.Manifest(ctx, o.ProjectDir) }) })
	wg.Go(func() {
		inBackground(func() { b.Package(ctx, o.ProjectDir, st.Architecture, filepath.Join(tmp, "function.zip")) })
	})
	wg.Wait()
}

// engineBuildFlags are the go command's flags for the engine program.
// -trimpath is the CLI's own (make build, make install, go install), so the
// standard library and the modules the two share come from Go's build
// cache. The AWS CDK's bindings, which only the engine compiles (143
// packages, most of its build), are compiled without DWARF debugging
// information, which the linker's -w would drop anyway: a fifth less CPU
// time for the engine's build.
var engineBuildFlags = []string{
	"-trimpath", "-ldflags=-s -w",
	"-gcflags=github.com/aws/aws-cdk-go/...=-dwarf=false",
	"-gcflags=github.com/aws/constructs-go/...=-dwarf=false",
	"-gcflags=github.com/aws/jsii-runtime-go/...=-dwarf=false",
	"-gcflags=github.com/cdklabs/...=-dwarf=false",
}

// compilerGOGC is the garbage collector's setting for the Go compilers of
// the engine's build and of the app's builds that run meanwhile: the
// compiler then collects garbage less often and needs about a fifth less
// CPU time (the SDK's s3 package and its dependencies: 40 s to 32 s; the
// CDK's awsec2: 13.6 s to 11 s) for a larger peak memory (830 MB to 1.2 GB
// for awsec2, the largest). It changes no compiled output, so Go's build
// cache is shared with builds without it.
const compilerGOGC = "400"

// compilerEnviron returns env with GOGC=compilerGOGC for the go command
// and the compilers it runs, and a memory limit that keeps them within the
// machine's memory (compilerMemLimit), unless env sets GOGC or GOMEMLIMIT.
func compilerEnviron(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") || strings.HasPrefix(kv, "GOMEMLIMIT=") {
			return env
		}
	}
	env = append(env, "GOGC="+compilerGOGC)
	if limit := compilerMemLimit(machineMemory(), runtime.NumCPU()); limit != "" {
		env = append(env, "GOMEMLIMIT="+limit)
	}
	return env
}

// compilerMemLimit is the GOMEMLIMIT of each compiler, given the memory
// the machine (or its container) has and its cores: the go command runs a
// compiler per core at once, and with GOGC=400 the largest CDK package
// takes 1.2 GB instead of 830 MB, so 8 cores could want more than an 8 GB
// machine has. Each compiler gets half the memory shared out between the
// cores, at least 512 MiB; near its limit it collects as often as it must,
// whatever GOGC says (more CPU time, no more memory). On this project's
// 2-core, 24 GB machine the limit is 6 GiB, and changes nothing. "" when
// the memory is unknown.
func compilerMemLimit(memory uint64, cores int) string {
	if memory == 0 || cores < 1 {
		return ""
	}
	const floor = 512 << 20
	return fmt.Sprintf("%dMiB", max(memory/2/uint64(cores), floor)>>20)
}

// machineMemory returns the memory this process may use: the machine's
// (Linux's MemTotal), or its control group's limit when lower; 0 where it
// is unknown.
var machineMemory = func() uint64 {
	var total uint64
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				var kb uint64
				if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
					total = kb << 10
				}
			}
		}
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var limit uint64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &limit); err == nil && limit > 0 && (total == 0 || limit < total) {
			total = limit
		}
	}
	return total
}

// build compiles the engine program into out.
func (s source) build(ctx context.Context, out string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("building the synthesis engine needs the Go toolchain (the `go` command) on PATH: install Go from https://go.dev/dl/ and run the command again")
	}
	var cmd *exec.Cmd
	var what string
	if s.dir != "" {
		cmd = exec.CommandContext(ctx, goCmd, append(append([]string{"build"}, engineBuildFlags...), "-o", out, "./cli/"+EngineName)...)
		cmd.Dir = s.dir
		cmd.Env = compilerEnviron(os.Environ())
		what = fmt.Sprintf("`go build ./cli/%s` in %s", EngineName, s.dir)
	} else {
		// go install writes into GOBIN under the package's name.
		gobin := filepath.Dir(out) + "/gobin"
		defer os.RemoveAll(gobin)
		cmd = exec.CommandContext(ctx, goCmd, append(append([]string{"install"}, engineBuildFlags...), EnginePackage+"@"+s.version)...)
		cmd.Env = compilerEnviron(append(build.Environ(os.Environ(), func(k string) bool { return k == "GOFLAGS" || k == "GOBIN" }), "GOBIN="+gobin))
		what = fmt.Sprintf("`go install %s@%s`", EnginePackage, s.version)
		defer func() {
			if err == nil {
				err = os.Rename(filepath.Join(gobin, EngineName), out)
			}
		}()
	}
	procgroup.Own(cmd) // a cancelled build takes its compiler and linker with it
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err = cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("building the synthesis engine stopped: %w", ctx.Err())
		}
		return fmt.Errorf("building the synthesis engine with %s failed (%v): %s; fix what Go reports (often an unreachable module proxy: check GOPROXY and the network) and run the command again, or set %s to a framework-synth program built elsewhere", what, err, lastLines(output.String(), 6), names.EnvEngine)
	}
	return nil
}

// lastLines returns the last n lines of s, joined with "; ".
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// running is the engine process of the synthesis under way, if any.
var running struct {
	sync.Mutex
	cmd *exec.Cmd
}

// startRunning starts cmd, the engine program bin, as the running one.
func startRunning(cmd *exec.Cmd, bin string) error {
	running.Lock()
	defer running.Unlock()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the synthesis engine %s: %w (set %s to another, or remove it to have it built again)", bin, err, names.EnvEngine)
	}
	running.cmd = cmd
	return nil
}

// Close stops the engine of a synthesis still under way, and the Node.js
// process it started: for the end of the program (a second Ctrl-C), so
// that nothing goes on writing into the run's temporary directory.
func Close() {
	running.Lock()
	defer running.Unlock()
	if running.cmd != nil && running.cmd.Process != nil {
		pid := running.cmd.Process.Pid
		procgroup.Kill(pid) // the engine and what it started in its group: go build and the compiler
		nodeshim.KillOf(pid)
	}
}

// Synth synthesizes the stage's stack of the project in the engine program,
// building the engine first when missing.
func (e *Engine) Synth(ctx context.Context, o Options) (*Result, error) {
	var st stepTimes
	timed := st.add
	bin, release, err := e.acquireBuilding(ctx, o, timed)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := Run(ctx, bin, o, timed)
	if res != nil {
		res.Timings = append(st.list(), res.Timings...)
	}
	return res, err
}

// stepTimes collects the durations of a synthesis's steps on the CLI's
// side, from any goroutine.
type stepTimes struct {
	mu    sync.Mutex
	steps []Timing
}

func (t *stepTimes) add(step string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.steps = append(t.steps, Timing{step, d.Seconds()})
}

func (t *stepTimes) list() []Timing {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.steps
}

// acquireBuilding is acquire for a synthesis of o: when the engine must be
// built, the app's builds run meanwhile.
func (e *Engine) acquireBuilding(ctx context.Context, o Options, timed func(string, time.Duration)) (bin string, release func(), err error) {
	var wg sync.WaitGroup
	pctx, cancel := context.WithCancel(ctx)
	defer wg.Wait()
	defer cancel()
	if _, _, ready, err := e.locate(); err == nil && !ready {
		// Go builds the app while it builds the engine: the engine's own
		// builds then find it up to date, or go on from what is done.
		wg.Go(func() {
			start := time.Now()
			prebuild(pctx, o)
			if pctx.Err() == nil {
				timed("go builds of the app for the host and Lambda (while the engine builds)", time.Since(start))
			} else {
				timed("go builds of the app for the host and Lambda while the engine builds (their rest goes on in the engine)", time.Since(start))
			}
		})
	}
	bin, release, err = e.acquire(ctx, o.Progress, timed)
	// The app's builds in the background are stopped once the engine is
	// built: the engine builds the app at the program's own priority, and
	// Go's build cache keeps every package they compiled, so only the
	// compilations under way are done again. Otherwise, on a machine busy
	// with other work, their lowered priority could keep them waiting.
	cancel()
	wg.Wait()
	return bin, release, err
}

// Run has the engine program bin synthesize o; timed receives how long
// the program took to load (the CDK's bindings register their types and
// jsii unpacks its runtime) before it could start.
func Run(ctx context.Context, bin string, o Options, timed func(string, time.Duration)) (*Result, error) {
	r, err := exchange(ctx, bin, CommandSynth, o, timed)
	if err != nil {
		return nil, err
	}
	return r.Result, nil
}

// exchange runs the engine program bin's command on o: it writes the
// request, passes the progress lines on to o.Progress, reports to timed
// how long the program took to be ready, and returns the reply carrying
// the answer, or the engine's error.
func exchange(ctx context.Context, bin, command string, o Options, timed func(string, time.Duration)) (*Reply, error) {
	req, err := json.Marshal(Request{Protocol: Protocol, Options: o})
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, command)
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	procgroup.Own(cmd)
	// The first Ctrl-C reaches the CLI alone (the engine has a process
	// group of its own): pass it on, then wait for the engine to stop.
	cmd.Cancel = func() error { return interruptEngine(cmd.Process) }
	cmd.WaitDelay = 15 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := startRunning(cmd, bin); err != nil {
		return nil, err
	}
	defer func() {
		running.Lock()
		running.cmd = nil
		running.Unlock()
	}()
	var answer *Reply
	var failure string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		var r Reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			continue // not ours
		}
		switch {
		case r.Ready:
			if timed != nil {
				timed("synthesis engine start (CDK bindings load, jsii unpacks its runtime)", time.Since(start))
			}
		case r.Progress != "":
			if o.Progress != nil {
				fmt.Fprintln(o.Progress, r.Progress)
			}
		case r.Result != nil:
			answer = &r
		case r.Error != "":
			failure = r.Error
		}
	}
	werr := cmd.Wait()
	switch {
	case failure != "":
		return nil, errors.New(failure)
	case answer != nil:
		return answer, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("the synthesis engine stopped: %w", ctx.Err())
	}
	why := strings.TrimSpace(stderr.String())
	if why == "" && werr != nil {
		why = werr.Error()
	}
	return nil, fmt.Errorf("the synthesis engine %s ended without an answer: %s; if it persists, remove it to have it built again", bin, lastLines(why, 4))
}
