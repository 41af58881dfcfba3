package constructs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/openapi"
	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/policy"
	"github.com/framework-dev/framework/internal/policy/scan"
)

// Prepared are the construct's inputs, checked and built: what Prepare
// makes of AppProps before any CDK call. NewPreparedApp adds the construct
// from them. Build them with Prepare.
type Prepared struct {
	// Manifest is the app's route table.
	Manifest *manifest.Manifest
	// Stage is the stage name.
	Stage string
	// Config is the stage's configuration with every default filled in.
	// From a project directory without AppProps.Config, it is the
	// project's .framework/config.json resolved for Stage, tags included.
	Config *Config
	// Policy is the execution role's own policy. It is nil when the role is
	// imported (Config.RoleID), when a prebuilt app has no AppProps.Policy
	// (the role then has the basic execution policy only), and, until
	// ResolvePolicy, when PrepareOptions.DeferPolicy deferred it.
	Policy *PolicyDocument
	// PolicyFromSource is true when Policy is generated from the app's AWS
	// SDK calls: it is then a function of the source, which PackageSHA256
	// covers (the package's build ID hashes every compiled file).
	PolicyFromSource bool
	// PackageZip is the Lambda package: a zip holding the app compiled for
	// Linux as "bootstrap".
	PackageZip string
	// PackageSHA256 is the hex SHA-256 of PackageZip, which is also the
	// function code's asset hash.
	PackageSHA256 string
	// Name is the REST API's name and the OpenAPI title.
	Name string
	// Unscoped are the actions of a policy generated from the source that
	// keep Resource "*" although the app declares resources of their
	// service (policy.Narrow), saying why.
	Unscoped []policy.Unscoped

	// Calls are the AWS calls found in the source once scanned
	// (PolicyFromSource), each attributed to the functions reaching it;
	// Perms is computed from them.
	Calls []policy.Call
	// Perms are each function's policy (perms.Compute): its declared
	// accesses, its trigger's needs, the calls of the code it reaches (or
	// the hand-written Policy), logging and X-Ray. Each function's role
	// holds its own. Computed by NewPreparedApp when nil.
	Perms *perms.Policies

	// dir and progress serve a deferred policy generation.
	dir      string
	progress io.Writer
	// pending is set while a policy from the source is deferred.
	pending bool
	// checked holds what NewPreparedApp derives from the manifest.
	checked *derived
}

// derived is what the construct derives from the route manifest, computed
// (and so checked) before any CDK call.
type derived struct {
	body func(integrationURI string, authorizerURIs map[string]string) (map[string]any, error)
	// streamURI is the streaming invocation URI body gives the routes that
	// stream (stream.go).
	streamURI string
	authz     []authorizerTarget
	apiKey    bool
}

// PrepareOptions adjust Prepare for a caller that keeps a cache of its
// own, as the framework's CLI does. The zero value (or nil) is what NewApp
// uses.
type PrepareOptions struct {
	// PackageZip is the file the Lambda package built from
	// AppProps.ProjectDir is written to. Empty means a file in the user's
	// cache directory, one per project and architecture, which outlives the
	// process: CDK copies it into the cloud assembly when the app
	// synthesizes.
	PackageZip string
	// DeferPolicy leaves a policy generated from the source
	// (PolicyFromSource) to ResolvePolicy, for a caller that may not need
	// it: generating it type-checks the app. Otherwise it is generated
	// while the app builds.
	DeferPolicy bool
	// Timed, when not nil, receives how long each build step took
	// ("go build for the host (route manifest)", "go build for linux/arm64
	// (Lambda package)", "policy from the source"); the steps run at the
	// same time, so the durations overlap.
	Timed func(step string, d time.Duration)
}

// timed runs f and reports its duration to opts.Timed.
func (opts *PrepareOptions) timed(step string, f func()) {
	if opts == nil || opts.Timed == nil {
		f()
		return
	}
	start := time.Now()
	f()
	opts.Timed(step, time.Since(start))
}

