// Package build compiles a user's app: for the host, to read its route
// manifest, and for Linux, to package it as the Lambda function's
// deterministic zip (same source, same bytes, same hash).
package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/procgroup"
	"github.com/framework-dev/framework/internal/scratch"
)

// Builder builds apps. The zero Builder is ready to use: every field has a
// default, given in its comment. The package-level Manifest, Package, Host
// and CacheDir use the zero Builder; tests and callers that need another
// cache, environment or time limit set them per Builder, so that builds with
// different settings can run at the same time.
type Builder struct {
	// CacheDir is the directory where built binaries are kept between calls
	// (one subdirectory per project, EntryDir); empty means the "build"
	// subdirectory of CacheRoot: $FRAMEWORK_CACHE_DIR/build, else
	// <user cache dir>/framework/build. Go's own build cache is not affected.
	CacheDir string
	// Environ is the environment the go command and the app run in, and
	// where the go command is looked up (PATH); nil means os.Environ().
	Environ []string
	// BuildTimeout bounds one `go build` of the app; 0 means 10 minutes. A
	// cold build that downloads nothing finishes in well under a minute; the
	// limit only stops a hang.
	BuildTimeout time.Duration
	// ManifestTimeout bounds the run of the app in manifest mode, which
	// prints its route table and exits at once; 0 means 30 seconds.
	ManifestTimeout time.Duration
}

// buildTimeout returns BuildTimeout or its default.
func (b *Builder) buildTimeout() time.Duration {
	if b.BuildTimeout > 0 {
		return b.BuildTimeout
	}
	return 10 * time.Minute
}

// manifestTimeout returns ManifestTimeout or its default.
func (b *Builder) manifestTimeout() time.Duration {
	if b.ManifestTimeout > 0 {
		return b.ManifestTimeout
	}
	return 30 * time.Second
}

// environ returns the Builder's environment (os.Environ() when Environ is nil).
func (b *Builder) environ() []string {
	if b.Environ == nil {
		return os.Environ()
	}
	return b.Environ
}

// getenv returns the value of key in the Builder's environment: the last
// one when the key appears more than once, as exec.Cmd does.
func (b *Builder) getenv(key string) string {
	if b.Environ == nil {
		return os.Getenv(key)
	}
	for _, kv := range slices.Backward(b.Environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// CompileError is a failed `go build` of the app; Output is the compiler's
// output, file names relative to Dir.
type CompileError struct {
	// Dir is the project directory that was built.
	Dir string
	// Target names the build: "host" or "linux/arm64" and so on.
	Target string
	// Output is what the go command printed.
	Output string
	// Err is the go command's exit error.
	Err error
}

// Error returns the failed target and the compiler's output.
func (e *CompileError) Error() string {
	return fmt.Sprintf("build of %s for %s failed:\n%s", e.Dir, e.Target, strings.TrimRight(e.Output, "\n"))
}

// Unwrap returns the go command's exit error.
func (e *CompileError) Unwrap() error { return e.Err }

// lookGo finds the go command on the Builder's PATH, with a message saying
// what to install.
func (b *Builder) lookGo() (string, error) {
	var p string
	var err error
	if b.Environ == nil {
		p, err = exec.LookPath("go")
	} else {
		err = exec.ErrNotFound
		for _, dir := range filepath.SplitList(b.getenv("PATH")) {
			if !filepath.IsAbs(dir) {
				continue // as exec.LookPath, which refuses programs found relative to the current directory
			}
			if q, e := exec.LookPath(filepath.Join(dir, "go")); e == nil {
				p, err = q, nil
				break
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("the Go toolchain (the `go` command) is not on PATH: install Go 1.25 or newer from https://go.dev/dl/ and make sure `go version` works: %w", err)
	}
	return p, nil
}

// projectDirAbs checks that dir is a directory and returns its absolute path.
func projectDirAbs(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("project directory %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("project directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("project directory %s is not a directory", dir)
	}
	return abs, nil
}

// CacheDirEnv names the environment variable that, when set, replaces the
// CLI's cache directory (CacheRoot), where built binaries are kept between
// calls. Go's own build cache is not affected.
const CacheDirEnv = names.EnvCacheDir

// CacheRoot returns the CLI's cache directory: FRAMEWORK_CACHE_DIR as
// getenv reads it, else <user cache dir>/framework. The app's builds are
// kept in its "build" subdirectory, the synthesis engine in "engine".
func CacheRoot(getenv func(string) string) string {
	if base := getenv(CacheDirEnv); base != "" {
		return base
	}
	ucd, err := os.UserCacheDir()
	if err != nil || ucd == "" {
		ucd = scratch.UserTempDir() // not the run's own directory, removed when it ends
	}
	return filepath.Join(ucd, "framework")
}

// BuildCacheName is the subdirectory of CacheRoot holding the app builds,
// one entry per project directory (EntryDir).
const BuildCacheName = "build"

// EngineCacheName is the subdirectory of CacheRoot holding the synthesis
// engine builds, one directory per CLI version and source, each with the
// program, its lock file ".lock" (held shared while the engine runs,
// exclusive while it is built) and EngineUsed.
const EngineCacheName = "engine"

// EngineUsed is the file of an engine's directory whose modification time
// is when the engine last ran (MarkUsed). The program's own is not touched:
// the engine identifies its build by it.
const EngineUsed = "used"

// ProjectRecord is the file of a project's entry in the build cache that
// holds the project's absolute path; its modification time is when the
// entry was last used (MarkUsed).
const ProjectRecord = "project"

// EntryDir is the entry of the project whose absolute path is abs in the
// build cache base: <hash of abs>-<abs's base name>.
func EntryDir(base, abs string) string {
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, hex.EncodeToString(sum[:8])+"-"+sanitize(filepath.Base(abs)))
}

// UseInterval is how often MarkUsed records a use of the same file.
const UseInterval = time.Hour

// MarkUsed records that what the file path stands for is used now: it
// creates path holding content when it is missing, else sets its
// modification time to now when it is older than UseInterval, so that a
// busy command costs one stat. Errors are ignored: a use not recorded only
// makes the cache's trimming see the entry as older.
func MarkUsed(path string, content []byte) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		os.WriteFile(path, content, 0o644)
	case err == nil && time.Since(fi.ModTime()) > UseInterval:
		now := time.Now()
		os.Chtimes(path, now, now)
	}
}

// cacheDir returns a directory private to the project in abs and the kind of
// output, under the build cache (see Builder.CacheDir), and records the
// entry's project and use (ProjectRecord). Keeping the output binary at a
// stable path lets the go command see it is up to date and skip linking.
func (b *Builder) cacheDir(abs, kind string) (string, error) {
	entry := EntryDir(b.cacheBase(), abs)
	dir := filepath.Join(entry, kind)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create build cache directory %s: %w", dir, err)
	}
	MarkUsed(filepath.Join(entry, ProjectRecord), []byte(abs+"\n"))
	return dir, nil
}

