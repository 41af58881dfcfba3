package config

import (
	"strings"
	"testing"
)

func TestLambdaDefaultsAndChecks(t *testing.T) {
	if got, want := (Lambda{}).WithDefaults(), (Lambda{DefaultLambdaMemorySize, DefaultLambdaTimeout, DefaultArchitecture}); got != want {
		t.Errorf("Lambda{}.WithDefaults() = %+v, want %+v", got, want)
	}
	if err := (Lambda{}).WithDefaults().Check(); err != nil {
		t.Errorf("defaults refused: %v", err)
	}
	set := Lambda{MemorySize: 1024, Timeout: 5, Architecture: ArchX8664}
	if got := set.WithDefaults(); got != set {
		t.Errorf("WithDefaults changed set values: %+v", got)
	}
	for l, want := range map[Lambda]string{
		{MemorySize: 64, Timeout: 60, Architecture: ArchARM64}:     "memory size 64 is out of range: Lambda allows 128 to 10240 MB",
		{MemorySize: 128, Timeout: 901, Architecture: ArchARM64}:   "timeout 901 is out of range: Lambda allows 1 to 900 seconds",
		{MemorySize: 128, Timeout: 60, Architecture: "amd64"}:      `architecture "amd64" is not a Lambda architecture: did you mean "x86_64"?`,
		{MemorySize: 128, Timeout: 60, Architecture: "mips"}:       `architecture "mips" is not a Lambda architecture: use "arm64" (the default, Graviton) or "x86_64"`,
		{MemorySize: 0, Timeout: 0, Architecture: ""}:              "memory size 0 is out of range",
		{MemorySize: 10240, Timeout: 900, Architecture: ArchX8664}: "",
	} {
		err := l.Check()
		switch {
		case want == "" && err != nil:
			t.Errorf("%+v refused: %v", l, err)
		case want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)):
			t.Errorf("%+v: err = %v, want it to start with %q", l, err, want)
		}
	}
}
