package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/framework-dev/framework/internal/local"
)

// LocalCmd serves the app on a local HTTP server, rebuilding and restarting
// it on every source change (spec 4.6, "local").
type LocalCmd struct {
	Port         int    `default:"8000" help:"TCP port to serve on (0 picks a free one)."`
	Host         string `default:"127.0.0.1" help:"Address to bind; the default keeps the server private to this machine."`
	Stage        string `default:"dev" help:"Stage whose environment variables from .framework/config.json the app gets; also the stage in the request context."`
	NoAutoreload bool   `name:"no-autoreload" help:"Do not rebuild and restart on source changes."`
	Profile      string `help:"AWS profile for the app's own AWS SDK calls (sets AWS_PROFILE for the app)."`
	JSON         bool   `name:"json" help:"Print events (serving, change, build_failed, reloaded, ...) as JSON lines; the app's own output goes to stderr."`
}

// Run serves until Ctrl-C (SIGINT) or SIGTERM.
func (c *LocalCmd) Run(g *Globals, stdout io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return local.Run(ctx, local.Options{
		ProjectDir: g.ProjectDir, Host: c.Host, Port: c.Port, Stage: c.Stage,
		NoAutoreload: c.NoAutoreload, Profile: c.Profile, JSON: c.JSON,
		Stdout: stdout, Stderr: os.Stderr,
	})
}
