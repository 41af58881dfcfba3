package local

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// watcher watches the project's directories for changes that need a rebuild.
type watcher struct {
	*fsnotify.Watcher
	root string
}

// skipDir reports whether a directory is never watched: hidden ones (but
// .framework), build outputs and dependencies.
func skipDir(name string) bool {
	if name == ".framework" {
		return false
	}
	return strings.HasPrefix(name, ".") || name == "cdk.out" || name == "node_modules" || name == "testdata" || name == "bin"
}

func newWatcher(root string) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s for changes: %w (run with --no-autoreload to serve without reloading)", root, err)
	}
	w := &watcher{Watcher: fw, root: root}
	if err := w.addTree(root); err != nil {
		fw.Close()
		return nil, err
	}
	return w, nil
}

// addTree watches dir and every directory below it that is not skipped.
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a directory that vanished meanwhile
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		if err := w.Add(p); err != nil {
			return fmt.Errorf("watch %s for changes: %w (on Linux, raise fs.inotify.max_user_watches, or run with --no-autoreload)", p, err)
		}
		return nil
	})
}

// handle reports whether ev changes the app, and watches new directories.
func (w *watcher) handle(ev fsnotify.Event) bool {
	if ev.Op&fsnotify.Create != 0 {
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && !skipDir(filepath.Base(ev.Name)) {
			_ = w.addTree(ev.Name)
			return true // a new package may hold Go files already
		}
	}
	if ev.Op == fsnotify.Chmod {
		return false
	}
	return relevant(w.root, ev.Name)
}

// relevant reports whether a change to the file at path needs a rebuild:
// Go sources (not tests), go.mod, go.sum and the project configuration.
func relevant(root, path string) bool {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return false
	case strings.HasSuffix(base, ".go"):
		return !strings.HasPrefix(base, ".") && !strings.HasPrefix(base, "#")
	case base == "go.mod" || base == "go.sum":
		return true
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.ToSlash(rel) == ".framework/config.json"
}
