package cli

import "errors"

// DeployCmd is a placeholder until its issue lands; its owner replaces this file.
type DeployCmd struct{}

// Run reports that the command is not available yet.
func (c *DeployCmd) Run() error { return errors.New("not available in this build yet") }
