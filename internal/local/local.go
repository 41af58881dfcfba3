// Package local runs `framework local`: it serves the project's app on a
// local HTTP port and rebuilds and restarts it on every source change.
//
// The supervisor (this package, inside the CLI) owns the listening socket.
// Each build of the app runs as a child process that inherits the socket
// (FRAMEWORK_LISTEN_FD) and serves on it with the same request pipeline the
// Lambda adapter uses; it reports on an inherited pipe (FRAMEWORK_READY_FD)
// once it accepts. On a change the supervisor builds the new version and
// starts it on the same socket; only when it is ready is the previous one
// told to shut down gracefully, so requests in flight finish and no request
// is refused during a reload. A build that fails, or a version that exits at
// start-up, leaves the previous version serving. While no version runs (the
// very first build failed, or the app exited), the supervisor answers every
// request itself with 503 and the reason, until the next good build; with
// autoreload off there is none, and the line printed says to run the
// command again.
//
// No proxy sits in the request path: requests go straight from the kernel
// to the app process.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/localiam"
	"github.com/framework-dev/framework/internal/localinvoke"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
)

// Options configure Run.
type Options struct {
	// ProjectDir is the project's root (the app's main package).
	ProjectDir string
	// Host is the address to bind; empty means 127.0.0.1.
	Host string
	// Port is the TCP port; 0 picks a free one (the line printed says which).
	Port int
	// Stage is the stage whose environment variables the app gets and that
	// appears in the request context; empty means dev.
	Stage string
	// NoAutoreload turns off rebuilding on source changes: an app that
	// exits, or whose first build fails, then stays down until Run is
	// started again.
	NoAutoreload bool
	// Profile, when set, becomes AWS_PROFILE in the app's environment, so
	// its own AWS SDK calls use that profile's credentials; the app does not
	// run with the deployed function's role.
	Profile string
	// Endpoint, when set, is an AWS emulator's URL (LocalStack, DynamoDB
	// Local, moto): the app's declared resources are created there when
	// missing, the app's AWS SDK calls go there, and its queue and topic
	// handlers are fed from there. Without it, the app gets the resources
	// of the deployed stage (its stack's outputs, read with Profile and
	// Region).
	Endpoint string
	// Region is the AWS region of the deployed stage or the emulator.
	Region string
	// NoSchedules keeps the schedule handlers from firing on their timers.
	NoSchedules bool
	// NoIAMCheck turns off the local IAM check (internal/localiam): the
	// functions' AWS calls then go where they would without it, with the
	// user's or the emulator's credentials, unchecked. With it on, they
	// are checked against the policies each build's scan makes (Scan),
	// or the stage's hand-written policy.
	NoIAMCheck bool
	// JSON prints one JSON object per event on Stdout instead of text lines;
	// the app's own output then goes to Stderr.
	JSON bool
	// Stdout and Stderr receive the supervisor's lines and the app's output.
	Stdout, Stderr io.Writer
	// Debounce is how long to wait after a change for more changes before
	// rebuilding; 0 means 150 ms.
	Debounce time.Duration
	// StartTimeout bounds how long a new app process may take to start
	// serving; 0 means 30 s.
	StartTimeout time.Duration
	// StopTimeout bounds the graceful shutdown of an app process before it
	// is killed; 0 means 12 s.
	StopTimeout time.Duration
	// Scan, when not nil, finds the app's AWS calls (the policy scan,
	// package scan, which the CLI runs in its own process), so that each
	// build is checked against the declarations as synth checks it: a call
	// beyond a declaration (perms.CeilingError) is a start-up error, as a
	// build error is. It returns ErrNoScan when it cannot scan now: the
	// check is then skipped, saying so once.
	Scan func(ctx context.Context, dir string) (*policy.Report, error)
	// FunctionConcurrency is the most processes of one event or
	// WebSocket handler that run at once (localinvoke.Pool.Max): an
	// invocation beyond them waits for one to be free. 0 means
	// localinvoke.DefaultMaxProcesses.
	FunctionConcurrency int
	// WebSocketPort is the TCP port of the local WebSocket API, served
	// when the app declares WebSocket handlers; 0 picks a free one (the
	// line printed says which).
	WebSocketPort int
}

