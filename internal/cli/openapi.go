package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/openapi"
)

// OpenAPICmd writes the OpenAPI 3.0 document of the app: its routes, the
// schemas of its typed handlers, error answers and security schemes,
// without API Gateway's extensions.
type OpenAPICmd struct {
	Stage string `default:"${default_stage}" help:"Stage whose front door the document describes: behind a REST API, its API Gateway stage name is the server path (/<stage>); behind an HTTP API or a function URL, the path is /."`
	Out   string `name:"out" short:"o" placeholder:"FILE" help:"Write the document to FILE instead of stdout." type:"path"`
	JSON  bool   `name:"json" help:"With --out, print the result as one JSON object instead of text."`
}

// openapiResult is the --json output.
type openapiResult struct {
	File       string `json:"file"`
	Paths      int    `json:"paths"`
	Operations int    `json:"operations"`
}

// Run builds the app for the host to read its manifest, generates the
// document and writes it. The first Ctrl-C (SIGINT) or SIGTERM stops it.
func (c *OpenAPICmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	server := "/" + c.Stage
	var door config.FrontDoor // the REST API without a configuration
	cfg, err := config.Load(g.ProjectDir)
	switch {
	case err == nil:
		// A typo of a declared stage (webb for web) is refused, as local
		// and deploy refuse it, rather than documented with the defaults.
		if err := cfg.CheckStageTypo(c.Stage); err != nil {
			return err
		}
		st, err := cfg.Stage(c.Stage)
		if err != nil {
			return err
		}
		door = st.FrontDoor
		server = serverPath(st)
	case errors.Is(err, fs.ErrNotExist):
		if err := config.CheckStageName(c.Stage); err != nil {
			return fmt.Errorf("stage %q: %w", c.Stage, err)
		}
	default:
		return err
	}
	// The document may be stdout: the progress line goes to stderr.
	fmt.Fprintln(env.Stderr, build.StartLine("the app"))
	m, err := build.Manifest(ctx, g.ProjectDir)
	if err != nil {
		return interruptedWhile(ctx, "building the app", "no document was written", err)
	}
	// What framework synth and framework local refuse for this stage's
	// front door is refused here too, with their message: a document of a
	// stage that does not deploy describes no API.
	if err := door.Check(m); err != nil {
		return err
	}
	doc, err := openapi.Document(m, openapi.DocOptions{ServerURL: server})
	if err != nil {
		return err
	}
	data, err := openapi.Marshal(doc)
	if err != nil {
		return err
	}
	if c.Out == "" {
		_, err = env.Stdout.Write(data)
		return err
	}
	if err := writeFileAtomic(c.Out, data); err != nil {
		return err
	}
	res := openapiResult{File: c.Out, Paths: len(doc["paths"].(map[string]any))}
	for _, item := range doc["paths"].(map[string]any) {
		res.Operations += len(item.(map[string]any))
	}
	if c.JSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "Wrote %s: OpenAPI %s, %d paths, %d operations.\n", res.File, openapi.DocumentVersion, res.Paths, res.Operations)
	return err
}

// serverPath is the base path of stage st's URLs: /<api_gateway_stage>
// behind a REST API, / behind an HTTP API (its $default stage) or a
// function URL, whose URLs have no stage segment.
func serverPath(st *config.Stage) string {
	if st.FrontDoor.Type() == config.APIRest {
		return "/" + st.APIGatewayStage
	}
	return "/"
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so that a reader never sees half a document.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
