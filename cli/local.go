package cli

import "errors"

// LocalCmd is a placeholder until its issue lands; its owner replaces this file.
type LocalCmd struct{}

// Run reports that the command is not available yet.
func (c *LocalCmd) Run() error { return errors.New("not available in this build yet") }
