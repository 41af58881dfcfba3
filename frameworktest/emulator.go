package frameworktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/config"
	"github.com/framework-dev/framework/internal/declspec"
	"github.com/framework-dev/framework/internal/localres"
	"github.com/framework-dev/framework/internal/manifest"
	"github.com/framework-dev/framework/internal/names"
)

// EndpointEnv is the environment variable UseEmulator reads: the URL of
// the AWS emulator (moto, LocalStack) a test's declared resources are
// created at, for example http://127.0.0.1:5000.
const EndpointEnv = "FRAMEWORK_TEST_AWS_ENDPOINT"

// Emulator is where UseEmulatorAt created an app's declared resources.
type Emulator struct {
	// Endpoint is the emulator's URL.
	Endpoint string
	// Stage is the stage the resources' names were made for: test-
	// and a random part, so that tests and `framework local` sessions
	// sharing the emulator do not share data.
	Stage string

	m   *manifest.Manifest
	res *localres.Resources
}

// UseEmulator is UseEmulatorAt at the emulator EndpointEnv names; without
// it the test is skipped, with a line saying what to set.
func UseEmulator(t testing.TB, app *framework.App) *Emulator {
	t.Helper()
	endpoint := os.Getenv(EndpointEnv)
	if endpoint == "" {
		t.Skipf("%s is not set: set it to an AWS emulator's URL to run this test against the app's declared resources, "+
			"for example start moto (`python3 -m moto.server -p 5000`) and run `%s=http://127.0.0.1:5000 go test ./...`", EndpointEnv, EndpointEnv)
	}
	return UseEmulatorAt(t, app, endpoint)
}

// UseEmulatorAt does for a test what `framework local --aws-endpoint
// endpoint` does for the app: it creates the resources app declares
// (framework/resource) at the emulator, with the same defaults, and points
// the app there for the rest of the test: the FRAMEWORK_RES_* variables
// its resource handles read, AWS_ENDPOINT_URL for its AWS SDK calls, and
// placeholder credentials and region (AWS_REGION is kept when set) so that
// neither the developer's AWS configuration nor instance metadata plays a
// part. When the test ends, the resources are deleted and the environment
// restored. Because it sets the environment, the test must not be
// parallel (t.Parallel). The project's .framework/config.json (found from
// the test's directory up to its module's root), when there is one, is
// read for its dev stage, as framework local reads it: a queue's default
// visibility timeout follows the stage's lambda_timeout. A declaration
// error or one the stage refuses (with the message framework synth gives),
// an unreachable emulator or a resource the emulator refuses fails the
// test.
func UseEmulatorAt(t testing.TB, app *framework.App, endpoint string) *Emulator {
	t.Helper()
	if err := localres.CheckEndpoint(endpoint); err != nil {
		t.Fatalf("frameworktest: %v", err)
	}
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatalf("frameworktest: the app's declarations: %v", err)
	}
	// The project's dev stage, as framework local serves it: its
	// configuration gives the queues' default visibility timeouts, and
	// what synth would refuse is refused here, with the same message.
	stage, err := projectStage()
	if err != nil {
		t.Fatalf("frameworktest: %v", err)
	}
	if err := declspec.Check(m, stage); err != nil {
		t.Fatalf("frameworktest: %v\n(framework local, synth and deploy refuse stage %s for the same reason)", err, names.DefaultStage)
	}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = "us-east-1"
	}
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": endpoint, "AWS_REGION": region, "AWS_DEFAULT_REGION": "",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
	} {
		t.Setenv(k, v)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	e := &Emulator{Endpoint: endpoint, Stage: "test-" + hex.EncodeToString(b), m: m}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := localres.Resolve(ctx, m, localres.Options{App: m.App, Stage: e.Stage, Endpoint: endpoint, Region: region, Config: stage})
	if res != nil {
		e.res = res
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := res.Remove(ctx, m); err != nil {
				t.Errorf("frameworktest: %v", err)
			}
			res.Close()
		})
	}
	if err != nil {
		t.Fatalf("frameworktest: create the declared resources of app %s at %s (is the emulator running there?): %v", m.App, endpoint, err)
	}
	for _, kv := range res.Env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
	return e
}

// projectStage is the dev stage of the project the test runs in: the
// first directory from the working directory up holding
// .framework/config.json, up to the module's root (the directory holding
// go.mod); the zero Stage when there is none.
func projectStage() (declspec.Stage, error) {
	dir, err := os.Getwd()
	if err != nil {
		return declspec.Stage{}, err
	}
	for {
		if _, err := os.Lstat(config.FilePath(dir)); err == nil {
			return declspec.Load(dir, names.DefaultStage)
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return declspec.Stage{}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return declspec.Stage{}, nil
		}
		dir = parent
	}
}

// Name returns the physical name of the declared resource name at the
// emulator (the table's, queue's, bucket's... name), or "" when the app
// declares none by that name.
func (e *Emulator) Name(name string) string {
	return e.res.Attrs[name][manifest.AttrName]
}

// SetSecret sets the value of the declared secret or parameter name at
// the emulator, as `framework secret set NAME --aws-endpoint URL` does.
func (e *Emulator) SetSecret(t testing.TB, name, value string) {
	t.Helper()
	d := e.m.Resource(name)
	if d == nil || d.Kind != manifest.ResourceSecret && d.Kind != manifest.ResourceParameter {
		t.Fatalf("frameworktest: SetSecret(%q): the app %s declares no secret or parameter by that name", name, e.m.App)
	}
	physical := e.Name(name)
	var err error
	if d.Kind == manifest.ResourceSecret {
		err = e.res.Client.Call(context.Background(), "secretsmanager", "PutSecretValue", map[string]any{"SecretId": physical, "SecretString": value}, nil)
	} else {
		err = e.res.Client.Call(context.Background(), "ssm", "PutParameter", map[string]any{"Name": physical, "Value": value, "Overwrite": true}, nil)
	}
	if err != nil {
		t.Fatalf("frameworktest: set %s (%s) at %s: %v", d.Label(), physical, e.Endpoint, fmt.Sprint(err))
	}
}
