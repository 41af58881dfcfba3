// Package apicheck writes and checks the module's public API: each public
// package's exported names and their signatures, one line each, in
// api/<package>.txt at the repository root. The test of this package
// fails when the code's API differs from those files (run `go generate
// ./internal/apicheck` to refresh them) and when the files differ from
// the last release's (api/released/) in a name the top section of
// CHANGELOG.md does not mention.
package apicheck

//go:generate go run ./cmd/apigen -root ../..

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Public are the packages users import, by path under the module root:
// every other package with a non-main package clause lives under
// internal/ (the test checks that).
var Public = []string{"framework", "framework/resource", "frameworktest", "constructs"}

// Dir is the directory of the API files under the module root, and
// ReleasedDir that of the API of the last release.
const (
	Dir         = "api"
	ReleasedDir = "api/released"
)

// FileName is the API file of a public package: "framework/resource"
// becomes "framework_resource.txt".
func FileName(pkg string) string { return strings.ReplaceAll(pkg, "/", "_") + ".txt" }

// API returns the exported API of the package in dir: one line per
// exported name (constants, variables, functions, types, methods and
// struct fields or interface methods), sorted, each starting with its
// kind and qualified name ("func NewApp", "method App.EndpointURL",
// "field App.Function"), comments dropped.
func API(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		return nil, err
	}
	var lines []string
	for name, p := range pkgs {
		if name == "main" {
			continue
		}
		d := doc.New(p, "", 0)
		src := func(n any) string {
			var b bytes.Buffer
			printer.Fprint(&b, fset, n)
			return strings.Join(strings.Fields(b.String()), " ")
		}
		values := func(kind string, vs []*doc.Value) {
			for _, v := range vs {
				var typ ast.Expr // a constant without type or value repeats the previous one's type (iota)
				for _, s := range v.Decl.Specs {
					vs := s.(*ast.ValueSpec)
					if vs.Type != nil || len(vs.Values) > 0 {
						typ = vs.Type
					}
					for i, n := range vs.Names {
						if !n.IsExported() {
							continue
						}
						line := kind + " " + n.Name
						if typ != nil {
							line += " " + src(typ)
						}
						if i < len(vs.Values) {
							line += " = " + src(vs.Values[i])
						}
						lines = append(lines, line)
					}
				}
			}
		}
		funcs := func(recv string, fs []*doc.Func) {
			for _, f := range fs {
				kind, name := "func", f.Name
				if recv != "" && f.Recv != "" {
					kind, name = "method", recv+"."+f.Name
				}
				lines = append(lines, kind+" "+name+strings.TrimPrefix(src(f.Decl.Type), "func"))
			}
		}
		values("const", d.Consts)
		values("var", d.Vars)
		funcs("", d.Funcs)
		for _, t := range d.Types {
			values("const", t.Consts)
			values("var", t.Vars)
			funcs("", t.Funcs)
			funcs(t.Name, t.Methods)
			spec := t.Decl.Specs[0].(*ast.TypeSpec)
			for _, s := range t.Decl.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.Name == t.Name {
					spec = ts
				}
			}
			head := "type " + t.Name
			if spec.TypeParams != nil {
				head += src(spec.TypeParams)
			}
			if spec.Assign.IsValid() {
				head += " ="
			}
			switch st := spec.Type.(type) {
			case *ast.StructType:
				lines = append(lines, head+" struct")
				for _, f := range st.Fields.List {
					typ := src(f.Type)
					if len(f.Names) == 0 {
						lines = append(lines, "field "+t.Name+"."+strings.TrimPrefix(typ, "*")+" (embedded)")
					}
					for _, n := range f.Names {
						lines = append(lines, "field "+t.Name+"."+n.Name+" "+typ)
					}
				}
			case *ast.InterfaceType:
				lines = append(lines, head+" interface")
				for _, f := range st.Methods.List {
					f.Doc, f.Comment = nil, nil
					if len(f.Names) == 0 {
						lines = append(lines, "method "+t.Name+"."+src(f.Type)+" (embedded)")
					}
					for _, n := range f.Names {
						lines = append(lines, "method "+t.Name+"."+n.Name+strings.TrimPrefix(src(f.Type), "func"))
					}
				}
			default:
				lines = append(lines, head+" "+src(spec.Type))
			}
		}
	}
	sort.Strings(lines)
	return lines, nil
}

// Name is the qualified name a line of API declares: "App.EndpointURL"
// for "method App.EndpointURL() *string".
func Name(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return line
	}
	n := f[1]
	if i := strings.IndexAny(n, "([="); i > 0 {
		n = n[:i]
	}
	return n
}

// Generate writes the API files of every public package under root.
func Generate(root string) error {
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		return err
	}
	for _, p := range Public {
		lines, err := API(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := os.WriteFile(filepath.Join(root, Dir, FileName(p)), []byte(Text(p, lines)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Text is the content of a package's API file.
func Text(pkg string, lines []string) string {
	return "# Exported API of github.com/framework-dev/framework/" + pkg + " (generated by `go generate ./internal/apicheck`; do not edit)\n" +
		strings.Join(lines, "\n") + "\n"
}

// Release copies the API files to ReleasedDir: run it when a version is
// released, so that the next changes are checked against that version.
func Release(root string) error {
	if err := os.MkdirAll(filepath.Join(root, ReleasedDir), 0o755); err != nil {
		return err
	}
	for _, p := range Public {
		b, err := os.ReadFile(filepath.Join(root, Dir, FileName(p)))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(root, ReleasedDir, FileName(p)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Changed returns the names whose lines differ between two API files'
// contents (added, removed or changed), sorted, without duplicates.
func Changed(old, new string) []string {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				m[l] = true
			}
		}
		return m
	}
	o, n := set(old), set(new)
	names := map[string]bool{}
	for l := range o {
		if !n[l] {
			names[Name(l)] = true
		}
	}
	for l := range n {
		if !o[l] {
			names[Name(l)] = true
		}
	}
	var out []string
	for k := range names {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TopSection returns the text of CHANGELOG.md's first "## " section (the
// unreleased or current version) and its heading.
func TopSection(changelog string) (heading, body string) {
	lines := strings.Split(changelog, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			end := len(lines)
			for j := i + 1; j < len(lines); j++ {
				if strings.HasPrefix(lines[j], "## ") {
					end = j
					break
				}
			}
			return strings.TrimSpace(l[3:]), strings.Join(lines[i+1:end], "\n")
		}
	}
	return "", ""
}

// Unmentioned returns the names of changed that the changelog section
// does not mention: a name is mentioned when it appears as a word, e.g.
// `App.EndpointURL` or `NewApp` (a member may also be named by its
// type's and its own name separated by a dot only).
func Unmentioned(section string, changed []string) []string {
	var out []string
	for _, n := range changed {
		if !mentions(section, n) {
			out = append(out, n)
		}
	}
	return out
}

func mentions(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !isIdent(text[start-1])) && (end == len(text) || !isIdent(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isIdent(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
