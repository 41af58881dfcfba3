package config

import (
	"strings"
	"testing"
)

// TestErrorsQuoteControlCharacters: a key or value of the file holding an
// escape sequence is shown escaped in the error, never raw, so that the
// file cannot drive the terminal (clear it, recolour it).
func TestErrorsQuoteControlCharacters(t *testing.T) {
	for _, file := range []string{
		`{"stages": {"d\u001b[2Jev": {}}}`,
		`{"environment_variables": {"A\u001b[31mB": "x"}}`,
		`{"bogus\u001b[2J": 1}`,
		`{"stages": {"dev": {"lambda_functions": {"\u001b[2J": {"lambda_memory_size": 1}}}}}`,
		`{"tags": {"k": "\u001b[2J"}}`,
	} {
		_, err := Parse(path, []byte(file))
		if err == nil {
			t.Errorf("%s: no error", file)
			continue
		}
		msg := err.Error()
		if strings.ContainsRune(msg, 0x1b) {
			t.Errorf("%s: the error holds a raw ESC: %q", file, msg)
		}
		if !strings.Contains(msg, `\x1b[`) {
			t.Errorf("%s: the error does not show the ESC escaped: %q", file, msg)
		}
	}
}

// TestEnvironmentVariableNULRefused: a NUL in an environment variable's
// value, which no process environment can carry, is refused when the file
// is read, naming the file, the variable and the stage.
func TestEnvironmentVariableNULRefused(t *testing.T) {
	for _, tt := range []struct{ file, key, where string }{
		{`{"stages": {"dev": {"environment_variables": {"TOKEN": "a\u0000b"}}}}`, "stages.dev.environment_variables.TOKEN", `(stage "dev")`},
		{`{"environment_variables": {"TOKEN": "a\u0000b"}, "stages": {"dev": {}}}`, "environment_variables.TOKEN", "(every stage)"},
	} {
		_, err := Parse(path, []byte(tt.file))
		if err == nil {
			t.Errorf("%s: accepted", tt.file)
			continue
		}
		msg := err.Error()
		for _, want := range []string{path + ": " + tt.key + ": ", `environment variable "TOKEN"`, tt.where, "NUL"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q does not say %q", tt.file, msg, want)
			}
		}
		if strings.ContainsRune(msg, 0) {
			t.Errorf("%s: the error holds a raw NUL: %q", tt.file, msg)
		}
	}
}
