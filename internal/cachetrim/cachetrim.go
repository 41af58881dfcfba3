// Package cachetrim lists and trims the CLI's caches under build.CacheRoot:
// the synthesis engines (engine/<key>/) and the app builds, one entry per
// project directory (build/<hash>-<name>/). Commands that use them trim them
// at most once a day (Auto), as Go trims its build cache; `framework cache
// clean` removes every entry no process is using (Clean).
package cachetrim

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/build"
)

// The trimming rules.
const (
	// Interval is how often Auto trims: at most once a day, like Go's
	// build cache.
	Interval = 24 * time.Hour
	// EngineMaxUnused is how long an engine may go unused before it is
	// removed. Rebuilding one takes about a minute (and Go's build cache,
	// which trims its own after 5 days, no longer helps by then), while
	// EngineKeep already bounds their space: a month keeps the engine of a
	// CLI used monthly.
	EngineMaxUnused = 30 * 24 * time.Hour
	// EngineKeep is how many of the most recently used engines are kept
	// whatever their age: one per CLI version, and in a framework checkout
	// one per change of the source, so older ones go at the next trim.
	EngineKeep = 3
	// BuildMaxUnused is how long a project's builds may go unused before
	// they are removed: rebuilding them takes seconds (at most a minute
	// with a cold Go cache), and two weeks keep a project worked on every
	// other week.
	BuildMaxUnused = 14 * 24 * time.Hour
	// Marker is the file in the cache root whose modification time is the
	// last trim.
	Marker = "trimmed"
)

// Kinds of entry.
const (
	KindEngine = "engine"
	KindBuild  = "build"
)

// Entry is one removable unit of the caches.
type Entry struct {
	// Kind is KindEngine or KindBuild.
	Kind string `json:"kind"`
	// Path is the entry's directory.
	Path string `json:"path"`
	// Project is the project directory a build entry belongs to, "" when
	// the entry does not record it (made by an older CLI).
	Project string `json:"project,omitempty"`
	// ProjectGone says that Project no longer exists.
	ProjectGone bool `json:"project_gone,omitempty"`
	// Bytes is the size of the entry's files.
	Bytes int64 `json:"bytes"`
	// LastUsed is the latest modification time in the entry: its use
	// record, else its newest file.
	LastUsed time.Time `json:"last_used"`
	// InUse says a process holds one of the entry's locks (set by List).
	InUse bool `json:"in_use"`
	// locks are the entry's lock files.
	locks []string
}

// legacyEntry matches a build entry written directly in the cache root, as
// CLIs did when FRAMEWORK_CACHE_DIR was set before the "build"
// subdirectory.
var legacyEntry = regexp.MustCompile(`^[0-9a-f]{16}-`)

// List returns the entries of the caches under root, engines first, each
// group from the most recently used, with InUse set.
func List(root string) ([]Entry, error) {
	entries, err := scan(root)
	for i := range entries {
		entries[i].InUse = inUse(entries[i])
	}
	return entries, err
}

// scan reads the entries under root (engines, then builds, each from the
// most recently used) without testing their locks.
func scan(root string) ([]Entry, error) {
	byKind := map[string][]Entry{}
	var errs []error
	for _, g := range []struct {
		kind, dir string
		match     func(string) bool
	}{
		{KindEngine, filepath.Join(root, build.EngineCacheName), nil},
		{KindBuild, filepath.Join(root, build.BuildCacheName), nil},
		{KindBuild, root, legacyEntry.MatchString},
	} {
		des, err := os.ReadDir(g.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		for _, de := range des {
			if !de.IsDir() || g.match != nil && !g.match(de.Name()) {
				continue
			}
			e, err := read(g.kind, filepath.Join(g.dir, de.Name()))
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) { // not removed meanwhile
					errs = append(errs, err)
				}
				continue
			}
			byKind[g.kind] = append(byKind[g.kind], e)
		}
	}
	var all []Entry
	for _, kind := range []string{KindEngine, KindBuild} {
		group := byKind[kind]
		slices.SortStableFunc(group, func(a, b Entry) int { return b.LastUsed.Compare(a.LastUsed) })
		all = append(all, group...)
	}
	return all, errors.Join(errs...)
}

// read reads the entry in dir: its size, last use, lock files and, for a
// build entry, its project.
func read(kind, dir string) (Entry, error) {
	e := Entry{Kind: kind, Path: dir}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if fi.ModTime().After(e.LastUsed) {
			e.LastUsed = fi.ModTime()
		}
		if d.Type().IsRegular() {
			e.Bytes += fi.Size()
			if strings.HasSuffix(d.Name(), ".lock") {
				e.locks = append(e.locks, p)
			}
		}
		return nil
	})
	if err != nil {
		return e, err
	}
	if kind == KindBuild {
		if b, rerr := os.ReadFile(filepath.Join(dir, build.ProjectRecord)); rerr == nil {
			e.Project = strings.TrimSpace(string(b))
			if e.Project != "" && filepath.IsAbs(e.Project) {
				_, serr := os.Stat(e.Project)
				e.ProjectGone = errors.Is(serr, fs.ErrNotExist)
			}
		}
	}
	return e, nil
}

