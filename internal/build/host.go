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
	return new(Builder).Host(ctx, projectDir, name)
}

// Host is the package-level Host with the Builder's settings.
func (b *Builder) Host(ctx context.Context, projectDir, name string) (string, error) {
	_, bin, release, err := b.hostBuild(ctx, projectDir, "local", name, nil)
	if err != nil {
		return "", err
	}
	release()
	return bin, nil
}

// CacheDir returns (creating it) the directory private to the project in
// projectDir and to kind (for example "package/arm64") under the framework's
// build cache: $FRAMEWORK_CACHE_DIR/build, else <user cache dir>/framework/build.
func CacheDir(projectDir, kind string) (string, error) {
	return new(Builder).ProjectCacheDir(projectDir, kind)
}

// ProjectCacheDir is the package-level CacheDir under the Builder's cache
// directory.
func (b *Builder) ProjectCacheDir(projectDir, kind string) (string, error) {
	abs, err := projectDirAbs(projectDir)
	if err != nil {
		return "", err
	}
	return b.cacheDir(abs, kind)
}

// hostBuild builds the app in projectDir for this machine as
// <cache>/<kind>/<name> and returns the project's absolute path, the binary
// and a function releasing the locks it holds on the binary: another
// framework command (say `local` while `synth` runs) may build and run the
// same binary, so the caller keeps them while it runs the binary.
//
// extra are more go build flags (see manifestFlags).
func (b *Builder) hostBuild(ctx context.Context, projectDir, kind, name string, extra []string) (abs, bin string, release func(), err error) {
	if abs, err = projectDirAbs(projectDir); err != nil {
		return "", "", nil, err
	}
	dir, err := b.cacheDir(abs, kind)
	if err != nil {
		return "", "", nil, err
	}
	bin = filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	unlock := lockOutput(bin)
	unlockFile, err := LockFile(bin + ".lock")
	if err != nil {
		unlock()
		return "", "", nil, err
	}
	release = func() { unlockFile(); unlock() }
	// GOOS and GOARCH are dropped so that a user who exports them for
	// cross-compiling still gets a binary this machine can run.
	env := b.environWith([]string{"GOOS", "GOARCH"})
	// -trimpath as the CLI itself is built (make build, make install, go
	// install): Go's build cache keys packages by it, so on a fresh machine
	// the standard library and the modules the CLI shares with the app
	// (about 210 packages for examples/hello) come from the cache instead
	// of being compiled a second time. Stack traces name files by module
	// path (example.com/shop/main.go:12) instead of absolute path.
	if err := b.goBuild(ctx, abs, "host", bin, env, append([]string{"-trimpath", "-buildvcs=false"}, extra...)...); err != nil {
		release()
		return "", "", nil, err
	}
	return abs, bin, release, nil
}
