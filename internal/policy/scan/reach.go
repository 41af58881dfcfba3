package scan

import (
	"bufio"
	"go/build"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	ibuild "github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/policy"
)

// reachable returns the app's module path, the import paths of the
// packages of its module that the main package in dir reaches through
// imports within the module (its own included, sorted), and whether it
// imports the framework, as reachableByGraph does, but from the import
// declarations alone (go/build), without running the go command: one go
// command less on every synth, about 0.2 s of CPU time.
//
// ok is false wherever the answer could differ from the go command's,
// and the caller asks the go command instead: settings that change which
// files it selects (-tags or -modfile in GOFLAGS, a go.work, GOOS or
// GOARCH in the go env file), build constraints on the Go version, an
// experiment, the architecture's level or cgo, cgo itself, a nested
// module, an import it cannot resolve, a directory that is not package
// main. So are all the errors the go command words better.
func reachable(dir string) (modPath string, paths []string, framework bool, ok bool) {
	if selectingFlags(os.Getenv("GOFLAGS")) || (os.Getenv("GOWORK") != "" && os.Getenv("GOWORK") != "off") || goEnvFileSets() {
		return "", nil, false, false
	}
	root, modPath := moduleOf(dir)
	if root == "" {
		return "", nil, false, false
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = runtime.GOOS, runtime.GOARCH
	ctx.BuildTags = []string{ibuild.LambdaTags}
	ctx.CgoEnabled = true // so that cgo files show, and the answer is no
	seen := map[string]bool{}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		p, err := ctx.ImportDir(d, 0)
		if err != nil || len(p.CgoFiles) > 0 || len(p.InvalidGoFiles) > 0 || len(p.GoFiles) == 0 {
			return "", nil, false, false
		}
		for _, tag := range p.AllTags {
			// The system's and custom tags mean the same to both; these
			// depend on the go command's toolchain and settings
			// (go1.N, goexperiment.X, amd64.v2, cgo).
			if tag == "cgo" || (strings.Contains(tag, ".") && tag != ibuild.LambdaTags) {
				return "", nil, false, false
			}
		}
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return "", nil, false, false
		}
		ip := path.Join(modPath, filepath.ToSlash(rel))
		if d == dir {
			if p.Name != "main" {
				return "", nil, false, false
			}
			framework = slices.Contains(p.Imports, policy.FrameworkPackage)
		}
		seen[ip] = true
		paths = append(paths, ip)
		for _, imp := range p.Imports {
			if imp != modPath && !strings.HasPrefix(imp, modPath+"/") {
				continue
			}
			sub := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(imp, modPath), "/")))
			if seen[imp] || slices.Contains(queue, sub) {
				continue
			}
			if !inSameModule(root, sub) {
				return "", nil, false, false
			}
			queue = append(queue, sub)
		}
	}
	slices.Sort(paths)
	return modPath, paths, framework, true
}

// moduleOf returns the directory of the go.mod governing dir and its
// module path, or "" when there is none, it names no module, or the go
// command would work in a workspace (a go.work at or above the module).
func moduleOf(dir string) (root, modPath string) {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for d := dir; ; d = filepath.Dir(d) {
		if exists(filepath.Join(d, "go.work")) {
			return "", ""
		}
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			for up := filepath.Dir(d); ; up = filepath.Dir(up) {
				if exists(filepath.Join(up, "go.work")) {
					return "", ""
				}
				if filepath.Dir(up) == up {
					break
				}
			}
			if mp := modfile.ModulePath(data); mp != "" {
				return d, mp
			}
			return "", ""
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// inSameModule reports whether the package directory sub belongs to the
// module rooted at root: under it, in no directory the go command leaves
// out of import paths (testdata, names starting with . or _), and with no
// go.mod of its own on the way (a nested module).
func inSameModule(root, sub string) bool {
	rel, err := filepath.Rel(root, sub)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	if rel == "." {
		return true
	}
	d := root
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		if elem == "testdata" || elem == "vendor" || strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return false
		}
		d = filepath.Join(d, elem)
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return false
		}
	}
	return true
}

// selectingFlags reports whether GOFLAGS holds a flag that changes which
// files of the main module the go command builds (-tags, -modfile).
func selectingFlags(goflags string) bool {
	for _, f := range strings.Fields(goflags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name == "tags" || name == "modfile" {
			return true
		}
	}
	return false
}

// goEnvFileSets reports whether the go command's env file (go env -w) sets
// a variable that changes which files of the main module it builds (those
// that only matter with build constraints or cgo are left to reachable).
func goEnvFileSets() bool {
	file := os.Getenv("GOENV")
	if file == "off" {
		return false
	}
	if file == "" {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return true
		}
		file = filepath.Join(cfg, "go", "env")
	}
	f, err := os.Open(file)
	if err != nil {
		return !os.IsNotExist(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, _ := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		switch key {
		case "GOOS", "GOARCH":
			return true
		case "GOFLAGS":
			if selectingFlags(value) {
				return true
			}
		case "GOWORK":
			if value != "" && value != "off" {
				return true
			}
		}
	}
	return sc.Err() != nil
}