// inUse reports whether a process holds one of e's locks.
func inUse(e Entry) bool {
	release, ok := lockAll(e)
	if ok {
		release()
	}
	return !ok
}

// lockAll takes every lock of e without waiting: ok is false, and nothing
// is held, when another process holds one of them.
func lockAll(e Entry) (release func(), ok bool) {
	var held []func()
	release = func() {
		for _, r := range held {
			r()
		}
	}
	for _, l := range e.locks {
		r, ok, err := build.TryLockFile(l)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed with its build's output: nothing to hold
		}
		if err != nil || !ok {
			release()
			return nil, false
		}
		held = append(held, r)
	}
	return release, true
}

// Stale returns the entries of entries (as List or scan returns them: each
// kind from the most recently used) that the rules remove at now: engines
// unused for EngineMaxUnused or beyond the EngineKeep most recently used,
// build entries whose project directory is gone or unused for
// BuildMaxUnused. Entries whose directory is in keep are never stale.
func Stale(entries []Entry, now time.Time, keep []string) []Entry {
	var stale []Entry
	engines := 0
	for _, e := range entries {
		old := false
		switch e.Kind {
		case KindEngine:
			engines++
			old = engines > EngineKeep || now.Sub(e.LastUsed) > EngineMaxUnused
		case KindBuild:
			old = e.ProjectGone || now.Sub(e.LastUsed) > BuildMaxUnused
		}
		if old && !slices.Contains(keep, e.Path) {
			stale = append(stale, e)
		}
	}
	return stale
}

// Remove removes the entry e unless a process holds one of its locks
// (removed is then false), holding them all while it removes. It stops
// between files when ctx is cancelled (what is left is removed next time).
func Remove(ctx context.Context, e Entry) (removed bool, err error) {
	release, ok := lockAll(e)
	if !ok {
		return false, nil
	}
	defer release()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return true, os.RemoveAll(e.Path)
}

// Result is what a trim or a clean did.
type Result struct {
	// Removed are the entries removed.
	Removed []Entry `json:"removed"`
	// Kept are the entries left because a process is using them.
	Kept []Entry `json:"kept"`
	// Bytes is the space freed.
	Bytes int64 `json:"freed_bytes"`
}

// removeAll removes each of entries that no process uses, until ctx is
// cancelled.
func removeAll(ctx context.Context, entries []Entry) (Result, error) {
	r := Result{Removed: []Entry{}, Kept: []Entry{}}
	var errs []error
	for _, e := range entries {
		if ctx.Err() != nil {
			errs = append(errs, ctx.Err())
			break
		}
		removed, err := Remove(ctx, e)
		switch {
		case err != nil:
			errs = append(errs, err)
		case removed:
			r.Removed = append(r.Removed, e)
			r.Bytes += e.Bytes
		default:
			e.InUse = true
			r.Kept = append(r.Kept, e)
		}
	}
	return r, errors.Join(errs...)
}

// Due reports whether the caches under root were last trimmed Interval or
// longer before now (or never).
func Due(root string, now time.Time) bool {
	fi, err := os.Stat(filepath.Join(root, Marker))
	return err != nil || now.Sub(fi.ModTime()) >= Interval
}

// Auto trims the caches under root when Due: it records the trim (so that
// the next is a day later, whatever happens to this one), then removes the
// Stale entries no process is using, never those whose directories keep
// returns (the engine and project of the command under way; called only
// when a trim is due). When not due it costs one stat.
func Auto(ctx context.Context, root string, now time.Time, keep func() []string) (Result, error) {
	if !Due(root, now) {
		return Result{}, nil
	}
	if _, err := os.Stat(root); err != nil {
		return Result{}, nil // nothing cached yet
	}
	marker := filepath.Join(root, Marker)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return Result{}, err
	}
	os.Chtimes(marker, now, now)
	entries, err := scan(root)
	var kept []string
	if keep != nil {
		kept = keep()
	}
	r, rerr := removeAll(ctx, Stale(entries, now, kept))
	return r, errors.Join(err, rerr)
}

// Clean removes every entry of the caches under root that no process is
// using, and returns those it removed and those it left.
func Clean(ctx context.Context, root string) (Result, error) {
	entries, err := scan(root)
	r, rerr := removeAll(ctx, entries)
	return r, errors.Join(err, rerr)
}
