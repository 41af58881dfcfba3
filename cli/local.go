package cli

import (
	"github.com/framework-dev/framework/internal/local"
)

// LocalCmd serves the app on a local HTTP server and, unless
// --no-autoreload is given, rebuilds and restarts it on every change to its
// Go sources, go.mod, go.sum or .framework/config.json, without refusing a
// request during the restart.
type LocalCmd struct {
	Port         int    `default:"8000" help:"TCP port to serve on (0 picks a free one)."`
	Host         string `default:"127.0.0.1" help:"Address to bind; the default keeps the server private to this machine."`
	Stage        string `default:"${default_stage}" help:"Stage whose environment variables from .framework/config.json the app gets; also the stage in the request context."`
	NoAutoreload bool   `name:"no-autoreload" help:"Do not rebuild and restart on source changes."`
	Profile      string `help:"AWS profile for the app's own AWS SDK calls (sets AWS_PROFILE for the app)."`
	JSON         bool   `name:"json" help:"Print events (serving, change, build_failed, reloaded, ...) as JSON lines; the app's own output goes to stderr."`
}

// Run serves until the first Ctrl-C (SIGINT) or SIGTERM, then stops the app
// gracefully.
func (c *LocalCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	return local.Run(ctx, local.Options{
		ProjectDir: g.ProjectDir, Host: c.Host, Port: c.Port, Stage: c.Stage,
		NoAutoreload: c.NoAutoreload, Profile: c.Profile, JSON: c.JSON,
		Stdout: env.Stdout, Stderr: env.Stderr,
	})
}
