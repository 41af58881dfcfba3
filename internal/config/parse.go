package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/userfile"
)

// Keys allowed in a stage object and, with topOnlyKeys, at the top level:
// the rows of the key table (keys.go), which the parser reads and no other.
var settingKeys = perStageKeys(false)

var topOnlyKeys = keyNames(TopLevel)

// isStageKey reports whether key is in the table as a key of the top level
// and of each stage.
func isStageKey(key string) bool {
	return slices.Contains(settingKeys, key) || slices.Contains(operationKeys, key)
}

// parser collects every problem of one file rather than stopping at the first.
type parser struct {
	path string
	errs []error
}

func (p *parser) errorf(key, format string, args ...any) {
	p.errs = append(p.errs, &Error{Path: p.path, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// member is one key of a JSON object, in document order.
type member struct {
	key   string
	value json.RawMessage
}

func (p *parser) parse(data []byte) *File {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark some editors write
	if len(bytes.TrimSpace(data)) == 0 {
		p.errorf("", "the file is empty: it must hold a JSON object, for example {\"version\": %q, \"app_name\": \"hello\"}", FormatVersion)
		return nil
	}
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		p.syntaxError(data, err)
		return nil
	}
	members, ok := p.object("", data)
	if !ok {
		return nil
	}
	f := &File{Path: p.path, Version: FormatVersion}
	for _, m := range members {
		switch m.key {
		case "version":
			if v := p.str(m.key, m.value); v != nil {
				f.Version = *v
				if *v != FormatVersion {
					p.errorf(m.key, "unsupported configuration version %q: this framework reads version %q", *v, FormatVersion)
				}
			}
		case "app_name":
			if v := p.str(m.key, m.value); v != nil {
				if err := CheckAppName(*v); err != nil {
					p.errorf(m.key, "%v", err)
				}
				f.AppName = *v
			}
		case "stages":
			f.Stages = p.stages(m.value)
		case "$schema":
			// For editors (see Keys); the framework keeps it and reads nothing from it.
			if v := p.str(m.key, m.value); v != nil {
				f.Schema = *v
			}
		default:
			if isStageKey(m.key) && p.setting(&f.Defaults, "", m) {
				continue
			}
			p.unknownKey(m.key, "", append(append([]string{}, topOnlyKeys...), settingKeys...))
		}
	}
	if len(p.errs) > 0 {
		return nil
	}
	// Cross-key checks of every declared stage, so that a bad stage is found
	// when the file is read rather than at deploy time. Stages the file does
	// not declare are checked when they are resolved (see File.Stage).
	// A file without stages is checked as the default stage would use it.
	for _, name := range f.StageNames() {
		_, errs := resolve(p.path, name, f.Defaults, f.Stages[name], true)
		p.errs = append(p.errs, errs...)
	}
	if len(f.Stages) == 0 {
		_, errs := resolve(p.path, DefaultStage, f.Defaults, Settings{}, false)
		p.errs = append(p.errs, errs...)
	}
	return f
}

// syntaxError reports malformed JSON with the line and column of the problem.
func (p *parser) syntaxError(data []byte, err error) {
	index := -1 // of the offending byte
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		index = int(se.Offset) - 1 // Offset counts the bytes read, the bad one included
	case errors.As(err, &te):
		index = int(te.Offset) - 1
	}
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "unexpected end of JSON input") {
		index = len(bytes.TrimRight(data, " \t\r\n")) // just after the last character
		msg = "unexpected end of file: a closing brace, bracket or quote is missing"
	}
	e := &Error{Path: p.path, Msg: "invalid JSON: " + msg}
	if index >= 0 {
		e.Line, e.Column = userfile.LineColumn(data, index)
	}
	p.errs = append(p.errs, e)
}

