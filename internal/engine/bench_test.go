package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/testutil"
)

// The synth benchmarks run each synthesis in a process of its own, as
// `framework synth` does, so that every figure includes starting Node.js
// and loading the CDK: the floor is a process that synthesizes an empty
// stack and nothing else. This test binary is that process when
// benchHelperEnv is set.
const benchHelperEnv = "FRAMEWORK_SYNTH_BENCH_HELPER"

func init() {
	spec := os.Getenv(benchHelperEnv)
	if spec == "" {
		return
	}
	os.Exit(benchHelper(spec))
}

// benchHelper synthesizes "empty:<outdir>" (an empty stack) or
// "<projectdir>:<outdir>" (Synth) and returns the exit status.
func benchHelper(spec string) int {
	var kind, out string
	for i := len(spec) - 1; i >= 0; i-- {
		if spec[i] == '|' {
			kind, out = spec[:i], spec[i+1:]
			break
		}
	}
	defer Close()
	if kind == "empty" {
		jsiiMu.Lock()
		if err := startJSII(context.Background(), false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		jsiiMu.Unlock()
		app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out), AnalyticsReporting: jsii.Bool(false)})
		stack := awscdk.NewStack(app, jsii.String("empty"), nil)
		awscdk.NewCfnWaitConditionHandle(stack, jsii.String("Nothing"), nil)
		app.Synth(nil)
		return 0
	}
	if _, err := Synth(context.Background(), Options{ProjectDir: kind, OutDir: out}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// floor is the mean wall time of the empty-stack synth measured in this run.
var floor time.Duration

// runHelper runs one synthesis process and returns its wall time and peak
// resident memory (the largest of the Go process and Node.js, which it waits for).
func runHelper(b *testing.B, kind string, env ...string) (time.Duration, int64) {
	b.Helper()
	out := b.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchHelperEnv+"="+kind+"|"+out, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20")
	cmd.Env = append(cmd.Env, env...)
	start := time.Now()
	outb, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("synthesis of %s: %v\n%s", kind, err, outb)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) * 1024
	}
	return d, rss
}

// BenchmarkSynth measures `framework synth` (a new process, nothing reused,
// Go build cache warm) for apps of 1, 50, 200 and 1,000 routes against the
// empty-stack floor of the same run, then the 1-route app after a one-line
// edit of its source before each synth (edit=1: both builds compile and
// link it again, the policy scan type-checks it again). x-floor is the
// wall time over the floor.
func BenchmarkSynth(b *testing.B) {
	b.Setenv(build.CacheDirEnv, b.TempDir())
	apps := map[int]string{}
	for _, n := range []int{1, 50, 200, 1000} {
		dir := b.TempDir()
		writeModule(b, dir, map[string]string{"main.go": manyRoutesApp(n)})
		writeConfig(b, dir, `{"version": "1.0", "app_name": "many"}`)
		apps[n] = dir
		runHelper(b, dir) // warm the Go build cache and the binaries
	}
	bench := func(name, kind string, isFloor bool, before func(b *testing.B, i int), env ...string) {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			var peak int64
			for i := 0; i < b.N; i++ {
				if before != nil {
					before(b, i)
				}
				d, rss := runHelper(b, kind, env...)
				total += d
				peak = max(peak, rss)
			}
			mean := total / time.Duration(b.N)
			if isFloor {
				floor = mean
			} else if floor > 0 {
				b.ReportMetric(float64(mean)/float64(floor), "x-floor")
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		})
	}
	bench("empty", "empty", true, nil)
	// For reference: the same empty stack with CDK's default template lint,
	// which synth turns off (see checkNode).
	bench("empty-cdk-lint", "empty", false, nil, "CDK_VALIDATION=true")
	for _, n := range []int{1, 50, 200, 1000} {
		bench(fmt.Sprintf("routes=%d", n), apps[n], false, nil)
	}
	bench("edit=1", apps[1], false, func(b *testing.B, i int) {
		line := fmt.Sprintf("(any, error) { return \"edit %d at %d\", nil }", i, time.Now().UnixNano()) // never in Go's build cache
		src := strings.Replace(manyRoutesApp(1), "(any, error) { return nil, nil }", line, 1)
		if err := os.WriteFile(filepath.Join(apps[1], "main.go"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSynthReused measures a re-synth with nothing changed (build and
// package still run, the assembly is kept), in process.
func BenchmarkSynthReused(b *testing.B) {
	b.Setenv(build.CacheDirEnv, b.TempDir())
	dir := filepath.Join(testutil.RepoRoot(b), "examples", "kitchensink")
	out := b.TempDir()
	if _, err := Synth(context.Background(), Options{ProjectDir: dir, OutDir: out}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Synth(context.Background(), Options{ProjectDir: dir, OutDir: out})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Reused {
			b.Fatal("assembly not reused")
		}
	}
}
