//go:build !unix

package build

// LockFile is a no-op where flock(2) is not available; builds of one project
// are still serialized within a process.
func LockFile(path string) (func(), error) { return func() {}, nil }
