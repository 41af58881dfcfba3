package build

import (
	"os"
	"path/filepath"
	"time"
)

// BuiltMarker is the file of the build cache (CacheRoot's BuildCacheName
// directory) whose presence says that a build of an app has finished on
// this machine, and whose modification time is when one last did
// (MarkUsed). Its absence, or an age beyond GoCacheMaxUnused, makes the
// next build a first build (FirstBuild).
const BuiltMarker = "built"

// GoCacheMaxUnused is how long Go keeps an unused entry of its build
// cache (5 days, `go help cache`): after that long without a build, the
// packages an app shares with the framework may have to be compiled again.
const GoCacheMaxUnused = 5 * 24 * time.Hour

// FirstBuildHint is how long a first build takes, for the line a command
// prints as it starts building (measured with `make bench-first-run`:
// 40 to 95 s on 2 cores with empty Go caches).
const FirstBuildHint = "the first build on this machine takes about a minute"

// cacheBase returns the build cache directory (see Builder.CacheDir).
func (b *Builder) cacheBase() string {
	if b.CacheDir != "" {
		return b.CacheDir
	}
	return filepath.Join(CacheRoot(b.getenv), BuildCacheName)
}

// FirstBuild reports whether the next build is likely to compile the
// framework and the app's dependencies from scratch: no build of an app
// has finished on this machine (in this build cache), or none for longer
// than Go keeps its build cache's entries. It costs one stat.
func (b *Builder) FirstBuild() bool {
	fi, err := os.Stat(filepath.Join(b.cacheBase(), BuiltMarker))
	return err != nil || time.Since(fi.ModTime()) > GoCacheMaxUnused
}

// markBuilt records that a build finished (BuiltMarker).
func (b *Builder) markBuilt() {
	base := b.cacheBase()
	if err := os.MkdirAll(base, 0o755); err == nil {
		MarkUsed(filepath.Join(base, BuiltMarker), nil)
	}
}

// StartLine is the line a command prints as it starts building the app
// (Builder.StartLine).
func StartLine(what string) string { return new(Builder).StartLine(what) }

// StartLine returns "Building <what>...", with how long it takes when it
// is a first build (FirstBuild): a command prints it at once, so that a
// build that compiles for a minute is not a minute of silence.
func (b *Builder) StartLine(what string) string {
	if b.FirstBuild() {
		return "Building " + what + " (" + FirstBuildHint + ")..."
	}
	return "Building " + what + "..."
}
