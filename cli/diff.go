package cli

import "errors"

// DiffCmd is a placeholder until its issue lands; its owner replaces this file.
type DiffCmd struct{}

// Run reports that the command is not available yet.
func (c *DiffCmd) Run() error { return errors.New("not available in this build yet") }
