package userfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "event.json")
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 1024)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(path, "the event", 1024); err != nil || len(b) != 1024 {
		t.Errorf("Read of a file of exactly the limit = %d bytes, %v; want it whole", len(b), err)
	}
	_, err := Read(path, "the event", 1000)
	if want := path + ": is 1 KiB, more than 1000 bytes, the limit for the event: check that it is the right file"; err == nil || err.Error() != want || !IsRefused(err) {
		t.Errorf("Read over the limit = %v\nwant %s", err, want)
	}
	if _, err := Read(filepath.Join(dir, "none.json"), "the event", 1000); !errors.Is(err, fs.ErrNotExist) || IsRefused(err) {
		t.Errorf("Read of a missing file = %v; want the not-exist error of os", err)
	}
}

// TestReadStreamLimit: a stream has no size to check first; its read stops
// one byte past the limit.
func TestReadStreamLimit(t *testing.T) {
	if b, err := ReadStream(strings.NewReader("{}"), "standard input", "the event", 2); err != nil || string(b) != "{}" {
		t.Errorf("ReadStream within the limit = %q, %v", b, err)
	}
	_, err := ReadStream(strings.NewReader(strings.Repeat(" ", 3<<20)), "standard input", "the event", 2<<20)
	if want := "standard input: is larger than 2 MiB, the limit for the event: check that it is the right file"; err == nil || err.Error() != want {
		t.Errorf("ReadStream over the limit = %v\nwant %s", err, want)
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{512: "512 bytes", 1536: "1.5 KiB", 1 << 20: "1 MiB", 6 << 20: "6 MiB", 2<<20 + 300<<10: "2.3 MiB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTooLargeByAFewBytes: a file just over the limit, whose size rounds to
// the limit's, is described in bytes, so the message never reads "is 1 MiB,
// more than 1 MiB".
func TestTooLargeByAFewBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, make([]byte, MaxProjectFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(path, "the project configuration", MaxProjectFile)
	want := path + ": is 1,048,577 bytes, more than 1 MiB (1,048,576 bytes), the limit for the project configuration: check that it is the right file"
	if err == nil || err.Error() != want {
		t.Errorf("Read of a file one byte over the limit = %v\nwant %s", err, want)
	}
}