// sanitize keeps a directory name readable in a cache path.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// outputLocks serializes builds writing the same output path in this process.
var outputLocks sync.Map // path -> *sync.Mutex

func lockOutput(path string) func() {
	m, _ := outputLocks.LoadOrStore(path, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// environWith returns the Builder's environment without the variables named
// in drop, then with set appended.
func (b *Builder) environWith(drop []string, set ...string) []string {
	return Environ(b.environ(), func(name string) bool { return slices.Contains(drop, name) }, set...)
}

// AppEnviron returns base without the variables that would change how a
// framework app runs (FRAMEWORK_* but the build cache, and AWS Lambda's own
// AWS_LAMBDA_* and _LAMBDA_SERVER_PORT), then with set: the environment of
// the user's app run on this machine by `framework local` or
// `framework invoke --local`. TMPDIR is the user's own again, not the CLI
// run's private directory (names.EnvUserTempDir), unless set assigns it.
func AppEnviron(base []string, set ...string) []string {
	for _, kv := range base {
		if v, ok := strings.CutPrefix(kv, names.EnvUserTempDir+"="); ok && v != "" {
			set = append([]string{"TMPDIR=" + v}, set...)
		}
	}
	return Environ(base, func(k string) bool {
		return strings.HasPrefix(k, names.EnvPrefix) && k != names.EnvCacheDir || strings.HasPrefix(k, "AWS_LAMBDA_") || k == "_LAMBDA_SERVER_PORT"
	}, set...)
}

// Environ returns base (KEY=value entries) without the variables that drop
// reports or that set assigns, then with set appended: the environment of a
// child process that must see set's values and none of drop's.
func Environ(base []string, drop func(name string) bool, set ...string) []string {
	assigned := make(map[string]bool, len(set))
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		assigned[k] = true
	}
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if runtime.GOOS == "windows" {
			k = strings.ToUpper(k)
		}
		if !assigned[k] && (drop == nil || !drop(k)) {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

// goBuild runs `go build <args> -o out .` in dir and returns a *CompileError
// carrying the compiler's output when the build fails.
func (b *Builder) goBuild(ctx context.Context, dir, target, out string, env []string, args ...string) error {
	goCmd, err := b.lookGo()
	if err != nil {
		return err
	}
	parent := ctx
	timeout := b.buildTimeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append([]string{"build"}, args...)
	argv = append(argv, "-o", out, ".")
	cmd := exec.CommandContext(ctx, goCmd, argv...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	procgroup.Own(cmd) // a cancelled build takes its compiler and linker with it
	var output bytes.Buffer
	cmd.Stdout = &output
	cmd.Stderr = &output
	if err := cmd.Run(); err != nil {
		if parent.Err() != nil {
			return fmt.Errorf("build of %s for %s: %w", dir, target, parent.Err())
		}
		if ctx.Err() != nil {
			return fmt.Errorf("build of %s for %s did not finish within %s: %w", dir, target, timeout, ctx.Err())
		}
		return &CompileError{Dir: dir, Target: target, Output: output.String(), Err: err}
	}
	b.markBuilt()
	// For a package other than main, go build -o writes an archive, not a program.
	if head, err := readHead(out, 8); err == nil && string(head) == "!<arch>\n" {
		os.Remove(out)
		return fmt.Errorf("%s holds no command: its Go package is not package main; run the command in the app's directory (the one whose main function calls app.Run())", dir)
	}
	return nil
}

// readHead returns the first n bytes of the file at path (fewer if it is shorter).
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:m], err
}
