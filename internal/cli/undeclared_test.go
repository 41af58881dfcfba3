package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"

	"github.com/framework-dev/framework/internal/perms"
	"github.com/framework-dev/framework/internal/synth"
	"github.com/framework-dev/framework/internal/testutil"
)

// sdkApp writes a module of files that uses the framework and the AWS SDK
// modules the framework requires, which build offline, and returns its
// directory.
func sdkApp(t *testing.T, files map[string]string) string {
	t.Helper()
	files = testutil.FrameworkModule(t, files)
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var req strings.Builder
	for _, r := range mf.Require {
		fmt.Fprintf(&req, "require %s %s\n", r.Mod.Path, r.Mod.Version)
	}
	files["go.mod"] = strings.Replace(files["go.mod"], "\ngo 1.25\n", "\ngo "+mf.Go.Version+"\n", 1) + "\n" + req.String()
	return testutil.WriteModule(t, files)
}

// listBucketsApp declares a bucket and calls s3.ListBuckets (line 19),
// which IAM authorizes as s3:ListAllMyBuckets on no bucket: the role is
// granted it on "*".
const listBucketsApp = `package main

import (
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/framework/resource"
)

func main() {
	app := framework.New("shop")
	files := resource.NewBucket(app, "files", resource.BucketSpec{})
	files.Allow(resource.Read)
	app.Route("/buckets", func(r *framework.Request) (int, error) {
		cfg, err := config.LoadDefaultConfig(r.Context())
		if err != nil {
			return 0, err
		}
		out, err := s3.NewFromConfig(cfg).ListBuckets(r.Context(), &s3.ListBucketsInput{})
		if err != nil {
			return 0, err
		}
		return len(out.Buckets), nil
	})
	app.Run()
}
`

// TestGenPolicyWarnsOfUndeclaredGrants: plain gen-policy says on stderr
// what each role gets, and warns of s3.ListBuckets, granted
// s3:ListAllMyBuckets on "*", naming its line and what to do.
func TestGenPolicyWarnsOfUndeclaredGrants(t *testing.T) {
	offlineGo(t)
	dir := sdkApp(t, map[string]string{"main.go": listBucketsApp})
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"-C", dir, "gen-policy"}, &Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	if !json.Valid(stdout.Bytes()) {
		t.Errorf("stdout is not the policy document:\n%s", stdout.String())
	}
	for _, line := range []string{
		"What each function's role gets (`framework gen-policy --explain` says why):",
		"function api (http): routes ",
		"  Allow s3:GetBucket*, s3:GetObject*, s3:List* on bucket \"files\", objects of bucket \"files\"",
		"  Allow s3:ListAllMyBuckets on *",
		`Warning: main.go:19: s3.ListBuckets is granted s3:ListAllMyBuckets on "*" to function api (targets no bucket: the account, or another kind of resource); no declaration narrows it; to grant less, write the policy yourself`,
	} {
		if !strings.Contains(stderr.String(), line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
		}
	}
	if strings.Count(stderr.String(), "Warning: ") != 1 {
		t.Errorf("want one warning, for the one call on \"*\":\n%s", stderr.String())
	}
}

// TestSynthWarnsOfUndeclaredGrants: synth prints one warning line per
// call granted on "*", on stderr, and lists them in --json.
func TestSynthWarnsOfUndeclaredGrants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	grant := perms.UndeclaredGrant{Pos: "main.go:20", Call: "s3.ListBuckets", Action: "s3:ListAllMyBuckets", Resource: "*",
		Functions: []string{"api"}, Why: "targets no bucket", Declare: "no declaration narrows it"}
	env := &Env{Synth: func(_ context.Context, o synth.Options) (*synth.Result, error) {
		return &synth.Result{App: "shop", Stage: o.Stage, StackName: "shop-" + o.Stage, AssemblyDir: dir,
			TemplatePath: filepath.Join(dir, "shop-"+o.Stage+".template.json"), ResourceCount: 9, Undeclared: []perms.UndeclaredGrant{grant}}, nil
	}}
	var stdout, stderr bytes.Buffer
	env.Stdout, env.Stderr = &stdout, &stderr
	if code := MainEnv([]string{"-C", dir, "synth"}, env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := `Warning: main.go:20: s3.ListBuckets is granted s3:ListAllMyBuckets on "*" to function api (targets no bucket); no declaration narrows it` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	stdout.Reset()
	stderr.Reset()
	if code := MainEnv([]string{"-C", dir, "synth", "--json"}, env); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr.String())
	}
	var res synthResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Undeclared) != 1 || res.Undeclared[0].Pos != "main.go:20" || res.Undeclared[0].Action != "s3:ListAllMyBuckets" || res.Undeclared[0].Declare == "" {
		t.Errorf("--json undeclared %+v, want the grant", res.Undeclared)
	}
	if stderr.Len() != 0 {
		t.Errorf("--json wrote to stderr: %q", stderr.String())
	}
}
