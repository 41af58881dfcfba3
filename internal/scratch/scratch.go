// Package scratch gives one run of the CLI a private temporary directory
// and removes it, with everything in it, when the run ends.
//
// The CLI's temporary files do not all come from its own code: the AWS
// CDK's Go bindings (jsii-runtime-go) unpack their JavaScript runtime and
// stage package tarballs in the temporary directory, and the Node.js
// process they start keeps its modules there. Those files are removed only
// when everything ends in order; a failed build, a Ctrl-C or a killed
// process used to leave 2 to 25 MB behind on every run. So the CLI points
// TMPDIR at a directory of its own for the whole run (children such as
// Node.js and `go build` inherit it), and removes that directory at the
// end, whatever happened in it. A directory whose run was killed before it
// could clean up (SIGKILL, a closed terminal) is removed by the next run:
// each run holds an exclusive lock on a file in its directory for as long
// as it lives, and a directory nobody holds a lock on is an orphan.
package scratch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/framework-dev/framework/internal/names"
)

// Prefix starts the name of every run's directory.
const Prefix = "framework-run-"

// lockName is the file each run holds its lock on.
const lockName = ".lock"

// orphanAge is how old a directory without a lock file must be before it
// counts as an orphan: a run creates the file right after the directory.
const orphanAge = time.Minute

// Dir is one run's temporary directory.
type Dir struct {
	// Path is the directory, which TMPDIR names while the run lasts.
	Path string
	// prev is TMPDIR as it was, prevSet whether it was set at all.
	prev    string
	prevSet bool
	lock    *os.File
}

// Begin removes the directories of runs that ended without cleaning up,
// creates this run's directory in the user's temporary directory and
// points TMPDIR (and names.EnvUserTempDir, for the user's app and the
// caches that must outlive the run) at it. It returns nil and does
// nothing where the temporary directory is not named by TMPDIR.
func Begin() (*Dir, error) {
	if !supported {
		return nil, nil
	}
	parent := os.TempDir()
	Sweep(parent)
	path, err := os.MkdirTemp(parent, Prefix)
	if err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		os.RemoveAll(path)
		return nil, err
	}
	// Where the file system has no locks, no other run can take one on
	// the file either, so the directory counts as in use: it is not swept,
	// only removed by End.
	_ = lockFile(lock)
	d := &Dir{Path: path, lock: lock}
	d.prev, d.prevSet = os.LookupEnv("TMPDIR")
	os.Setenv(names.EnvUserTempDir, parent)
	os.Setenv("TMPDIR", path)
	return d, nil
}

// End restores TMPDIR and removes the directory with all it holds. It may
// be called more than once, and on a nil Dir.
func (d *Dir) End() error {
	if d == nil || d.lock == nil {
		return nil
	}
	if d.prevSet {
		os.Setenv("TMPDIR", d.prev)
	} else {
		os.Unsetenv("TMPDIR")
	}
	os.Unsetenv(names.EnvUserTempDir)
	// A child being killed may finish a last write as the removal runs,
	// which then fails on a directory no longer empty: try again briefly.
	err := os.RemoveAll(d.Path)
	for i := 0; err != nil && i < 10; i++ {
		time.Sleep(50 * time.Millisecond)
		err = os.RemoveAll(d.Path)
	}
	d.lock.Close() // after the removal: a sweeping run must not take the directory half-removed
	d.lock = nil
	return err
}

// UserTempDir is the temporary directory of the user's environment: the
// one the CLI's run started with, not the run's private directory. Files
// meant to outlive the run go there.
func UserTempDir() string {
	if dir := os.Getenv(names.EnvUserTempDir); dir != "" {
		return dir
	}
	return os.TempDir()
}

// Sweep removes the run directories in parent whose run has ended: nobody
// holds their lock, or, without a lock file, they are older than a minute.
// It returns the directories it removed.
func Sweep(parent string) []string {
	if !supported {
		return nil
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if orphan(dir) && os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// orphan reports whether no live run owns dir.
func orphan(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		fi, err := os.Stat(dir)
		return err == nil && time.Since(fi.ModTime()) > orphanAge
	}
	if err != nil {
		return false
	}
	defer f.Close() // releases the lock taken below
	return lockFile(f) == nil
}
