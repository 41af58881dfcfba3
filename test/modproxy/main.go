// Command modproxy packs this checkout's framework module, at a version,
// into a file-based Go module proxy: the layout `GOPROXY=file://DIR`
// serves (DIR/<module>/@v/list, .info, .mod and .zip). The zip is made by
// golang.org/x/mod/zip from the files git knows (tracked, and untracked
// but not ignored), so build outputs never enter it, and nested modules
// (testdata fixtures with a go.mod of their own) are left out as the go
// command leaves them out. scripts/release-test uses it to install a
// release as a stranger would.
//
//	go run ./test/modproxy -version v0.1.0 -dir /tmp/proxy
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

const modulePath = "github.com/framework-dev/framework"

func main() {
	version := flag.String("version", "", "the module version to pack (vX.Y.Z)")
	dir := flag.String("dir", "", "the proxy directory to write")
	src := flag.String("src", ".", "the module's root directory (a git checkout)")
	flag.Parse()
	if err := run(*version, *dir, *src); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(version, dir, src string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("-version %q is not a canonical semantic version such as v0.1.0", version)
	}
	if dir == "" {
		return fmt.Errorf("-dir is required: the directory to write the proxy into")
	}
	root, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(gomod, []byte("module "+modulePath+"\n")) {
		return fmt.Errorf("%s is not the root of %s", root, modulePath)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return fmt.Errorf("list the module's files with git: %w", err)
	}
	var files []modzip.File
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fi, err := os.Lstat(filepath.Join(root, p))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree
			}
			return err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		files = append(files, file{root: root, path: filepath.ToSlash(p), info: fi})
	}

	esc, err := module.EscapePath(modulePath)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	zf, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		return err
	}
	if err := modzip.Create(zf, module.Version{Path: modulePath, Version: version}, files); err != nil {
		zf.Close()
		return fmt.Errorf("pack the module: %w", err)
	}
	if err := zf.Close(); err != nil {
		return err
	}
	info, _ := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	for name, data := range map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("packed %s@%s (%d files) into %s\n", modulePath, version, len(files), vdir)
	return nil
}

// file is one file of the checkout, as golang.org/x/mod/zip reads it.
type file struct {
	root, path string
	info       fs.FileInfo
}

func (f file) Path() string                { return f.path }
func (f file) Lstat() (fs.FileInfo, error) { return f.info, nil }
func (f file) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.path)))
}
