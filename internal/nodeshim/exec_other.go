//go:build !unix

package nodeshim

import "errors"

const supported = false

func execInOwnGroup(path string, argv, env []string) error {
	return errors.New("not supported on this system")
}

func kill(int) bool { return false }
