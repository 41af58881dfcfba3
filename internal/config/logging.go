package config

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/names"
)

// Log levels of framework.Logger (log_level).
var logLevels = []string{"debug", "info", "warn", "error"}

// LoggingSettings are framework.Logger's level and debug sampling,
// allowed at the top level and in a stage; a stage's value replaces the
// top level's.
type LoggingSettings struct {
	LogLevel      *string  `json:"log_level,omitempty"`
	LogSampleRate *float64 `json:"log_sample_rate,omitempty"`
}

// Logging is a stage's resolved logging: the zero value is level info,
// no sampling.
type Logging struct {
	// LogLevel is the lowest level framework.Logger writes: debug, info,
	// warn or error; empty means info.
	LogLevel string
	// LogSampleRate is the share of invocations (0 to 1) whose logger
	// writes debug records whatever LogLevel says.
	LogSampleRate float64
}

// Environ returns the variables that carry l to the app's functions,
// deployed and local (names.EnvLogLevel, names.EnvLogSampleRate); none
// for the defaults.
func (l Logging) Environ() map[string]string {
	env := map[string]string{}
	if l.LogLevel != "" && l.LogLevel != "info" {
		env[names.EnvLogLevel] = l.LogLevel
	}
	if l.LogSampleRate > 0 {
		env[names.EnvLogSampleRate] = strconv.FormatFloat(l.LogSampleRate, 'g', -1, 64)
	}
	return env
}

// logging reads one logging key into s; it returns false for a key that
// is not one.
func (p *parser) logging(s *LoggingSettings, prefix string, m member) bool {
	key := join(prefix, m.key)
	switch m.key {
	case "log_level":
		v := p.str(key, m.value)
		if v == nil {
			return true
		}
		switch low := strings.ToLower(*v); {
		case contains(logLevels, *v):
			s.LogLevel = v
		case low == "warning":
			p.errorf(key, "%q: write %q", *v, "warn")
		case contains(logLevels, low):
			p.errorf(key, "%q: write it in lower case, %q", *v, low)
		default:
			p.errorf(key, "%q is not a log level: use one of %s", *v, strings.Join(logLevels, ", "))
		}
	case "log_sample_rate":
		var f float64
		if jsonType(m.value) != "a number" || json.Unmarshal(m.value, &f) != nil {
			p.errorf(key, "must be a number from 0 to 1 (the share of invocations logged at debug level), not %s", jsonType(m.value))
			return true
		}
		if f < 0 || f > 1 {
			p.errorf(key, "%v is out of range: give the share of invocations logged at debug level, from 0 (none) to 1 (all); 0.1 is one in ten", f)
			return true
		}
		s.LogSampleRate = &f
	default:
		return false
	}
	return true
}

// resolveLogging sets s.Logging from the top level and the stage, and
// the variables that carry it in s.EnvironmentVariables.
func resolveLogging(s *Stage, top, st Settings) {
	for _, l := range []LoggingSettings{top.LoggingSettings, st.LoggingSettings} {
		if l.LogLevel != nil {
			s.Logging.LogLevel = *l.LogLevel
		}
		if l.LogSampleRate != nil {
			s.Logging.LogSampleRate = *l.LogSampleRate
		}
	}
	for k, v := range s.Logging.Environ() {
		if _, set := s.EnvironmentVariables[k]; !set {
			s.EnvironmentVariables[k] = v
		}
	}
}
