package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"

	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/remote"
)

// LogsCmd prints a deployed function's CloudWatch Logs.
type LogsCmd struct {
	Function string `placeholder:"NAME" help:"Function whose logs to print: api, the REST API's function (the default; the app's name means it too)."`
	Since    string `default:"10m" placeholder:"WHEN" help:"Print events from this long ago (a Go duration: 10m, 2h; default 10m) or from this RFC 3339 time."`
	Follow   bool   `short:"f" help:"Keep printing new events until Ctrl-C."`
	JSON     bool   `name:"json" help:"Print one JSON object per event (time, stream, message, id)."`
	FunctionFlags
}

// eventJSON is an event as --json prints it.
type eventJSON struct {
	Time    string `json:"time"`
	Stream  string `json:"stream"`
	Message string `json:"message"`
	ID      string `json:"id"`
}

// Run prints the function's log events, oldest first, from --since on; with
// --follow it then polls for new events every 2 s (FRAMEWORK_POLL_INTERVAL)
// until interrupted, and exits 0. A stage that is not deployed exits with
// code 2; a function that has no log group yet (never invoked) is one line
// on stderr and exit 0.
func (c *LogsCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	start, err := remote.ParseSince(c.Since, time.Now())
	if err != nil {
		return err
	}
	interval := 2 * time.Second
	if v := env.Getenv(names.EnvPollInterval); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s=%q: want a positive duration such as 5s", names.EnvPollInterval, v)
		}
		interval = d
	}
	fn, cfg, err := c.deployed(ctx, g, env, c.Function)
	if err != nil {
		return err
	}
	r := &remote.Reader{Client: cloudwatchlogs.NewFromConfig(cfg), Group: fn.LogGroup(), PollInterval: interval}
	emit := func(e remote.Event) error {
		if c.JSON {
			b, err := json.Marshal(eventJSON{Time: e.Time.UTC().Format(time.RFC3339Nano), Stream: e.Stream, Message: e.Message, ID: e.ID})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
			return err
		}
		_, err := fmt.Fprintln(env.Stdout, e.Line())
		return err
	}
	noLogs := fmt.Sprintf("No logs yet: function %s (%s) has not been invoked (log group %s does not exist)", fn.Name, fn.FunctionName, fn.LogGroup())
	if c.Follow {
		err := r.Follow(ctx, start, emit, func() {
			fmt.Fprintf(env.Stderr, "%s; waiting for its first invocation (Ctrl-C to stop).\n", noLogs)
		})
		if err != nil {
			return fmt.Errorf("follow the logs of function %s: %w", fn.Name, deploy.Unreachable(cfg.Region, err))
		}
		return nil
	}
	evs, err := r.Fetch(ctx, start, time.Time{})
	if errors.Is(err, remote.ErrNoLogGroup) {
		fmt.Fprintf(env.Stderr, "%s.\n", noLogs)
		return nil
	}
	if err != nil {
		return interrupted(ctx, fmt.Errorf("logs of function %s: %w", fn.Name, deploy.Unreachable(cfg.Region, err)))
	}
	if len(evs) == 0 {
		fmt.Fprintf(env.Stderr, "No log events of function %s since %s (try a longer --since).\n", fn.Name, start.UTC().Format(remote.TimeFormat))
	}
	for _, e := range evs {
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}
