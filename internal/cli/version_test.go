package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/synth"
)

// TestVersionOf: a release archive's binary prints the version its
// -ldflags set; a binary of `go install .../cli/framework@v0.1.0` prints
// the module version recorded in it (without the "v"); a build from a
// checkout prints the development version.
func TestVersionOf(t *testing.T) {
	main := func(path, v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: path, Version: v}}
	}
	for _, c := range []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		want          string
	}{
		{"release archive", "0.1.0", main(synth.Module, "(devel)"), "0.1.0"},
		{"release archive, tagged checkout", "0.1.0", main(synth.Module, "v0.1.0+dirty"), "0.1.0"},
		{"go install @v0.1.0", devVersion, main(synth.Module, "v0.1.0"), "0.1.0"},
		{"go install @pseudo-version", devVersion, main(synth.Module, "v0.1.1-0.20261126053000-0123456789ab"), "0.1.1-0.20261126053000-0123456789ab"},
		{"checkout build", devVersion, main(synth.Module, "(devel)"), devVersion},
		{"dirty checkout build", devVersion, main(synth.Module, "v0.1.1-0.20261126053000-0123456789ab+dirty"), devVersion},
		{"another main module", devVersion, main("example.com/other", "v1.2.3"), devVersion},
		{"no build info", devVersion, nil, devVersion},
	} {
		if got := versionOf(c.ldflags, c.bi); got != c.want {
			t.Errorf("%s: versionOf(%q, %v) = %q, want %q", c.name, c.ldflags, c.bi, got, c.want)
		}
	}
}

// TestVersionFlagOfAReleaseBuild builds the CLI as .goreleaser.yaml does
// (-trimpath, the version in -ldflags) and runs `framework --version`.
func TestVersionFlagOfAReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	bin := filepath.Join(t.TempDir(), "framework")
	// This package's import path, wherever it lives (.goreleaser.yaml
	// names it in its -X flag).
	pkg := reflect.TypeOf(CLI{}).PkgPath()
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X "+pkg+".Version=9.8.7", "-o", bin, synth.Module+"/cli/framework")
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "9.8.7" {
		t.Errorf("framework --version printed %q, want 9.8.7", got)
	}
}
