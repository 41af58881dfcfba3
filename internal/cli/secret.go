package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// SecretCmd groups the commands on the app's declared secrets and
// parameters.
type SecretCmd struct {
	Set SecretSetCmd `cmd:"" help:"Set the value of a declared secret (Secrets Manager) or parameter (SSM Parameter Store) of a stage."`
}

// SecretSetCmd sets the value of a declared secret or parameter: the
// value is read from standard input (not echoed on a terminal) or
// --value, and stored in the stage's deployed secret or parameter, found
// through the stack's outputs, or in the one `framework local
// --aws-endpoint` creates at an emulator.
type SecretSetCmd struct {
	Name        string `arg:"" help:"The declared secret's or parameter's name."`
	Stage       string `default:"${default_stage}" help:"Stage whose secret or parameter to set."`
	Value       string `help:"The value (it then shows in your shell's history and the process list: prefer standard input)."`
	AWSEndpoint string `name:"aws-endpoint" placeholder:"URL" help:"Set it in an AWS emulator (LocalStack, moto), where framework local --aws-endpoint keeps the app's resources, instead of the deployed stage."`
	JSON        bool   `name:"json" help:"Print one JSON object: name, kind, stage, physical_name, version."`
	AWSFlags
}

// Run reads the value and stores it.
func (c *SecretSetCmd) Run(g *Globals, env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	if c.Stage == "" {
		c.Stage = names.DefaultStage
	}
	m, err := build.Manifest(ctx, g.ProjectDir)
	if err != nil {
		return interruptedWhile(ctx, "building the app", "no value was stored", err)
	}
	d := m.Resource(c.Name)
	if d == nil || d.Kind != manifest.ResourceSecret && d.Kind != manifest.ResourceParameter {
		declared := localres.Declared(m, manifest.ResourceSecret, manifest.ResourceParameter)
		if len(declared) == 0 {
			return fmt.Errorf("the app %s declares no secret or parameter (%q is not one): declare it in the app first", m.App, c.Name)
		}
		slices.Sort(declared)
		return fmt.Errorf("the app %s declares no secret or parameter %q; its secrets and parameters are: %s", m.App, c.Name, strings.Join(declared, ", "))
	}
	value, err := c.readValue(env, d)
	if err != nil {
		return err
	}
	app := localres.AppName(g.ProjectDir, m)
	o := localres.Options{App: app, Stage: c.Stage, Endpoint: c.AWSEndpoint, Profile: c.Profile, Region: c.Region}
	var client *localres.Client
	physical := ""
	if c.AWSEndpoint != "" {
		r, err := localres.Resolve(ctx, &manifest.Manifest{App: m.App, Resources: []manifest.Resource{*d}}, o)
		if err != nil {
			return interrupted(ctx, err)
		}
		defer r.Close()
		client, physical = r.Client, r.Attrs[d.Name][manifest.AttrName]
	} else {
		if client, err = localres.NewClient(ctx, o); err != nil {
			return err
		}
		outputs, err := client.StackOutputs(ctx, app, c.Stage)
		if errors.Is(err, localres.ErrNotDeployed) {
			return &ExitError{Code: 2, Err: fmt.Errorf("stage %s is not deployed (%v): %s, or pass --aws-endpoint URL for an emulator", c.Stage, err, deployFirst(g.ProjectDir, c.Stage))}
		}
		if err != nil {
			return interrupted(ctx, err)
		}
		if physical = outputs[manifest.ResourceOutput(d.Name, manifest.AttrName)]; physical == "" {
			return &ExitError{Code: 2, Err: fmt.Errorf("stage %s was deployed before %s was declared: run `framework deploy --stage %s` first", c.Stage, d.Label(), c.Stage)}
		}
	}
	version := ""
	if d.Kind == manifest.ResourceSecret {
		var out struct{ VersionId string }
		err = client.Call(ctx, "secretsmanager", "PutSecretValue", map[string]any{"SecretId": physical, "SecretString": value}, &out)
		version = out.VersionId
	} else {
		var out struct{ Version int64 }
		err = client.Call(ctx, "ssm", "PutParameter", map[string]any{"Name": physical, "Value": value, "Overwrite": true}, &out)
		version = fmt.Sprint(out.Version)
	}
	if err != nil {
		return interrupted(ctx, fmt.Errorf("set %s (%s): %w", d.Label(), physical, err))
	}
	if c.JSON {
		b, err := json.MarshalIndent(map[string]any{"name": d.Name, "kind": d.Kind, "stage": c.Stage, "physical_name": physical, "version": version}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "Set %s of stage %s (%s), version %s.\n", d.Label(), c.Stage, physical, version)
	return err
}

// readValue returns --value, or standard input: read without echo from a
// terminal, otherwise in full less one trailing newline.
func (c *SecretSetCmd) readValue(env *Env, d *manifest.Resource) (string, error) {
	if c.Value != "" {
		return c.Value, nil
	}
	var v string
	if f, ok := env.Stdin.(*os.File); ok && env.StdinIsTerminal != nil && env.StdinIsTerminal() {
		fmt.Fprintf(env.Stderr, "Value of %s (not shown): ", d.Label())
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", fmt.Errorf("read the value: %w", err)
		}
		v = string(b)
	} else {
		b, err := io.ReadAll(io.LimitReader(env.Stdin, 64*1024+1))
		if err != nil {
			return "", fmt.Errorf("read the value from standard input: %w", err)
		}
		if len(b) > 64*1024 {
			return "", fmt.Errorf("the value on standard input is over 64 KiB, more than Secrets Manager holds")
		}
		v = strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	}
	if v == "" {
		return "", fmt.Errorf("no value for %s: give it on standard input (echo -n VALUE | framework secret set %s) or with --value", d.Label(), d.Name)
	}
	return v, nil
}
