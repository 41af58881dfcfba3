package cli

import "errors"

// URLCmd is a placeholder until its issue lands; its owner replaces this file.
type URLCmd struct{}

// Run reports that the command is not available yet.
func (c *URLCmd) Run() error { return errors.New("not available in this build yet") }
