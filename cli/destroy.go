package cli

import "errors"

// DestroyCmd is a placeholder until its issue lands; its owner replaces this file.
type DestroyCmd struct{}

// Run reports that the command is not available yet.
func (c *DestroyCmd) Run() error { return errors.New("not available in this build yet") }