// ErrInterruptedFirstBuild is what Run returns when ctx is done before the
// first build gave a version to serve: the command was interrupted, not
// stopped after serving.
var ErrInterruptedFirstBuild = errors.New("interrupted while building the app: nothing was served")

// ErrNoScan is what Options.Scan returns when the scan cannot run now.
var ErrNoScan = errors.New("the synthesis engine, which scans the code, is not built yet")

// Run serves until ctx is done (Ctrl-C), then stops the app gracefully.
func Run(ctx context.Context, o Options) error {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Stage == "" {
		o.Stage = names.DefaultStage
	}
	if err := config.CheckStageName(o.Stage); err != nil {
		return err
	}
	if o.FunctionConcurrency < 0 {
		return fmt.Errorf("--function-concurrency %d: give the most processes of one function that may run at once, 1 or more", o.FunctionConcurrency)
	}
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port %d is not a TCP port: use 1 to 65535 (or 0 for any free port)", o.Port)
	}
	if o.Debounce == 0 {
		o.Debounce = 150 * time.Millisecond
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.StopTimeout == 0 {
		o.StopTimeout = 12 * time.Second
	}
	dir, err := filepath.Abs(o.ProjectDir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("project directory %s does not exist or is not a directory", dir)
	}
	// --aws-endpoint wins over the stage's aws_endpoint.
	endpointFrom := ""
	if o.Endpoint == "" {
		o.Endpoint, endpointFrom = configEndpoint(dir, o.Stage)
	}
	if o.Endpoint != "" {
		if err := localres.CheckEndpoint(o.Endpoint); err != nil {
			return err
		}
	}
	s := &supervisor{o: o, dir: dir, appOut: o.Stdout, exited: make(chan *child, 64)}
	if o.JSON {
		s.appOut = o.Stderr
	}
	// The app's metrics lines, readable (or as events).
	s.appOut = &emfFilter{w: s.appOut, report: s.reportMetrics}
	if err := s.loadEnv(); err != nil {
		return err
	}
	if err := s.startIAM(); err != nil {
		return err
	}
	defer s.iam.proxy.Close()

	addr := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return listenError(o.Host, o.Port, err)
	}
	defer l.Close()
	s.ln = l.(*net.TCPListener)
	if s.lnFile, err = s.ln.File(); err != nil {
		return fmt.Errorf("prepare the listening socket for the app: %w", err)
	}
	defer s.lnFile.Close()
	s.port = s.ln.Addr().(*net.TCPAddr).Port

	var events <-chan fsnotify.Event
	var werrs <-chan error
	if !o.NoAutoreload {
		w, err := newWatcher(dir)
		if err != nil {
			return err
		}
		defer w.Close()
		events, werrs = w.Events, w.Errors
		s.watcher = w
	}

	if endpointFrom != "" {
		s.event("aws_endpoint", map[string]any{"url": o.Endpoint, "from": endpointFrom},
			"AWS emulator: %s (aws_endpoint of stage %s in %s); the app's AWS SDK calls go there.", o.Endpoint, o.Stage, endpointFrom)
	}
	// The first build may compile for a minute: say so before it starts.
	b := new(build.Builder) // as build.Host
	first := b.FirstBuild()
	s.event("building", map[string]any{"first_build": first}, "%s", b.StartLine("the app"))
	s.reload(ctx, "")
	if ctx.Err() != nil && s.cur == nil {
		// Ctrl-C during the first build: nothing was served, and a
		// silent exit 0 read as a server that had stopped normally.
		s.release()
		return ErrInterruptedFirstBuild
	}
	s.announce()
	defer s.shutdown()

	var timer *time.Timer
	var fire <-chan time.Time
	changed := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			if s.watcher.handle(ev) {
				changed[relName(dir, ev.Name)] = true
				if timer == nil {
					timer = time.NewTimer(o.Debounce)
				} else {
					timer.Reset(o.Debounce)
				}
				fire = timer.C
			}
		case <-s.res.answers:
			s.emulatorAnswered(ctx)
		case err := <-werrs:
			s.event("watch_error", map[string]any{"error": err.Error()}, "Watching for changes: %v", err)
		case <-fire:
			fire = nil
			files := slices.Sorted(maps.Keys(changed))
			changed = map[string]bool{}
			s.reload(ctx, strings.Join(files, ", "))
		case c := <-s.exited:
			if c == s.cur {
				s.cur = nil
				msg := fmt.Sprintf("the app exited (%s)", exitText(c.err))
				s.event("app_exited", map[string]any{"status": exitText(c.err)}, "The app exited (%s); %s. Meanwhile requests get 503.", exitText(c.err), s.restartHint())
				s.startFallback(msg)
			}
		}
	}
}

