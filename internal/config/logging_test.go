package config

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/names"
)

// log_level and log_sample_rate reach the functions' environment (deployed
// and local alike), a stage's replacing the top level's; bad values are
// refused with the key and what to write.
func TestLoggingKeys(t *testing.T) {
	f, err := Parse("config.json", []byte(`{"log_level": "warn", "stages": {"dev": {"log_level": "debug", "log_sample_rate": 0.25}, "prod": {}}}`))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := f.Stage("dev")
	if err != nil {
		t.Fatal(err)
	}
	if got := dev.EnvironmentVariables[names.EnvLogLevel]; got != "debug" {
		t.Errorf("dev: %s=%q, want debug", names.EnvLogLevel, got)
	}
	if got := dev.EnvironmentVariables[names.EnvLogSampleRate]; got != "0.25" {
		t.Errorf("dev: %s=%q, want 0.25", names.EnvLogSampleRate, got)
	}
	prod, err := f.Stage("prod")
	if err != nil {
		t.Fatal(err)
	}
	if got := prod.EnvironmentVariables[names.EnvLogLevel]; got != "warn" {
		t.Errorf("prod: %s=%q, want warn (the top level's)", names.EnvLogLevel, got)
	}
	if _, set := prod.EnvironmentVariables[names.EnvLogSampleRate]; set {
		t.Errorf("prod: %s set without log_sample_rate", names.EnvLogSampleRate)
	}

	for _, tc := range []struct{ json, want string }{
		{`{"log_level": "verbose"}`, `log_level: "verbose" is not a log level: use one of debug, info, warn, error`},
		{`{"log_level": "DEBUG"}`, `log_level: "DEBUG": write it in lower case, "debug"`},
		{`{"log_level": "warning"}`, `log_level: "warning": write "warn"`},
		{`{"stages": {"dev": {"log_sample_rate": 10}}}`, `stages.dev.log_sample_rate: 10 is out of range`},
		{`{"log_sample_rate": "0.1"}`, `log_sample_rate: must be a number from 0 to 1`},
		{`{"log_levle": "debug"}`, `did you mean "log_level"?`},
	} {
		_, err := Parse("config.json", []byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.json, err, tc.want)
		}
	}
}
