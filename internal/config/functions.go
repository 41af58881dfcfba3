package config

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
)

// FunctionSettings are the keys of one entry of lambda_functions: the
// settings of one event handler's or plain function's Lambda function,
// overriding the stage's (top-level) values for that function only.
type FunctionSettings struct {
	LambdaMemorySize *int `json:"lambda_memory_size,omitempty"`
	LambdaTimeout    *int `json:"lambda_timeout,omitempty"`
}

// FunctionConfig is the resolved memory and timeout of one function.
type FunctionConfig struct {
	// LambdaMemorySize is the function's memory in MB.
	LambdaMemorySize int
	// LambdaTimeout is the function's timeout in seconds.
	LambdaTimeout int
}

// functionKeys are the keys allowed in an entry of lambda_functions.
var functionKeys = nestedKeyNames("lambda_functions")

// functionNameRe is the rule of a function's name (the runtime's).
var functionNameRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// lambdaFunctions reads lambda_functions: an object whose keys are
// function names and whose values hold the keys functionKeys.
func (p *parser) lambdaFunctions(key string, raw json.RawMessage) map[string]FunctionSettings {
	members, ok := p.object(key, raw)
	if !ok {
		return nil
	}
	out := make(map[string]FunctionSettings, len(members))
	for _, m := range members {
		fkey := join(key, m.key)
		if !functionNameRe.MatchString(m.key) {
			p.errorf(fkey, "%q is not a function name: use the name the app registers the handler with (letters, digits, - and _, starting with a letter)", m.key)
			continue
		}
		fields, ok := p.object(fkey, m.value)
		if !ok {
			continue
		}
		var fs FunctionSettings
		for _, f := range fields {
			var s Settings
			switch f.key {
			case "lambda_memory_size", "lambda_timeout":
				p.setting(&s, fkey, f)
				fs.LambdaMemorySize = cmpOr(s.LambdaMemorySize, fs.LambdaMemorySize)
				fs.LambdaTimeout = cmpOr(s.LambdaTimeout, fs.LambdaTimeout)
			default:
				p.unknownKey(f.key, fkey, functionKeys)
			}
		}
		out[m.key] = fs
	}
	return out
}

func cmpOr(a, b *int) *int {
	if a != nil {
		return a
	}
	return b
}

// resolveFunctions merges lambda_functions of the top level and the stage,
// key by key, over the stage's resolved memory and timeout.
func resolveFunctions(s *Stage, layers ...Settings) map[string]FunctionConfig {
	var names []string
	for _, l := range layers {
		names = append(names, slices.Collect(maps.Keys(l.LambdaFunctions))...)
	}
	if len(names) == 0 {
		return nil
	}
	out := map[string]FunctionConfig{}
	for _, name := range names {
		fc := FunctionConfig{LambdaMemorySize: s.LambdaMemorySize, LambdaTimeout: s.LambdaTimeout}
		for _, l := range layers {
			if f, ok := l.LambdaFunctions[name]; ok {
				if f.LambdaMemorySize != nil {
					fc.LambdaMemorySize = *f.LambdaMemorySize
				}
				if f.LambdaTimeout != nil {
					fc.LambdaTimeout = *f.LambdaTimeout
				}
			}
		}
		out[name] = fc
	}
	return out
}
