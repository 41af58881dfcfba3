package config

import (
	"cmp"
	"fmt"
	"strings"
)

// Lambda is a function's memory, timeout and architecture: the settings
// whose defaults and limits are Lambda's. The construct resolves its own
// Config through it, so that a configuration file and a Config written by
// hand get the same defaults and the same checks.
type Lambda struct {
	// MemorySize is in MB; 0 means DefaultLambdaMemorySize.
	MemorySize int
	// Timeout is in seconds; 0 means DefaultLambdaTimeout.
	Timeout int
	// Architecture is ArchARM64 or ArchX8664; empty means DefaultArchitecture.
	Architecture string
}

// WithDefaults returns l with the default in place of each zero value.
func (l Lambda) WithDefaults() Lambda {
	l.MemorySize = cmp.Or(l.MemorySize, DefaultLambdaMemorySize)
	l.Timeout = cmp.Or(l.Timeout, DefaultLambdaTimeout)
	l.Architecture = cmp.Or(l.Architecture, DefaultArchitecture)
	return l
}

// Check returns an error naming the first of l's memory size, timeout and
// architecture that Lambda refuses, or nil. It does not apply defaults: a
// zero memory size or timeout is out of range.
func (l Lambda) Check() error {
	if err := CheckMemorySize(l.MemorySize); err != nil {
		return fmt.Errorf("memory size %w", err)
	}
	if err := CheckTimeout(l.Timeout); err != nil {
		return fmt.Errorf("timeout %w", err)
	}
	if err := CheckArchitecture(l.Architecture); err != nil {
		return fmt.Errorf("architecture %w", err)
	}
	return nil
}

// CheckMemorySize returns an error when mb is outside Lambda's range,
// MinLambdaMemorySize to MaxLambdaMemorySize.
func CheckMemorySize(mb int) error {
	if mb < MinLambdaMemorySize || mb > MaxLambdaMemorySize {
		return fmt.Errorf("%d is out of range: Lambda allows %d to %d MB", mb, MinLambdaMemorySize, MaxLambdaMemorySize)
	}
	return nil
}

// CheckTimeout returns an error when seconds is outside Lambda's range,
// MinLambdaTimeout to MaxLambdaTimeout.
func CheckTimeout(seconds int) error {
	if seconds < MinLambdaTimeout || seconds > MaxLambdaTimeout {
		return fmt.Errorf("%d is out of range: Lambda allows %d to %d seconds (and API Gateway ends a request after 29 seconds whatever the timeout)", seconds, MinLambdaTimeout, MaxLambdaTimeout)
	}
	return nil
}

// CheckArchitecture returns an error unless arch is ArchARM64 or
// ArchX8664; for a name Go or another tool uses for one of them (amd64,
// aarch64, ...) the error says which to write.
func CheckArchitecture(arch string) error {
	switch arch {
	case ArchARM64, ArchX8664:
		return nil
	}
	hint := fmt.Sprintf("use %q (the default, Graviton) or %q", ArchARM64, ArchX8664)
	switch strings.ToLower(arch) {
	case "amd64", "x86-64", "x64", ArchX8664, "intel":
		hint = fmt.Sprintf("did you mean %q? (Lambda's name for amd64)", ArchX8664)
	case "aarch64", "arm", ArchARM64, "graviton":
		hint = fmt.Sprintf("did you mean %q?", ArchARM64)
	}
	return fmt.Errorf("%q is not a Lambda architecture: %s", arch, hint)
}