// supervisor is the state of one `framework local` run; only Run's goroutine uses it.
type supervisor struct {
	o       Options
	dir     string
	appOut  io.Writer
	env     []string // the app's environment
	ln      *net.TCPListener
	lnFile  *os.File // the socket handed to each app process
	port    int
	watcher *watcher

	outMu     sync.Mutex
	cur       *child
	exited    chan *child
	fallback  *http.Server
	lastErr   string
	announced bool

	res        resources // the declared resources and what feeds the handlers
	iam        iamState  // the local IAM check
	fnMu       sync.Mutex
	fnBin      string // the build the event handlers run, its environment (each handler's resources' apart) and timeouts, under fnMu
	fnEnv      []string
	fnResEnv   map[string][]string
	fnTimeouts localinvoke.Timeouts
	fnPool     *localinvoke.Pool    // fnBin's warm function processes, under fnMu
	timeouts   localinvoke.Timeouts // the stage's, as loadEnv read them
	frontDoor  config.FrontDoor     // the stage's, as loadEnv read it
	stage      declspec.Stage       // what the declarations' check and defaults read of the stage, as loadEnv read it
	// scanned is true when the stage's policy is generated from the
	// source (autogen_policy, a managed role), so that the declarations
	// are the ceiling of the scanned calls; xray is the stage's tracing.
	scanned, xray bool
	noScanSaid    bool
	// perms are each function's policy, as the last good build's code and
	// declarations make it (nil before, or when not scanned).
	perms *perms.Policies
	// ws is the local WebSocket API, once a build declares one (websocket.go).
	ws *wsServer
}

// child is one running app process.
type child struct {
	cmd  *exec.Cmd
	bin  string
	done chan struct{}
	err  error               // set before done is closed
	res  *localres.Resources // what its environment points at
}

// loadEnv computes the app's environment: the user's, without the
// variables that would change the app's mode (AWS_LAMBDA_RUNTIME_API and
// every FRAMEWORK_ variable but the build cache's), plus the stage's
// variables from .framework/config.json, FRAMEWORK_STAGE and AWS_PROFILE.
func (s *supervisor) loadEnv() error {
	var stageVars []string
	s.frontDoor, s.stage = config.FrontDoor{}, declspec.Stage{}
	f, err := config.Load(s.dir)
	switch {
	case err == nil:
		st, err := f.Stage(s.o.Stage)
		if err != nil {
			return err
		}
		stageVars = st.Environ()
		s.timeouts = localinvoke.Timeouts{Seconds: st.LambdaTimeout, Functions: st.LambdaFunctions}
		s.frontDoor = st.FrontDoor
		s.stage = declspec.FromConfig(st)
		s.scanned = st.AutogenPolicy && st.ManageRole
		s.xray = st.XRay
		if st.APIType != "" {
			stageVars = append(stageVars, names.EnvAPIType+"="+st.APIType)
		}
	case errors.Is(err, os.ErrNotExist):
		// A bare app without a project configuration still serves.
		s.scanned, s.xray = config.DefaultAutogenPolicy && config.DefaultManageRole, false
	default:
		return err
	}
	// The app's log lines, and its event handlers', in one readable format
	// (colored on a terminal).
	set := append([]string{names.EnvStage + "=" + s.o.Stage, names.EnvLogFormat + "=" + localinvoke.LogFormat(os.Getenv, s.o.Stdout, s.o.Stderr)}, stageVars...)
	if s.o.Profile != "" {
		set = append(set, "AWS_PROFILE="+s.o.Profile)
	}
	s.env = build.AppEnviron(os.Environ(), set...)
	return nil
}

