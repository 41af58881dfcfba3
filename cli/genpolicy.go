package cli

import "errors"

// GenPolicyCmd is a placeholder until its issue lands; its owner replaces this file.
type GenPolicyCmd struct{}

// Run reports that the command is not available yet.
func (c *GenPolicyCmd) Run() error { return errors.New("not available in this build yet") }
