package build

import (
	"context"
	"path/filepath"
	"runtime"
)

// Host builds the app in projectDir for this machine into the project's
// private cache directory, as the file name (".exe" is added on Windows),
// and returns the binary's path. `framework local` alternates two names so
// that a rebuild never writes over the binary of the process still serving.
// A compile failure returns a *CompileError carrying the compiler's output.
func Host(ctx context.Context, projectDir, name string) (string, error) {
	abs, err := projectDirAbs(projectDir)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir(abs, "local")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	unlock := lockOutput(bin)
	defer unlock()
	release, err := lockFile(bin + ".lock")
	if err != nil {
		return "", err
	}
	defer release()
	env := environ([]string{"GOOS", "GOARCH"})
	if err := goBuild(ctx, abs, "host", bin, env, "-buildvcs=false"); err != nil {
		return "", err
	}
	return bin, nil
}
