package runtimeapi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/framework-dev/framework/internal/procgroup"
)

// BuildHostBootstrap builds the app in dir for the host the way the Lambda
// package is built (CGO off, -trimpath, -tags lambda.norpc, no VCS stamp)
// into outDir/bootstrap and returns its path: the function a test then runs
// against the local Runtime API.
func BuildHostBootstrap(ctx context.Context, dir, outDir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is needed to build the function: %w", err)
	}
	bin := filepath.Join(outDir, "bootstrap")
	cmd := exec.CommandContext(ctx, goBin, "build", "-trimpath", "-tags=lambda.norpc", "-buildvcs=false", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	procgroup.Own(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of %s: %w\n%s", dir, err, out)
	}
	return bin, nil
}
