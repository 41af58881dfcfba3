package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/cachetrim"
	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/synth"
	"github.com/framework-dev/framework/internal/testutil"
)

// testCache is a cache directory holding an engine and the build entries
// of two projects, one of them deleted, each last used at the given time.
type testCache struct {
	root                     string
	engine                   string // the engine's directory
	live, deleted            string // the projects
	liveEntry, deletedEntry  string // their build entries
	engineAt, liveAt, goneAt time.Time
}

// newTestCache writes a testCache: the engine (9 bytes) used 40 days ago,
// the live project's entry (6 bytes) 90 days ago, the deleted project's
// (6 bytes) an hour ago.
func newTestCache(t *testing.T) *testCache {
	t.Helper()
	now := time.Now().Truncate(time.Second)
	c := &testCache{root: t.TempDir(), live: t.TempDir(), deleted: t.TempDir(),
		engineAt: now.Add(-40 * 24 * time.Hour), liveAt: now.Add(-90 * 24 * time.Hour), goneAt: now.Add(-time.Hour)}
	c.engine = filepath.Join(c.root, build.EngineCacheName, "0123456789abcdef0123")
	testutil.WriteFiles(t, c.engine, map[string]string{synth.EngineName: "an engine", ".lock": ""})
	setTimes(t, c.engineAt, c.engine, filepath.Join(c.engine, synth.EngineName), filepath.Join(c.engine, ".lock"))
	b := &build.Builder{CacheDir: filepath.Join(c.root, build.BuildCacheName)}
	for _, p := range []struct {
		project string
		entry   *string
		at      time.Time
	}{{c.live, &c.liveEntry, c.liveAt}, {c.deleted, &c.deletedEntry, c.goneAt}} {
		dir, err := b.ProjectCacheDir(p.project, "local")
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFiles(t, dir, map[string]string{"app-a": "binary"})
		*p.entry = filepath.Dir(dir)
		setTimes(t, p.at, *p.entry, dir, filepath.Join(dir, "app-a"), filepath.Join(*p.entry, build.ProjectRecord))
	}
	if err := os.Remove(c.deleted); err != nil {
		t.Fatal(err)
	}
	return c
}

// env is an Env whose FRAMEWORK_CACHE_DIR is the test cache.
func (c *testCache) env(stdout, stderr *bytes.Buffer) *Env {
	return &Env{Stdout: stdout, Stderr: stderr, Getenv: environ(map[string]string{names.EnvCacheDir: c.root})}
}

// setTimes sets the modification time of paths to at.
func setTimes(t *testing.T, at time.Time, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSynthTrimsTheCachesOnceADay(t *testing.T) {
	t.Parallel()
	c := newTestCache(t)
	var stdout, stderr bytes.Buffer
	env := c.env(&stdout, &stderr)
	env.TrimCaches = true
	env.Synth = func(_ context.Context, o synth.Options) (*synth.Result, error) {
		return &synth.Result{StackName: "shop-dev"}, nil
	}
	if code := MainEnv([]string{"-C", c.live, "synth", "-v"}, env); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(c.liveEntry); err != nil {
		t.Errorf("the trim removed the build entry of the project being synthesized (%v)", err)
	}
	for what, dir := range map[string]string{"an engine unused for 40 days": c.engine, "a deleted project's builds": c.deletedEntry} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("synth kept %s (%s)", what, dir)
		}
	}
	if !strings.Contains(stderr.String(), "Cache trimmed: removed 2 unused entries") {
		t.Errorf("synth -v said %q, want what the trim removed", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(c.root, cachetrim.Marker)); err != nil {
		t.Errorf("the trim left no record of its time: the next command would trim again (%v)", err)
	}
}

func TestCacheListJSON(t *testing.T) {
	t.Parallel()
	c := newTestCache(t)
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"cache", "--json"}, c.env(&stdout, &stderr)); code != 0 {
		t.Fatalf("cache --json: exit %d: %s", code, stderr.String())
	}
	var got cacheList
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("cache --json printed %q: %v", stdout.String(), err)
	}
	if got.Dir != c.root || got.Bytes != 9+2*6+int64(len(c.live)+len(c.deleted)+2) || got.LastTrim != nil {
		t.Errorf("cache --json: dir %s, %d bytes, last trim %v; want %s, %d bytes, no trim yet", got.Dir, got.Bytes, got.LastTrim, c.root, 9+2*6+len(c.live)+len(c.deleted)+2)
	}
	var lines []string
	for _, e := range got.Entries {
		lines = append(lines, strings.Join([]string{e.Kind, e.Path, e.Project, e.LastUsed.Format(time.RFC3339)}, " "))
	}
	want := []string{
		"engine " + c.engine + "  " + c.engineAt.Format(time.RFC3339),
		"build " + c.deletedEntry + " " + c.deleted + " " + c.goneAt.Format(time.RFC3339),
		"build " + c.liveEntry + " " + c.live + " " + c.liveAt.Format(time.RFC3339),
	}
	if !slices.Equal(lines, want) {
		t.Errorf("cache --json entries:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if len(got.Entries) == 3 && (!got.Entries[1].ProjectGone || got.Entries[2].ProjectGone) {
		t.Errorf("cache --json: the deleted project is not told from the live one: %+v", got.Entries[1:])
	}
}

func TestCacheCleanJSON(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("lock files lock nothing without flock(2)")
	}
	c := newTestCache(t)
	release, err := build.LockFileShared(filepath.Join(c.liveEntry, "local", "app-a.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var stdout, stderr bytes.Buffer
	if code := MainEnv([]string{"cache", "clean", "--json"}, c.env(&stdout, &stderr)); code != 0 {
		t.Fatalf("cache clean --json: exit %d: %s", code, stderr.String())
	}
	var got cacheClean
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("cache clean --json printed %q: %v", stdout.String(), err)
	}
	var removed []string
	for _, e := range got.Removed {
		removed = append(removed, e.Path)
	}
	slices.Sort(removed)
	want := []string{c.deletedEntry, c.engine}
	slices.Sort(want)
	if !slices.Equal(removed, want) || len(got.Kept) != 1 || got.Kept[0].Path != c.liveEntry || !got.Kept[0].InUse {
		t.Errorf("cache clean --json: removed %v, kept %+v; want %v removed and the entry in use kept", removed, got.Kept, want)
	}
	for _, dir := range want {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("cache clean left %s", dir)
		}
	}
	if _, err := os.Stat(filepath.Join(c.liveEntry, "local", "app-a")); err != nil {
		t.Errorf("cache clean removed the build in use (%v)", err)
	}
}