// Prepare turns props into the construct's inputs: it reads the
// configuration, builds the route manifest, the Lambda package and the
// policy of a project directory at the same time (or takes a prebuilt
// manifest and package), and checks that API Gateway will accept the
// routes, so that every mistake surfaces before CDK starts. NewApp calls
// it; so does `framework synth`, which then names the stack after the
// manifest's app.
func Prepare(ctx context.Context, props *AppProps, opts *PrepareOptions) (*Prepared, error) {
	if props == nil {
		return nil, errors.New("constructs.NewApp: no props: set ProjectDir, or Manifest and PackageZip")
	}
	if opts == nil {
		opts = &PrepareOptions{}
	}
	p := &Prepared{Stage: props.Stage}
	if p.Stage == "" {
		p.Stage = DefaultStage
	}
	if err := config.CheckStageName(p.Stage); err != nil {
		return nil, fmt.Errorf("stage %q: %w", p.Stage, err)
	}
	cfg := props.Config
	switch {
	case props.ProjectDir != "" && (props.Manifest != nil || props.PackageZip != ""):
		return nil, errors.New("constructs.NewApp: set either ProjectDir or Manifest and PackageZip, not both")
	case props.ProjectDir != "":
		if cfg == nil {
			c, err := LoadConfig(props.ProjectDir, p.Stage)
			if err != nil {
				return nil, err
			}
			cfg = c
		}
	case props.Manifest == nil || props.PackageZip == "":
		return nil, errors.New("constructs.NewApp: set ProjectDir, or both Manifest and PackageZip")
	}
	rc, err := cfg.resolved(p.Stage)
	if err != nil {
		return nil, fmt.Errorf("stage %q: %w", p.Stage, err)
	}
	p.Config = rc

	if props.ProjectDir != "" {
		if err := p.buildProject(ctx, props, opts); err != nil {
			return nil, err
		}
	} else {
		p.Manifest = props.Manifest
		sum, err := fileSHA256(props.PackageZip)
		if err != nil {
			return nil, fmt.Errorf("Lambda package: %w", err)
		}
		p.PackageZip, p.PackageSHA256 = props.PackageZip, sum
		if rc.RoleID == "" {
			p.Policy = props.Policy
		}
	}
	if p.Manifest.App == "" {
		return nil, errors.New("the route manifest has no app name")
	}
	p.Name = props.Name
	if p.Name == "" {
		p.Name = names.StackName(p.Manifest.App, p.Stage)
	}
	if p.checked, err = p.derive(); err != nil {
		return nil, err
	}
	return p, nil
}

// buildProject builds the route manifest, the Lambda package and the
// policy of the project in props.ProjectDir, at the same time.
func (p *Prepared) buildProject(ctx context.Context, props *AppProps, opts *PrepareOptions) error {
	dir, arch := props.ProjectDir, p.Config.Architecture
	zip := opts.PackageZip
	if zip == "" {
		zipDir, err := packageDir(dir, arch)
		if err != nil {
			return err
		}
		zip = filepath.Join(zipDir, "function.zip")
	}
	progress(props.Progress, "%s", build.StartLine("the app and its Lambda package for linux/"+arch))
	var wg sync.WaitGroup
	var mErr, pErr, polErr error
	var pkg *build.PackageResult
	wg.Go(func() {
		opts.timed("go build for the host (route manifest)", func() { p.Manifest, mErr = build.Manifest(ctx, dir) })
	})
	wg.Go(func() {
		opts.timed("go build for linux/"+arch+" (Lambda package)", func() { pkg, pErr = build.Package(ctx, dir, arch, zip) })
	})
	switch {
	case p.Config.RoleID != "": // an imported role: no policy of ours
	case props.Policy != nil:
		p.Policy = props.Policy
	case p.Config.NoAutogenPolicy:
		wg.Go(func() {
			var doc *policy.Document
			doc, polErr = policy.Load(filepath.Join(dir, names.PolicyFile))
			p.Policy = doc
		})
	default:
		p.PolicyFromSource, p.dir, p.progress = true, dir, props.Progress
		if opts.DeferPolicy {
			p.pending = true
		} else {
			wg.Go(func() { opts.timed("IAM policy from the source", func() { polErr = p.generatePolicy() }) })
		}
	}
	wg.Wait()
	// The compiler's message first: the same error fails every step.
	for _, err := range []error{mErr, pErr, polErr} {
		if err != nil {
			return err
		}
	}
	p.PackageZip, p.PackageSHA256 = pkg.ZipPath, pkg.SHA256
	p.narrow()
	return nil
}

