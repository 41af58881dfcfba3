package cli

import "errors"

// SynthCmd is a placeholder until its issue lands; its owner replaces this file.
type SynthCmd struct{}

// Run reports that the command is not available yet.
func (c *SynthCmd) Run() error { return errors.New("not available in this build yet") }