// jsonType names the JSON type of raw for error messages.
func jsonType(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// object splits raw into its members in document order. It reports a
// non-object and duplicate keys.
func (p *parser) object(key string, raw json.RawMessage) ([]member, bool) {
	if t := jsonType(raw); t != "an object" {
		where := key
		if where == "" {
			p.errorf("", "the file must hold a JSON object, not %s", t)
		} else {
			p.errorf(where, "must be an object, not %s", t)
		}
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '{'
		p.errorf(key, "invalid JSON object: %v", err)
		return nil, false
	}
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			p.errorf(key, "invalid JSON object: %v", err)
			return nil, false
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			p.errorf(join(key, k), "invalid JSON value: %v", err)
			return nil, false
		}
		if seen[k] {
			p.errorf(join(key, k), "the key appears more than once: keep one")
			continue
		}
		seen[k] = true
		members = append(members, member{key: k, value: v})
	}
	return members, true
}

func (p *parser) boolean(key string, raw json.RawMessage) *bool {
	var b bool
	if jsonType(raw) != "a boolean" || json.Unmarshal(raw, &b) != nil {
		hint := ""
		if s := strings.Trim(string(bytes.TrimSpace(raw)), `"`); s == "true" || s == "false" {
			hint = fmt.Sprintf(": write %s without quotes", s)
		}
		p.errorf(key, "must be true or false, not %s%s", jsonType(raw), hint)
		return nil
	}
	return &b
}

func (p *parser) str(key string, raw json.RawMessage) *string {
	var s string
	if jsonType(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		p.errorf(key, "must be a string, not %s", jsonType(raw))
		return nil
	}
	return &s
}

// integer reads a whole number; unit names it in messages ("MB", "seconds").
func (p *parser) integer(key string, raw json.RawMessage, unit string) *int {
	t := jsonType(raw)
	text := string(bytes.TrimSpace(raw))
	if t != "a number" {
		hint := ""
		if t == "a string" {
			if s, err := strconv.Unquote(text); err == nil {
				if _, err := strconv.Atoi(s); err == nil {
					hint = fmt.Sprintf(": write %s without quotes", s)
				}
			}
		}
		p.errorf(key, "must be a whole number of %s, not %s%s", unit, t, hint)
		return nil
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		if f, ferr := strconv.ParseFloat(text, 64); ferr == nil && f == float64(int64(f)) && f >= -1e15 && f <= 1e15 {
			n = int(f) // 512.0 or 5.12e2: a whole number written as a float
		} else {
			p.errorf(key, "must be a whole number of %s, not %s", unit, text)
			return nil
		}
	}
	return &n
}

// strmap reads an object of string values.
func (p *parser) strmap(key string, raw json.RawMessage) (map[string]string, []member) {
	members, ok := p.object(key, raw)
	if !ok {
		return nil, nil
	}
	m := make(map[string]string, len(members))
	var good []member
	for _, mem := range members {
		k := join(key, mem.key)
		var s string
		if jsonType(mem.value) != "a string" || json.Unmarshal(mem.value, &s) != nil {
			hint := ""
			if t := jsonType(mem.value); t == "a number" || t == "a boolean" {
				hint = fmt.Sprintf(": quote it, as in %q", string(bytes.TrimSpace(mem.value)))
			}
			p.errorf(k, "must be a string, not %s%s", jsonType(mem.value), hint)
			continue
		}
		m[mem.key] = s
		good = append(good, mem)
	}
	return m, good
}

// stages reads the "stages" object.
func (p *parser) stages(raw json.RawMessage) map[string]Settings {
	members, ok := p.object("stages", raw)
	if !ok {
		return nil
	}
	out := make(map[string]Settings, len(members))
	for _, m := range members {
		key := join("stages", m.key)
		if err := CheckStageName(m.key); err != nil {
			p.errorf(key, "%v", err)
			continue
		}
		fields, ok := p.object(key, m.value)
		if !ok {
			continue
		}
		var s Settings
		for _, f := range fields {
			if isStageKey(f.key) && p.setting(&s, key, f) {
				continue
			}
			if contains(topOnlyKeys, f.key) {
				p.errorf(join(key, f.key), "%s is only allowed at the top level of the file, not inside a stage", f.key)
				continue
			}
			p.unknownKey(f.key, key, settingKeys)
		}
		out[m.key] = s
	}
	return out
}

