// Package deploytest writes the small cloud assembly the deploy engine's
// tests deploy (stack hello-dev: template, asset manifest, manifest.json
// from internal/deploy/testdata/assembly) together with its Lambda package,
// a zip generated here rather than kept in the repository.
package deploytest

import (
	"archive/zip"
	"bytes"
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
func Package() []byte {
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
