package cli

import "errors"

// NewProjectCmd is a placeholder until its issue lands; its owner replaces this file.
type NewProjectCmd struct{}

// Run reports that the command is not available yet.
func (c *NewProjectCmd) Run() error { return errors.New("not available in this build yet") }
