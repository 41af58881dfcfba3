package cli

import (
	"fmt"

	"github.com/framework-dev/framework/internal/names"
)

// URLCmd prints the deployed base URL of a stage: the EndpointURL output
// of its stack.
type URLCmd struct {
	Stage string `default:"${default_stage}" help:"Stage whose URL to print."`
	AWSFlags
	JSON bool `name:"json" help:"Print one JSON object: stage, stack, region, url, custom_domain_url (when the stage has one)."`
}

// Run prints the stage stack's EndpointURL output; with a custom domain,
// the domain's URL (CustomDomainURL) on the line before it. A stage that
// is not deployed exits with code 2.
func (c *URLCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	name, e, err := stageStack(ctx, g, env, c.Stage, c.AWSFlags, false)
	if err != nil {
		return err
	}
	st, err := e.DescribeStack(ctx, name)
	if err != nil {
		return err
	}
	if st == nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("stage %s is not deployed: no stack %s in %s; %s", c.Stage, name, e.Region, deployFirst(g.ProjectDir, c.Stage))}
	}
	url := st.Outputs[names.OutputEndpointURL]
	if url == "" {
		return &ExitError{Code: 2, Err: fmt.Errorf("stage %s has no deployed API: stack %s is %s and has no %s output; run `framework deploy --stage %s`", c.Stage, name, st.Status, names.OutputEndpointURL, c.Stage)}
	}
	if c.JSON {
		return writeJSONLine(env.Stdout, struct {
			Stage           string `json:"stage"`
			Stack           string `json:"stack"`
			Region          string `json:"region"`
			URL             string `json:"url"`
			CustomDomainURL string `json:"custom_domain_url,omitempty"`
			WebSocketURL    string `json:"websocket_url,omitempty"`
		}{c.Stage, name, e.Region, url, st.Outputs[names.OutputCustomDomainURL], st.Outputs[names.OutputWebSocketURL]})
	}
	if domain := st.Outputs[names.OutputCustomDomainURL]; domain != "" {
		// The domain's URL first, then the execute-api URL, which keeps
		// working (and is the one to use until the domain's DNS answers).
		_, err = fmt.Fprintf(env.Stdout, "%s\n%s\n", domain, url)
	} else {
		_, err = fmt.Fprintln(env.Stdout, url)
	}
	if ws := st.Outputs[names.OutputWebSocketURL]; ws != "" && err == nil {
		// The WebSocket API's URL last, on a line of its own.
		_, err = fmt.Fprintln(env.Stdout, ws)
	}
	return err
}
