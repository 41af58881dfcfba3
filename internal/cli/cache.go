package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/cachetrim"
	"github.com/framework-dev/framework/internal/synth"
)

// CacheCmd is `framework cache`: what the CLI keeps in its cache directory
// (synthesis engines and the app builds of each project), and `framework
// cache clean`.
type CacheCmd struct {
	List  CacheListCmd  `cmd:"" default:"withargs" help:"List the cached synthesis engines and project builds: size, last use, project (the default)."`
	Clean CacheCleanCmd `cmd:"" help:"Remove every cached engine and project build that no running command is using."`
}

// CacheListCmd is `framework cache [list]`.
type CacheListCmd struct {
	JSON bool `name:"json" help:"Print one JSON object: the cache directory, its entries and their total size."`
}

// cacheList is the --json output of `framework cache`.
type cacheList struct {
	// Dir is the cache directory.
	Dir string `json:"dir"`
	// Bytes is the total size of the entries.
	Bytes int64 `json:"bytes"`
	// LastTrim is when the caches were last trimmed, absent when never.
	LastTrim *time.Time `json:"last_trim,omitempty"`
	// Entries are the engines, then the project builds, each from the
	// most recently used.
	Entries []cachetrim.Entry `json:"entries"`
}

// Run lists the entries of the caches.
func (c *CacheListCmd) Run(env *Env) error {
	root := build.CacheRoot(env.Getenv)
	entries, err := cachetrim.List(root)
	if err != nil && len(entries) == 0 {
		return fmt.Errorf("read the cache directory %s: %w", root, err)
	}
	out := cacheList{Dir: root, Entries: entries}
	if out.Entries == nil {
		out.Entries = []cachetrim.Entry{}
	}
	for _, e := range entries {
		out.Bytes += e.Bytes
	}
	if fi, err := os.Stat(filepath.Join(root, cachetrim.Marker)); err == nil {
		t := fi.ModTime()
		out.LastTrim = &t
	}
	if c.JSON {
		return writeJSON(env.Stdout, out)
	}
	w := env.Stdout
	fmt.Fprintf(w, "Cache directory: %s (%s; set %s to move it)\n", root, megabytes(out.Bytes), build.CacheDirEnv)
	for _, kind := range []struct{ kind, title string }{{cachetrim.KindEngine, "Synthesis engines"}, {cachetrim.KindBuild, "Project builds"}} {
		var n int
		var bytes int64
		for _, e := range entries {
			if e.Kind == kind.kind {
				n++
				bytes += e.Bytes
			}
		}
		fmt.Fprintf(w, "%s: %d, %s\n", kind.title, n, megabytes(bytes))
		for _, e := range entries {
			if e.Kind != kind.kind {
				continue
			}
			what := e.Path
			switch {
			case e.ProjectGone:
				what = e.Project + " (deleted)"
			case e.Project != "":
				what = e.Project
			}
			inUse := ""
			if e.InUse {
				inUse = ", in use"
			}
			fmt.Fprintf(w, "  %10s  used %s%s  %s\n", megabytes(e.Bytes), e.LastUsed.Local().Format("2006-01-02 15:04"), inUse, what)
		}
	}
	last := "never yet"
	if out.LastTrim != nil {
		last = "last " + out.LastTrim.Local().Format("2006-01-02 15:04")
	}
	_, err = fmt.Fprintf(w, "Trimmed at most once a day by synth, diff, deploy, gen-policy, local and invoke --local (%s): engines unused for %d days or beyond the %d most recently used, builds of deleted projects or unused for %d days. `framework cache clean` removes everything not in use.\n",
		last, cachetrim.EngineMaxUnused/(24*time.Hour), cachetrim.EngineKeep, cachetrim.BuildMaxUnused/(24*time.Hour))
	return err
}

// CacheCleanCmd is `framework cache clean`.
type CacheCleanCmd struct {
	JSON bool `name:"json" help:"Print one JSON object: the entries removed, those kept because a command is using them, the space freed."`
}

// cacheClean is the --json output of `framework cache clean`.
type cacheClean struct {
	Dir string `json:"dir"`
	cachetrim.Result
}

// Run removes every entry no process is using. The first Ctrl-C stops it
// between two entries.
func (c *CacheCleanCmd) Run(env *Env) error {
	ctx, stop := env.Context()
	defer stop()
	root := build.CacheRoot(env.Getenv)
	r, err := cachetrim.Clean(ctx, root)
	if err != nil && ctx.Err() != nil {
		return interrupted(ctx, err)
	}
	if c.JSON {
		if werr := writeJSON(env.Stdout, cacheClean{Dir: root, Result: r}); werr != nil {
			return werr
		}
	} else {
		fmt.Fprintf(env.Stdout, "Removed %d entries (%s) from %s\n", len(r.Removed), megabytes(r.Bytes), root)
		for _, e := range r.Kept {
			fmt.Fprintf(env.Stdout, "Kept %s: a running command is using it\n", e.Path)
		}
	}
	if err != nil {
		return fmt.Errorf("some of the cache could not be removed: %w; remove it by hand once no framework command runs", err)
	}
	return nil
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// megabytes is n bytes in MB, one decimal.
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// trimCaches trims the CLI's caches in the background when env allows it
// and a trim is due (cachetrim.Auto: at most once a day, else it costs one
// stat), never removing the build entry of the project in g nor the
// synthesis engine this CLI runs. The command calls the returned function
// before it returns: it waits for the trim, which the first Ctrl-C stops
// between two entries. With -v the trim says what it removed, and what
// went wrong; otherwise errors are ignored: a trim never fails a command.
func trimCaches(g *Globals, env *Env) (wait func()) {
	if !env.TrimCaches {
		return func() {}
	}
	root := build.CacheRoot(env.Getenv)
	now := time.Now()
	if !cachetrim.Due(root, now) {
		return func() {}
	}
	ctx, stop := env.Context()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err := cachetrim.Auto(ctx, root, now, func() []string {
			var keep []string
			if abs, err := filepath.Abs(g.ProjectDir); err == nil {
				keep = append(keep, build.EntryDir(filepath.Join(root, build.BuildCacheName), abs))
			}
			eng := &synth.Engine{Version: version(), SourceDir: sourceDir(), Getenv: env.Getenv}
			if dir := eng.Dir(); dir != "" {
				keep = append(keep, dir)
			}
			return keep
		})
		if !g.Verbose {
			return
		}
		if len(r.Removed) > 0 {
			fmt.Fprintf(env.Stderr, "Cache trimmed: removed %d unused entries (%s) from %s\n", len(r.Removed), megabytes(r.Bytes), root)
		}
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(env.Stderr, "Cache trim of %s: %v\n", root, err)
		}
	}()
	return func() {
		<-done
		stop()
	}
}
