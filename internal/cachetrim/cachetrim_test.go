package cachetrim

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/framework-dev/framework/internal/build"
)

// now is the tests' clock.
var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// age sets the modification time of dir and everything in it to at.
func age(t *testing.T, dir string, at time.Time) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// write writes the files (path relative to dir: content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// engine writes an engine build named key under root, last used at.
func engine(t *testing.T, root, key string, at time.Time) string {
	t.Helper()
	dir := filepath.Join(root, build.EngineCacheName, key)
	write(t, dir, map[string]string{"framework-synth": "program " + key, ".lock": "", build.EngineUsed: ""})
	age(t, dir, at)
	return dir
}

// project writes the build entry of the project directory project under
// root, last used at; record says whether it records its project, as the
// entries of older CLIs do not.
func project(t *testing.T, root, project string, at time.Time, record bool) string {
	t.Helper()
	dir := build.EntryDir(filepath.Join(root, build.BuildCacheName), project)
	files := map[string]string{"local/app-a": "binary", "local/app-a.lock": "", "linux-arm64/bootstrap": "binary", "linux-arm64/bootstrap.lock": ""}
	if record {
		files[build.ProjectRecord] = project + "\n"
	}
	write(t, dir, files)
	age(t, dir, at)
	return dir
}

// hold takes path's lock as a build or a running engine of another process
// would, until the test ends. Without flock(2) there are no such locks: the
// test is skipped.
func hold(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("lock files lock nothing without flock(2)")
	}
	release, err := build.LockFileShared(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
}

// exists reports whether path is there.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// check fails the test for each of keep that is gone and each of gone that
// is still there.
func check(t *testing.T, keep, gone map[string]string) {
	t.Helper()
	for what, dir := range keep {
		if !exists(dir) {
			t.Errorf("%s was removed, want it kept", what)
		}
	}
	for what, dir := range gone {
		if exists(dir) {
			t.Errorf("%s was kept, want it removed", what)
		}
	}
}

func TestAutoTrimsEngines(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	recent := map[string]string{
		"the engine used an hour ago":    engine(t, root, "a", now.Add(-time.Hour)),
		"the engine used 2 days ago":     engine(t, root, "b", now.Add(-2*day)),
		"the engine used 3 days ago":     engine(t, root, "c", now.Add(-3*day)),
		"the engine about to run":        engine(t, root, "current", now.Add(-50*day)),
		"an engine another run is using": engine(t, root, "running", now.Add(-5*day)),
	}
	hold(t, filepath.Join(recent["an engine another run is using"], ".lock"))
	gone := map[string]string{
		"the 4th most recently used engine": engine(t, root, "d", now.Add(-4*day)),
		"an engine unused for 40 days":      engine(t, root, "e", now.Add(-40*day)),
	}
	r, err := Auto(context.Background(), root, now, func() []string { return []string{recent["the engine about to run"]} })
	if err != nil {
		t.Fatal(err)
	}
	check(t, recent, gone)
	if len(r.Removed) != 2 || r.Bytes != 2*int64(len("program d")) {
		t.Errorf("removed %d entries, %d bytes; want 2, %d bytes", len(r.Removed), r.Bytes, 2*len("program d"))
	}
	if len(r.Kept) != 1 || r.Kept[0].Path != recent["an engine another run is using"] {
		t.Errorf("kept as in use %v, want the engine another run is using", r.Kept)
	}
}

func TestAutoTrimsAtMostOnceADay(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	engine(t, root, "a", now)
	if _, err := Auto(context.Background(), root, now, nil); err != nil {
		t.Fatal(err)
	}
	old := engine(t, root, "old", now.Add(-60*day))
	r, err := Auto(context.Background(), root, now.Add(23*time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !exists(old) || len(r.Removed) != 0 {
		t.Fatalf("a second trim within a day removed %v, want nothing", r.Removed)
	}
	if _, err := Auto(context.Background(), root, now.Add(25*time.Hour), nil); err != nil {
		t.Fatal(err)
	}
	if exists(old) {
		t.Errorf("the trim a day later kept an engine unused for 60 days")
	}
}

func TestAutoTrimsBuilds(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	live, deleted, deletedBusy := t.TempDir(), t.TempDir(), t.TempDir()
	keep := map[string]string{
		"a live project's entry":                         project(t, root, live, now.Add(-day), true),
		"an entry of an older CLI used yesterday":        project(t, root, filepath.Join(live, "sub"), now.Add(-day), false),
		"the entry of the project under way":             project(t, root, filepath.Join(live, "current"), now.Add(-90*day), true),
		"a deleted project's entry another run is using": project(t, root, deletedBusy, now, true),
		"the deploy records":                             filepath.Join(root, "deployed"),
		"the engine":                                     engine(t, root, "a", now),
	}
	write(t, keep["the deploy records"], map[string]string{"123-eu-west-1-app-dev.json": "{}"})
	age(t, keep["the deploy records"], now.Add(-90*day))
	hold(t, filepath.Join(keep["a deleted project's entry another run is using"], "linux-arm64", "bootstrap.lock"))
	legacy := filepath.Join(root, "0123456789abcdef-old")
	write(t, legacy, map[string]string{"host/app": "binary"})
	age(t, legacy, now.Add(-20*day))
	gone := map[string]string{
		"a deleted project's entry":                        project(t, root, deleted, now.Add(-time.Hour), true),
		"a live project's entry unused for 20 days":        project(t, root, filepath.Join(live, "idle"), now.Add(-20*day), true),
		"an entry of an older CLI unused for 20 days":      project(t, root, filepath.Join(live, "older"), now.Add(-20*day), false),
		"an entry written in the cache root by older CLIs": legacy,
	}
	for _, p := range []string{deleted, deletedBusy} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Auto(context.Background(), root, now, func() []string { return []string{keep["the entry of the project under way"]} }); err != nil {
		t.Fatal(err)
	}
	check(t, keep, gone)
}

func TestListAndClean(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	live, deleted := t.TempDir(), t.TempDir()
	os.Remove(deleted)
	eng := engine(t, root, "a", now.Add(-time.Hour))
	busy := project(t, root, live, now.Add(-2*time.Hour), true)
	idle := project(t, root, deleted, now.Add(-3*time.Hour), true)
	hold(t, filepath.Join(busy, "local", "app-a.lock"))
	entries, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, strings.Join([]string{e.Kind, e.Path, e.Project, strconv.FormatBool(e.ProjectGone), strconv.FormatBool(e.InUse), e.LastUsed.UTC().Format(time.RFC3339)}, " "))
	}
	want := []string{
		"engine " + eng + "  false false " + now.Add(-time.Hour).Format(time.RFC3339),
		"build " + busy + " " + live + " false true " + now.Add(-2*time.Hour).Format(time.RFC3339),
		"build " + idle + " " + deleted + " true false " + now.Add(-3*time.Hour).Format(time.RFC3339),
	}
	if !slices.Equal(got, want) {
		t.Errorf("List:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r, err := Clean(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	check(t, map[string]string{"the entry in use": busy}, map[string]string{"the engine": eng, "the idle entry": idle})
	if len(r.Removed) != 2 || len(r.Kept) != 1 || !r.Kept[0].InUse {
		t.Errorf("Clean removed %d and kept %d entries, want 2 and the one in use", len(r.Removed), len(r.Kept))
	}
}
