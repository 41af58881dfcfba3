//go:build unix

package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/framework-dev/framework/internal/userfile/userfiletest"
)

// TestLoadRefusesWhatIsNotASmallRegularFile: a config.json that is a
// device, a named pipe, a directory or a huge file gets one line naming
// the file, at once: a symbolic link to /dev/zero once grew the CLI to
// 23 GB, and a named pipe would block it until a writer came.
func TestLoadRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	valid := `{"version": "1.0", "app_name": "hello"}`
	tests := []struct {
		name  string
		make  func(t *testing.T, path string)
		wants []string // parts of the error; none: Load must succeed
	}{
		{"symlink to /dev/zero", func(t *testing.T, path string) {
			must(t, os.Symlink("/dev/zero", path))
		}, []string{"config.json: is a symbolic link to /dev/zero, a character device, not a regular file: the project configuration must be a regular file (a symbolic link to one is fine)"}},
		{"named pipe", func(t *testing.T, path string) {
			must(t, syscall.Mkfifo(path, 0o644))
		}, []string{"config.json: is a named pipe (FIFO), not a regular file:"}},
		{"directory", func(t *testing.T, path string) {
			must(t, os.Mkdir(path, 0o755))
		}, []string{"config.json: is a directory, not a regular file:"}},
		{"2 MiB file", func(t *testing.T, path string) {
			must(t, os.WriteFile(path, []byte(strings.Repeat(" ", 2<<20)+valid), 0o644))
		}, []string{"config.json: is 2 MiB, more than 1 MiB, the limit for the project configuration: check that it is the right file"}},
		{"dangling symlink", func(t *testing.T, path string) {
			must(t, os.Symlink("../shared/config.json", path))
		}, []string{"config.json: is a symbolic link to ../shared/config.json, which does not exist: restore the file it points to"}},
		{"symlink to a valid file", func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "shared.json")
			must(t, os.WriteFile(target, []byte(valid), 0o644))
			must(t, os.Symlink(target, path))
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := FilePath(dir)
			must(t, os.MkdirAll(filepath.Dir(path), 0o755))
			tt.make(t, path)
			type result struct {
				f   *File
				err error
			}
			r := userfiletest.Within(t, "Load", func() result { f, err := Load(dir); return result{f, err} })
			if tt.wants == nil {
				if r.err != nil || r.f.AppName != "hello" {
					t.Fatalf("Load = %+v, %v; want the file the link leads to", r.f, r.err)
				}
				return
			}
			if r.err == nil {
				t.Fatalf("Load succeeded; want an error containing %q", tt.wants)
			}
			// Not an absent file, which commands take for "serve with the defaults".
			if errors.Is(r.err, fs.ErrNotExist) {
				t.Errorf("error %q is fs.ErrNotExist: commands would use the defaults", r.err)
			}
			msg := r.err.Error()
			if !strings.HasPrefix(msg, path+": ") || strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line starting with the file's path %s", msg, path)
			}
			for _, want := range tt.wants {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q\ndoes not contain %q", msg, want)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLoadAPIGatewayPolicyRefusesSpecialFiles: api_gateway_policy_file
// naming a named pipe or a link to /dev/zero gets the same refusal as
// config.json, under the key that names it.
func TestLoadAPIGatewayPolicyRefusesSpecialFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".framework")
	must(t, os.MkdirAll(dir, 0o755))
	userfiletest.Specials(t, dir)
	for file, want := range map[string]string{
		"fifo.json": "config.json: stages.prod.api_gateway_policy_file: " + filepath.Join(dir, "fifo.json") + ": is a named pipe (FIFO), not a regular file: the REST API's resource policy must be a regular file",
		"zero.json": "config.json: stages.prod.api_gateway_policy_file: " + filepath.Join(dir, "zero.json") + ": is a symbolic link to /dev/zero, a character device, not a regular file:",
	} {
		t.Run(file, func(t *testing.T) {
			f, err := Parse(filepath.Join(dir, "config.json"), []byte(`{"stages": {"prod": {"api_gateway_endpoint_type": "PRIVATE", "api_gateway_policy_file": "`+file+`"}}}`))
			must(t, err)
			s, err := f.Stage("prod")
			must(t, err)
			err = userfiletest.Within(t, "LoadAPIGatewayPolicy", func() error { _, err := s.LoadAPIGatewayPolicy(); return err })
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v\nwant it to contain %q", err, want)
			}
		})
	}
}