// setting reads one settings key into s; it returns false for a key that is
// not a setting. Its callers pass only keys that have a row in Keys
// (keys.go): a new key needs a row there too, or it is refused as unknown.
func (p *parser) setting(s *Settings, prefix string, m member) bool {
	key := join(prefix, m.key)
	switch m.key {
	case "manage_role":
		s.ManageRole = p.boolean(key, m.value)
	case "autogen_policy":
		s.AutogenPolicy = p.boolean(key, m.value)
	case "role_id":
		if v := p.str(key, m.value); v != nil {
			if err := checkRoleID(*v); err != nil {
				p.errorf(key, "%v", err)
			} else {
				s.RoleID = v
			}
		}
	case "lambda_memory_size":
		if v := p.integer(key, m.value, "MB"); v != nil {
			if err := CheckMemorySize(*v); err != nil {
				p.errorf(key, "%v", err)
			} else {
				s.LambdaMemorySize = v
			}
		}
	case "lambda_timeout":
		if v := p.integer(key, m.value, "seconds"); v != nil {
			if err := CheckTimeout(*v); err != nil {
				p.errorf(key, "%v", err)
			} else {
				s.LambdaTimeout = v
			}
		}
	case "architecture":
		if v := p.str(key, m.value); v != nil {
			if err := CheckArchitecture(*v); err != nil {
				p.errorf(key, "%v", err)
			} else {
				s.Architecture = v
			}
		}
	case "api_gateway_stage":
		if v := p.str(key, m.value); v != nil {
			if err := checkAPIGatewayStage(*v); err != nil {
				p.errorf(key, "%v", err)
			} else {
				s.APIGatewayStage = v
			}
		}
	case "environment_variables":
		env, members := p.strmap(key, m.value)
		where := "every stage"
		if stage, ok := strings.CutPrefix(prefix, "stages."); ok {
			where = fmt.Sprintf("stage %q", stage)
		}
		for _, mem := range members {
			if err := checkEnvName(mem.key); err != nil {
				p.errorf(join(key, mem.key), "%v", err)
			}
			// A process environment is a list of NUL-terminated strings:
			// a value holding a NUL cannot be given to a local function
			// process.
			if strings.ContainsRune(env[mem.key], 0) {
				p.errorf(join(key, mem.key), "the value of environment variable %q (%s) holds a NUL character (\\u0000), which no process environment can carry: remove it", mem.key, where)
				delete(env, mem.key)
			}
		}
		if env != nil {
			s.EnvironmentVariables = env
		}
	case "tags":
		tags, members := p.strmap(key, m.value)
		for _, mem := range members {
			if err := checkTag(mem.key, tags[mem.key]); err != nil {
				p.errorf(join(key, mem.key), "%v", err)
			}
		}
		if tags != nil {
			s.Tags = tags
		}
	case "lambda_functions":
		s.LambdaFunctions = p.lambdaFunctions(key, m.value)
	case "aws_endpoint":
		if v := p.str(key, m.value); v != nil {
			if err := CheckAWSEndpoint(*v); err != nil {
				p.errorf(key, "%v", err)
			} else {
				s.AWSEndpoint = v
			}
		}
	default:
		return p.operation(&s.OperationSettings, prefix, m) || p.frontDoor(&s.FrontDoorSettings, prefix, m) ||
			p.logging(&s.LoggingSettings, prefix, m)
	}
	return true
}

func (p *parser) unknownKey(key, prefix string, known []string) {
	msg := "unknown key"
	if s := closest(key, append(slices.Clip(known), operationKeys...)); s != "" {
		msg += fmt.Sprintf(": did you mean %q?", s)
	} else {
		msg += ": known keys are " + strings.Join(slices.Sorted(slices.Values(known)), ", ")
		msg += "; and to run the stage in production: " + strings.Join(slices.Sorted(slices.Values(operationKeys)), ", ")
	}
	p.errorf(join(prefix, key), "%s", msg)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// closest returns the known key nearest to key, or "" when none is near
// enough to be a likely typo. Case, hyphens and underscores are ignored first
// (lambdaMemorySize, lambda-timeout), then edit distance decides.
func closest(key string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	for _, k := range known {
		if norm(k) == norm(key) {
			return k
		}
	}
	best, bestDist := "", -1
	for _, k := range known {
		d := levenshtein(norm(key), norm(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	limit := max(2, len(norm(key))/3)
	if bestDist >= 0 && bestDist <= limit {
		return best
	}
	return ""
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