// configEndpoint returns the stage's aws_endpoint in the project's
// .framework/config.json and the file's path, or "" when it sets none.
// The file's errors are loadEnv's to report.
func configEndpoint(dir, stage string) (endpoint, path string) {
	f, err := config.Load(dir)
	if err != nil {
		return "", ""
	}
	st, err := f.Stage(stage)
	if err != nil || st.AWSEndpoint == "" {
		return "", ""
	}
	return st.AWSEndpoint, f.Path
}

// reload builds the app and, when the build is good, swaps the running
// version for the new one. why names the changed files ("" at start-up).
func (s *supervisor) reload(ctx context.Context, why string) {
	start := time.Now()
	if why != "" {
		s.event("change", map[string]any{"files": why}, "Change in %s: rebuilding...", why)
		if err := s.loadEnv(); err != nil {
			s.event("config_error", map[string]any{"error": err.Error()}, "%v\nStill serving the previous version.", err)
			return
		}
	}
	name := "app-a"
	if s.cur != nil && filepath.Base(s.cur.bin) == name {
		name = "app-b"
	}
	// The scan of the code runs beside the build.
	var rep *policy.Report
	var scanErr error
	var scanning sync.WaitGroup
	if s.o.Scan != nil && s.scanned {
		scanning.Go(func() { rep, scanErr = s.o.Scan(ctx, s.dir) })
	}
	bin, err := build.Host(ctx, s.dir, name)
	scanning.Wait()
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		s.failed("build_failed", err)
		return
	}
	m, err := build.ManifestOf(ctx, s.dir, bin)
	if err == nil {
		// What synth would refuse for this stage (its front door, its
		// declarations under its configuration) is refused here too, with
		// the same message: the local server would serve it, the stage
		// would not deploy.
		if err := declspec.Check(m, s.stage); err != nil {
			kind := "declaration_error"
			if errors.Is(err, declspec.ErrFrontDoor) {
				kind = "front_door_error"
			}
			s.failed(kind, fmt.Errorf("%w\n(framework synth and deploy refuse this stage for the same reason)", err))
			return
		}
		// So is a call beyond a declaration: the deployed role would
		// refuse it.
		if err := s.checkPerms(m, rep, scanErr); err != nil {
			s.failed("permission_error", err)
			return
		}
		s.updateWebSocket(m)
		s.resolve(ctx, m, bin)
	}
	s.stopFallback()
	c, err := s.start(bin)
	if err != nil {
		s.failed("start_failed", err)
		return
	}
	old := s.cur
	s.cur = c
	c.res = s.res.last
	s.lastErr = ""
	if old != nil {
		s.stop(old)
		if old.res != c.res {
			old.res.Close()
		}
		s.event("reloaded", map[string]any{"seconds": time.Since(start).Seconds()}, "Reloaded in %.1fs.", time.Since(start).Seconds())
	} else if why != "" {
		s.event("started", map[string]any{"seconds": time.Since(start).Seconds()}, "Built and started in %.1fs.", time.Since(start).Seconds())
	}
}

