//go:build !unix

package build

// LockFile is a no-op where flock(2) is not available; builds of one project
// are still serialized within a process.
func LockFile(path string) (func(), error) { return func() {}, nil }

// LockFileShared is a no-op where flock(2) is not available.
func LockFileShared(path string) (func(), error) { return func() {}, nil }

// TryLockFile always succeeds where flock(2) is not available: the system
// refuses to remove a program that is running, the one case that matters
// there.
func TryLockFile(path string) (release func(), ok bool, err error) {
	return func() {}, true, nil
}
