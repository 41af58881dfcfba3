// Package deploytest writes the small cloud assembly the deploy engine's
// tests deploy (stack hello-dev: template, asset manifest, manifest.json
// from internal/deploy/testdata/assembly) together with its Lambda package,
// a zip generated here rather than kept in the repository.
package deploytest

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// StackName is the fixture's stack.
const StackName = "hello-dev"

// AssetID is the id (and object key stem) of the fixture's Lambda package
// in its asset manifest.
const AssetID = "91adf477329c5deb37a7f712340221ae40dde686cc2c7cbf758a2b72098e681c"

// bootstrap is the package's only file: a stand-in function.
const bootstrap = "#!/bin/sh\necho stand-in function\n"

// Assembly writes the fixture assembly into dir, applying mutate (when not
// nil) to the decoded template first.
func Assembly(dir string, mutate func(tpl map[string]any)) error {
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(self), "..", "testdata", "assembly")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("fixture assembly: %w", err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if e.Name() == StackName+".template.json" && mutate != nil {
			var tpl map[string]any
			if err := json.Unmarshal(b, &tpl); err != nil {
				return err
			}
			mutate(tpl)
			if b, err = json.MarshalIndent(tpl, "", " "); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "asset."+AssetID+".zip"), Package(), 0o644)
}

// Package returns the fixture's Lambda package: a stored (uncompressed) zip
// of bootstrap, mode 0755, timestamp 1980-01-01, 149 bytes.
func Package() []byte { return packageOf(bootstrap) }

// packageOf returns a stored zip of one executable file bootstrap holding
// body.
func packageOf(body string) []byte {
	bootstrap := body
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{
		Name: "bootstrap", Method: zip.Store, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC),
		CRC32: crc32.ChecksumIEEE([]byte(bootstrap)), CompressedSize64: uint64(len(bootstrap)), UncompressedSize64: uint64(len(bootstrap)),
	}
	h.SetMode(0o755)
	w, err := zw.CreateRaw(h)
	if err == nil {
		_, err = w.Write([]byte(bootstrap))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		panic(err) // writing to memory
	}
	return buf.Bytes()
}

// Rebuild replaces the Lambda package of the assembly in dir with one
// whose bootstrap is body, as a build of changed source does: the new
// package gets its own asset id (its SHA-256), which the template and the
// asset manifest then name.
func Rebuild(dir, body string) error {
	pkg := packageOf(body)
	id := fmt.Sprintf("%x", sha256.Sum256(pkg))
	for _, name := range []string{StackName + ".template.json", StackName + ".assets.json"} {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if name == StackName+".template.json" {
			// Only the function's Code: the fixture's asset metadata is
			// left as it was, as the CLI's syntheses write none.
			b = bytes.ReplaceAll(b, []byte(`"`+AssetID+`.zip"`), []byte(`"`+id+`.zip"`))
		} else {
			b = bytes.ReplaceAll(b, []byte(AssetID), []byte(id))
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(dir, "asset."+AssetID+".zip")); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "asset."+id+".zip"), pkg, 0o644)
}
