//go:build !unix

package scratch

import (
	"errors"
	"os"
)

// Elsewhere the temporary directory is not named by TMPDIR alone and
// advisory locks differ: the CLI runs without a private directory.
const supported = false

func lockFile(*os.File) error { return errors.New("not supported") }
