package cli

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/local"
	"github.com/framework-dev/framework/internal/localinvoke"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/policy/scan"
)

// LocalCmd serves the app on a local HTTP server and, unless
// --no-autoreload is given, rebuilds and restarts it on every change to its
// Go sources, go.mod, go.sum or .framework/config.json, without refusing a
// request during the restart.
type LocalCmd struct {
	Port         port   `default:"8000" help:"TCP port to serve on (0 picks a free one)."`
	Host         string `default:"127.0.0.1" help:"Address to bind; the default keeps the server private to this machine."`
	Stage        string `default:"${default_stage}" help:"Stage whose environment variables from .framework/config.json the app gets, and whose deployed resources it uses (without --aws-endpoint); also the stage in the request context."`
	NoAutoreload bool   `name:"no-autoreload" help:"Do not rebuild and restart on source changes."`
	Profile      string `help:"AWS profile for the app's own AWS SDK calls (sets AWS_PROFILE for the app) and for reading the deployed stage's resources."`
	Region       string `help:"AWS region of the deployed stage whose resources the app uses, or of the emulator (default: AWS_REGION, else the profile's region)."`
	AWSEndpoint  string `name:"aws-endpoint" placeholder:"URL" help:"An AWS emulator (LocalStack, DynamoDB Local, moto): the app's declared resources are created there when missing, its AWS SDK calls go there, and its queue and topic handlers are fed from there. Without it, the app uses the deployed stage's resources."`
	NoSchedules  bool   `name:"no-schedules" help:"Do not fire the schedule handlers on their timers."`
	NoIAMCheck   bool   `name:"no-iam-check" help:"Do not check the functions' AWS calls against the policies of their deployed roles (a call a role would refuse then succeeds locally)."`
	JSON         bool   `name:"json" help:"Print events (serving, change, build_failed, reloaded, ...) as JSON lines; the app's own output goes to stderr."`
	WSPort       port   `name:"ws-port" default:"8001" help:"TCP port of the app's WebSocket API, served when the app declares WebSocket handlers (0 picks a free one)."`
	// FunctionConcurrency caps the warm processes of each event or
	// WebSocket handler (localinvoke.Pool.Max).
	FunctionConcurrency int `name:"function-concurrency" default:"${function_concurrency}" placeholder:"N" help:"Most processes of one event or WebSocket handler that run at once, as a function's concurrency deployed; events beyond them wait, in order, for a free one. A process idle for ${function_idle} is ended."`
}

// Run serves until the first Ctrl-C (SIGINT) or SIGTERM, then stops the app
// gracefully.
func (c *LocalCmd) Run(g *Globals, env *Env) error {
	// A stage one slip from a declared one (devv for dev) is refused
	// before anything is built or created in an emulator, as deploy
	// refuses it.
	if f, err := config.Load(g.ProjectDir); err == nil {
		if err := f.CheckStageTypo(c.Stage); err != nil {
			return err
		}
	}
	if c.FunctionConcurrency < 1 {
		return fmt.Errorf("--function-concurrency %d: give the most processes of one handler that may run at once, 1 or more (default %d)", c.FunctionConcurrency, localinvoke.DefaultMaxProcesses)
	}
	if exposed(c.Host) {
		on := fmt.Sprintf("port %d", c.Port)
		if c.Port == 0 {
			on = "the port it picks"
		}
		fmt.Fprintf(env.Stderr, "Warning: --host %s makes the app reachable from the network: anyone who reaches this machine on %s can call it, with this stage's settings and AWS access (the default, 127.0.0.1, keeps it private).\n", c.Host, on)
	}
	defer trimCaches(g, env)()
	ctx, stop := env.Context()
	defer stop()
	err := local.Run(ctx, local.Options{
		ProjectDir: g.ProjectDir, Host: c.Host, Port: int(c.Port), Stage: c.Stage, WebSocketPort: int(c.WSPort),
		NoAutoreload: c.NoAutoreload, Profile: c.Profile, JSON: c.JSON,
		Endpoint: c.AWSEndpoint, Region: c.Region, NoSchedules: c.NoSchedules,
		NoIAMCheck: c.NoIAMCheck, Scan: localScan, FunctionConcurrency: c.FunctionConcurrency,
		Stdout: env.Stdout, Stderr: env.Stderr,
	})
	if errors.Is(err, local.ErrInterruptedFirstBuild) {
		return &ExitError{Code: 130, Err: err}
	}
	return err
}

// exposed reports whether a server bound to host can be reached from
// other machines: any address but a loopback one and localhost.
func exposed(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err != nil || !ip.IsLoopback()
}

// localScan scans the app for its AWS calls (package scan, which the CLI
// links for this), so that `framework local` refuses a call beyond a
// declaration as synth does, and checks each call against the policy of
// its function's deployed role, from the first run on a machine: the
// synthesis engine, which scans too, is not needed (its first build takes
// minutes). The memory the scan took (type-checking the app's module) is
// given back to the system at once: `framework local` runs on.
func localScan(ctx context.Context, dir string) (*policy.Report, error) {
	defer debug.FreeOSMemory()
	return scan.ScanContext(ctx, dir)
}

// port is the value of --port: a TCP port, or 0 for any free one. Every
// value outside 0 to 65535 gets the same usage error, "-1" included, which
// kong's int flags would take for a short flag ("perhaps try --port=-1").
type port int

// Decode reads the flag's value: the next argument even when it is a
// negative number, as no flag of the CLI is a digit.
func (p *port) Decode(ctx *kong.DecodeContext) error {
	t := ctx.Scan.Peek()
	if s, ok := t.Value.(string); ok && t.Type == kong.UntypedToken && len(s) > 1 && s[0] == '-' && isDigits(s[1:]) {
		ctx.Scan.Pop()
	} else {
		var err error
		if t, err = ctx.Scan.PopValue("port"); err != nil {
			return err
		}
	}
	s := fmt.Sprint(t.Value)
	n, err := strconv.Atoi(s)
	if err != nil && !isDigits(strings.TrimLeft(s, "+-")) {
		return fmt.Errorf("%q is not a number: give a TCP port, 1 to 65535 (or 0 for any free port)", s)
	}
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%s is not a TCP port: use 1 to 65535 (or 0 for any free port)", s)
	}
	*p = port(n)
	return nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
