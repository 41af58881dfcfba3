// Package userfile reads the files a user writes or names for the CLI
// (.framework/config.json, the policy files, invoke's event) so that a
// wrong path cannot hang the CLI or exhaust its memory: it reads only a
// regular file (a symbolic link to one is fine), and only up to a size
// limit, refusing anything else with one line that names the path.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxProjectFile is the size limit of the files in a project's .framework
// directory: config.json, policy.json and a REST API resource policy. Real
// ones are a few KB (Lambda allows 4 KB of environment variables, IAM 10 KB
// of inline role policy), so 1 MiB refuses no real file by a wide margin
// while reading one costs nothing.
const MaxProjectFile = 1 << 20

// Error is a file refused by Read or ReadStream.
type Error struct {
	// Path is the file as given.
	Path string
	// Msg says what the file is and what to do.
	Msg string
}

// Error formats the refusal as "path: message".
func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Read returns the contents of the file at path. It refuses, with an
// *Error, anything that is not a regular file once symbolic links are
// followed (a directory, a named pipe, a device such as /dev/zero, a
// socket) and a file larger than max bytes; what names the file's role in
// the message ("the project configuration"). The type is checked before
// the file is opened, and the file is opened without blocking, so a named
// pipe is refused at once instead of waiting for a writer; the read stops
// after max+1 bytes, so a file that grows after the check is refused too.
// Other errors are those of os.Stat and os.Open (fs.ErrNotExist for a
// missing file).
func Read(path, what string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, what, fi.Mode())
	}
	if fi.Size() > max {
		return nil, tooLarge(path, what, fi.Size(), max)
	}
	// O_NONBLOCK: the file may have been replaced by a named pipe since
	// the Stat above; it has no effect on reading a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, what, fi.Mode())
	}
	return readMax(f, path, what, max)
}

// ReadStream reads r to its end, refusing with an *Error input longer
// than max bytes; name says where r comes from ("standard input") and what
// its role, as for Read.
func ReadStream(r io.Reader, name, what string, max int64) ([]byte, error) {
	return readMax(r, name, what, max)
}

// readMax reads at most max+1 bytes of r: one more than max means too much.
func readMax(r io.Reader, name, what string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(name, what, -1, max)
	}
	return data, nil
}

func notRegular(path, what string, mode fs.FileMode) error {
	kind := kindOf(mode)
	if li, err := os.Lstat(path); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if target, err := os.Readlink(path); err == nil {
			kind = fmt.Sprintf("a symbolic link to %s, %s", target, kind)
		}
	}
	return &Error{Path: path, Msg: fmt.Sprintf("is %s, not a regular file: %s must be a regular file (a symbolic link to one is fine)", kind, what)}
}

// tooLarge refuses a file of size bytes (-1 when not known) over max.
func tooLarge(path, what string, size, max int64) error {
	is := "is larger than " + sizeText(max)
	switch {
	case size >= 0 && sizeText(size) == sizeText(max):
		// Rounded alike ("is 1 MiB, more than 1 MiB"): say it in bytes.
		is = fmt.Sprintf("is %s bytes, more than %s (%s bytes)", groupDigits(size), sizeText(max), groupDigits(max))
	case size >= 0:
		is = "is " + sizeText(size) + ", more than " + sizeText(max)
	}
	return &Error{Path: path, Msg: fmt.Sprintf("%s, the limit for %s: check that it is the right file", is, what)}
}

func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// sizeText writes n bytes in the largest unit that keeps one decimal at most.
func sizeText(n int64) string {
	const kib, mib = 1 << 10, 1 << 20
	switch {
	case n >= mib:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/mib)) + " MiB"
	case n >= kib:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/kib)) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// IsRefused reports whether err is a refusal of Read or ReadStream (its
// message then names the file and says what to do).
func IsRefused(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// groupDigits writes n with a comma between groups of three digits.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
