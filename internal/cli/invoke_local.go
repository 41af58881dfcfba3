package cli

import (
	"encoding/json"
	"fmt"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/localinvoke"
)

// runLocal is `framework invoke NAME --local`: it runs the handler in a
// local build of the app with the event (or a sample for its kind) through
// the Lambda runtime path of the deployed function, and prints the result
// as the remote form does: the result on stdout, the function's output on
// stderr, exit 1 on a function error.
func (c *InvokeCmd) runLocal(g *Globals, env *Env) error {
	defer trimCaches(g, env)()
	ctx, stop := env.Context()
	defer stop()
	var event []byte
	if c.Payload != "" {
		b, err := c.readPayload(env)
		if err != nil {
			return err
		}
		event = b
	}
	o := localinvoke.Options{ProjectDir: g.ProjectDir, Stage: c.Stage, Name: c.Name, Event: event,
		Endpoint: c.AWSEndpoint, Profile: c.Profile, Region: c.Region,
		NoIAMCheck: c.NoIAMCheck, Policies: deployedPolicies(g.ProjectDir, c.Stage),
		Notice: func(line string) { fmt.Fprintln(env.Stderr, line) }}
	if !c.JSON {
		o.Log = env.Stderr
		o.LogFormat = localinvoke.LogFormat(env.Getenv, env.Stderr)
	}
	// Progress goes to stderr with the function's output: stdout is the result.
	fmt.Fprintln(env.Stderr, build.StartLine("the app"))
	inv, err := localinvoke.Run(ctx, o)
	if err != nil {
		return interruptedWhile(ctx, "building the app and running the handler locally", "it was stopped", err)
	}
	res := inv.Result
	if c.JSON {
		b, err := json.MarshalIndent(struct {
			Function string          `json:"function"`
			Kind     string          `json:"kind"`
			Event    json.RawMessage `json:"event"`
			Result   any             `json:"result"`
		}{inv.Function.Name, string(inv.Function.Kind), inv.Event, res}, "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(env.Stdout, "%s\n", b); err != nil {
			return err
		}
	} else if err := writePayload(env.Stdout, res); err != nil {
		return err
	}
	return functionFailed(res, fmt.Sprintf("function %s (local build)", inv.Function.Name))
}