// ResolvePolicy generates the policy from the app's source when Prepare
// deferred it (PrepareOptions.DeferPolicy), and does nothing otherwise.
func (p *Prepared) ResolvePolicy() error {
	if !p.pending {
		return nil
	}
	progress(p.progress, "Generating the IAM policy from the app's AWS SDK calls...")
	if err := p.generatePolicy(); err != nil {
		return err
	}
	p.pending = false
	p.narrow()
	return nil
}

func (p *Prepared) generatePolicy() error {
	rep, err := scan.Scan(p.dir)
	if err != nil {
		return err
	}
	p.Calls, p.Policy = rep.Calls, policy.FromCalls(rep.Calls)
	return nil
}

// narrow grants the generated policy's calls on the app's declared
// resources only where they target them (policy.Narrow), once both the
// calls and the manifest are known.
func (p *Prepared) narrow() {
	if p.Calls == nil || p.Manifest == nil || len(p.Manifest.Resources) == 0 {
		return
	}
	p.Policy, p.Unscoped = policy.Narrow(p.Calls, p.Manifest)
}

// computePerms computes each function's policy (Perms) once the
// manifest and the scan's calls are known: a call beyond a declaration is
// an error naming the call site and the Allow to add (perms.CeilingError).
func (p *Prepared) computePerms() error {
	if p.Perms != nil {
		return nil
	}
	in := perms.Input{Manifest: p.Manifest, XRay: p.Config != nil && p.Config.XRay}
	switch {
	case p.Config != nil && p.Config.RoleID != "":
		// An imported role: the declarations still say which resources
		// each function uses.
	case p.PolicyFromSource:
		in.Calls = p.Calls
	default:
		in.HandWritten = p.Policy
	}
	pp, err := perms.Compute(in)
	if err != nil {
		return fmt.Errorf("the app's code goes beyond what it declares:\n%w", err)
	}
	p.Perms = pp
	return nil
}

// derive computes what the construct needs from the manifest, generating
// the API's body once with a placeholder URI so that route errors surface
// before CDK starts.
func (p *Prepared) derive() (*derived, error) {
	if p.Manifest == nil || p.Manifest.App == "" || p.Config == nil || p.PackageZip == "" {
		return nil, errors.New("constructs: the prepared inputs lack a route manifest, an app name, a configuration or a package: build them with constructs.Prepare")
	}
	m, title := p.Manifest, p.Name
	d := &derived{}
	d.body = func(uri string, authURIs map[string]string) (map[string]any, error) {
		return openapi.Build(m, openapi.Options{Title: title, IntegrationURI: uri, AuthorizerURIs: authURIs,
			StreamingIntegrationURI: d.streamURI, StreamingTimeoutMillis: streamingTimeoutMillis(p.Config)})
	}
	const check = "arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:000000000000:function:check/invocations"
	d.streamURI = checkStreamURI
	checkAuth := map[string]string{}
	for _, f := range m.Functions {
		if f.Kind == manifest.KindAuthorizer {
			checkAuth[f.Name] = check
		}
	}
	if t := p.Config.APIType; t == "" || t == APIRest {
		if _, err := d.body(check, checkAuth); err != nil {
			return nil, fmt.Errorf("REST API of %s: %w", m.App, err)
		}
	} else if err := manifest.Validate(m); err != nil { // the REST API's body would check it
		return nil, fmt.Errorf("routes of %s: %w", m.App, err)
	}
	var err error
	if d.authz, err = customAuthorizers(m); err != nil {
		return nil, err
	}
	for _, r := range m.Routes {
		d.apiKey = d.apiKey || r.APIKeyRequired
	}
	// What framework local and invoke --local refuse for this stage too.
	if err := declspec.Check(m, declaredStage(p.Config)); err != nil {
		return nil, err
	}
	if err := checkFunctions(m, p.Config); err != nil {
		return nil, err
	}
	return d, nil
}

// packageDir returns the directory where the construct keeps the Lambda
// package of the project in dir: in the user's cache directory, one per
// project and architecture, so the zip outlives the build (CDK copies it
// into the cloud assembly when the app synthesizes).
func packageDir(dir, arch string) (string, error) {
	return build.CacheDir(dir, filepath.Join("package", arch))
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