// checkPerms computes each function's policy from the manifest and the
// scan's report, as synth does, and returns the calls that go beyond a
// declaration (perms.CeilingError), with what synth would say.
func (s *supervisor) checkPerms(m *manifest.Manifest, rep *policy.Report, scanErr error) error {
	switch {
	case s.o.Scan == nil || !s.scanned:
		return nil
	case errors.Is(scanErr, ErrNoScan):
		if !s.noScanSaid {
			s.noScanSaid = true
			s.event("permission_check_skipped", map[string]any{"reason": scanErr.Error()},
				"The app's AWS calls are not checked, neither against its declarations nor, as they run, against the deployed roles: %v (framework synth or gen-policy builds it; the next start checks them).", scanErr)
		}
		return nil
	case scanErr != nil:
		// The build reports what does not compile; anything else is said
		// once and does not stop the app. The previous build's policies
		// are not this code's: the calls are checked against none.
		s.perms = nil
		s.event("permission_check_failed", map[string]any{"error": scanErr.Error()}, "The app's AWS calls could not be checked: %v", scanErr)
		return nil
	}
	p, err := perms.Compute(perms.Input{Manifest: m, Calls: rep.Calls, XRay: s.xray})
	if err != nil {
		if ce := localiam.CeilingRefusal(err); ce != nil {
			return ce
		}
		return fmt.Errorf("the app's code goes beyond what it declares:\n%w\n(framework synth and deploy refuse the app for the same reason)", err)
	}
	s.perms = p
	return nil
}

// failed reports a build or start failure; the previous version, if any,
// keeps serving, otherwise the fallback answers with the error.
func (s *supervisor) failed(kind string, err error) {
	msg := err.Error()
	var ce *build.CompileError
	if errors.As(err, &ce) {
		msg = "Build failed:\n" + strings.TrimRight(ce.Output, "\n")
	}
	s.lastErr = msg
	if s.cur != nil {
		s.event(kind, map[string]any{"error": msg}, "%s\nStill serving the previous version; fix the error and save.", msg)
		return
	}
	if s.o.NoAutoreload {
		s.event(kind, map[string]any{"error": msg}, "%s\nThe app is not running; requests get 503. To restart it, %s.", msg, s.restartHint())
	} else {
		s.event(kind, map[string]any{"error": msg}, "%s\nThe app is not running; requests get 503 until a build succeeds.", msg)
	}
	s.startFallback(msg)
}

// restartHint says what restarts the app once its problem is fixed: a
// save with autoreload; without it, nothing short of running the command
// again.
func (s *supervisor) restartHint() string {
	if s.o.NoAutoreload {
		return "fix it, then stop this server with Ctrl-C and run `framework local` again (with --no-autoreload, saving does not restart it)"
	}
	return "fix it and save to restart it"
}

// announce prints the serving line once.
func (s *supervisor) announce() {
	if s.announced {
		return
	}
	s.announced = true
	host := s.o.Host
	if host == "127.0.0.1" || host == "::1" || host == "localhost" {
		host = "localhost"
	}
	addr := net.JoinHostPort(host, strconv.Itoa(s.port))
	if s.o.JSON {
		s.event("serving", map[string]any{"address": addr, "url": "http://" + addr + "/", "stage": s.o.Stage, "running": s.cur != nil}, "")
		return
	}
	s.printf("Serving on %s\n", addr)
}

