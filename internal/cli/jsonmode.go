package cli

import (
	"encoding/json"
	"io"
	"time"

	"github.com/framework-dev/framework/internal/deploy"
	"github.com/framework-dev/framework/internal/names"
)

// humanEnv returns the Env a command with a --json flag writes its text
// through: env itself, or, with --json, a copy whose stdout is env's
// stderr (progress, questions, notes), so that env's stdout carries the
// JSON alone.
func humanEnv(env *Env, asJSON bool) *Env {
	if !asJSON {
		return env
	}
	h := *env
	h.Stdout = env.Stderr
	h.StdoutIsTerminal = func() bool { return false }
	h.StdoutWidth = func() int { return 0 }
	return &h
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// deployResult is what `framework deploy --json` prints: one object per
// deploy (with --watch, one line per change deployed or failed).
type deployResult struct {
	Stage  string `json:"stage"`
	Stack  string `json:"stack,omitempty"`
	Region string `json:"region"`
	// Action is what the deploy did: "created" (the stack's first deploy),
	// "updated", "unchanged", "hotswapped" (function code through the
	// Lambda API), or "failed" (--watch goes on after a failure; Error says why).
	Action string `json:"action"`
	// Hotswapped names the functions whose code a hotswap updated.
	Hotswapped []string `json:"hotswapped,omitempty"`
	// URL is the stage's base URL; CustomDomainURL its custom domain's.
	URL             string `json:"url,omitempty"`
	CustomDomainURL string `json:"custom_domain_url,omitempty"`
	// WebSocketURL is the wss:// URL of the app's WebSocket API, if any.
	WebSocketURL string            `json:"websocket_url,omitempty"`
	Outputs      map[string]string `json:"outputs,omitempty"`
	// Seconds is the deploy's time; with --watch, since the change was saved.
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

// newDeployResult fills the result of a deploy of stack from its outputs.
func newDeployResult(stage, stack, region, action string, outputs map[string]string, start time.Time) deployResult {
	return deployResult{
		Stage: stage, Stack: stack, Region: region, Action: action,
		URL: outputs[names.OutputEndpointURL], CustomDomainURL: outputs[names.OutputCustomDomainURL],
		WebSocketURL: outputs[names.OutputWebSocketURL],
		Outputs:      outputs, Seconds: time.Since(start).Round(time.Millisecond).Seconds(),
	}
}

// fullAction is the Action of a deploy through CloudFormation.
func fullAction(out *deploy.Result) string {
	switch {
	case out.FirstDeploy:
		return "created"
	case out.NoChanges:
		return "unchanged"
	}
	return "updated"
}
