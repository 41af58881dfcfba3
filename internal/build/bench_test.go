package build

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/framework-dev/framework/internal/testutil"
)

// BenchmarkPackageHello measures Package of examples/hello with Go's build
// cache warm: what an unchanged re-synth or re-deploy pays.
func BenchmarkPackageHello(b *testing.B) {
	benchmarkPackage(b, filepath.Join(testutil.RepoRoot(b), "examples", "hello"))
}

// BenchmarkManifestHello measures Manifest of examples/hello with Go's build
// cache warm.
func BenchmarkManifestHello(b *testing.B) {
	dir := filepath.Join(testutil.RepoRoot(b), "examples", "hello")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("examples/hello: %v", err)
	}
	bld := &Builder{CacheDir: b.TempDir()}
	ctx := context.Background()
	if _, err := bld.Manifest(ctx, dir); err != nil { // warm the caches
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := bld.Manifest(ctx, dir); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkPackage(b *testing.B, dir string) {
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("%s: %v", dir, err)
	}
	bld := &Builder{CacheDir: b.TempDir()}
	ctx := context.Background()
	zipPath := filepath.Join(b.TempDir(), "function.zip")
	res, err := bld.Package(ctx, dir, "arm64", zipPath) // warm the caches
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := bld.Package(ctx, dir, "arm64", zipPath); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Size), "zip-bytes")
	b.ReportMetric(float64(res.BinarySize), "binary-bytes")
}