// start runs bin on the shared socket and waits until it serves.
func (s *supervisor) start(bin string) (*child, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command(bin)
	cmd.Dir = s.dir
	// The API's function's timeout: a route's context ends, and the
	// front door answers, when the deployed function's would.
	timeout := names.EnvLambdaTimeout + "=" + strconv.Itoa(int(s.timeouts.Of("")/time.Second))
	cmd.Env = slices.Concat(s.env, s.res.env[names.APIHandlerName], s.iamEnv(names.APIHandlerName), s.wsEnv(), []string{timeout, names.EnvListenFD + "=3", names.EnvReadyFD + "=4"})
	cmd.ExtraFiles = []*os.File{s.lnFile, w}
	cmd.Stdout = s.appOut
	cmd.Stderr = s.o.Stderr
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("start the app %s: %w", bin, err)
	}
	w.Close()
	c := &child{cmd: cmd, bin: bin, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
		s.exited <- c
	}()
	ready := make(chan bool, 1)
	go func() {
		buf := make([]byte, 6)
		n, _ := io.ReadFull(r, buf)
		ready <- n == 6 && string(buf) == "ready\n"
	}()
	select {
	case ok := <-ready:
		if ok {
			return c, nil
		}
		select {
		case <-c.done:
		case <-time.After(s.o.StopTimeout):
			s.stop(c)
		}
		return nil, fmt.Errorf("the new version exited at start-up (%s); see its message above", exitText(c.err))
	case <-time.After(s.o.StartTimeout):
		s.stop(c)
		return nil, fmt.Errorf("the new version did not start serving within %s: does main call app.Run()?", s.o.StartTimeout)
	}
}

// stop asks c to shut down gracefully and kills it after Options.StopTimeout.
func (s *supervisor) stop(c *child) {
	_ = terminate(c.cmd.Process)
	select {
	case <-c.done:
	case <-time.After(s.o.StopTimeout):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// shutdown stops everything at the end of Run.
func (s *supervisor) shutdown() {
	s.release()
	s.event("stopped", nil, "Stopped.")
}

// release stops what the supervisor started: the deliverer, the warm
// function processes, the fallback server and the app.
func (s *supervisor) release() {
	s.stopDeliverer()
	s.fnMu.Lock()
	pool := s.fnPool
	s.fnPool = nil
	s.fnMu.Unlock()
	if pool != nil {
		pool.Close()
	}
	s.stopFallback()
	if s.ws != nil {
		s.ws.close()
	}
	if s.cur != nil {
		s.stop(s.cur)
		s.cur.res.Close()
		s.cur = nil
	}
	s.res.last.Close()
}

// startFallback answers every request with 503 and msg while no app runs.
// It serves on a duplicate of the socket, so stopping it leaves the socket open.
func (s *supervisor) startFallback(msg string) {
	s.stopFallback()
	f, err := s.ln.File()
	if err != nil {
		return
	}
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return
	}
	body := "framework local: the app is not running.\n\n" + msg + "\n"
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, body)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	s.fallback = srv
	go func() { _ = srv.Serve(l) }()
}

// stopFallback stops the fallback server, if it runs.
func (s *supervisor) stopFallback() {
	if s.fallback == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.fallback.Shutdown(ctx)
	s.fallback = nil
}

func (s *supervisor) printf(format string, args ...any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	fmt.Fprintf(s.o.Stdout, format, args...)
}

// listenError says why the socket for host and port could not be opened
// and what to do: a host that does not resolve or is not an address of this
// machine is a --host problem, a port in use or one that needs privileges a
// --port problem.
func listenError(host string, port int, err error) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	const examples = "such as 127.0.0.1 (the default) or 0.0.0.0 for every interface"
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot listen on %s: --host %s is not an IP address and does not resolve to one (%v): give an address of this machine, %s", addr, host, dnsErr, examples)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("cannot listen on %s: --host %s is not an address of this machine (%v): give one of its addresses, %s", addr, host, syscall.EADDRNOTAVAIL, examples)
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("cannot listen on %s: port %d is already in use: is another `framework local` or server using it? Stop it, or choose another port with --port (0 picks a free one)", addr, port)
	case errors.Is(err, syscall.EACCES) && port > 0 && port < 1024:
		return fmt.Errorf("cannot listen on %s: permission denied: ports below 1024 usually need administrator rights; choose a port from 1024 up with --port (the default is 8000)", addr)
	}
	return fmt.Errorf("cannot listen on %s: %w", addr, err)
}

// exitText describes how a process ended.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

func relName(dir, name string) string {
	if r, err := filepath.Rel(dir, name); err == nil {
		return filepath.ToSlash(r)
	}
	return name
}
