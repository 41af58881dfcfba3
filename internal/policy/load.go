package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"github.com/framework-dev/framework/internal/names"
	"github.com/framework-dev/framework/internal/userfile"
)

// LoadError is a problem found in a hand-written policy file: the file, the
// line and column when the problem has a place (0 otherwise), and what is
// wrong.
type LoadError struct {
	Path   string
	Line   int
	Column int
	Msg    string
	Err    error
}

// Error formats the problem as "file:line:col: message".
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Unwrap returns the underlying error, if any.
func (e *LoadError) Unwrap() error { return e.Err }

// Load reads a policy document written by hand, usually
// .framework/policy.json, which deploy and synth give the function's role
// as written with --no-autogen-policy or "autogen_policy": false. Action and Resource may
// be a string or a list of strings, as in IAM. Keys the framework cannot
// apply faithfully (Condition, NotAction, Principal, ...) are errors rather
// than being dropped, since dropping a Condition would widen the policy.
// Anything but a regular file (a symbolic link to one is fine) and a file
// over userfile.MaxProjectFile are refused without being read whole.
// Errors are *LoadError values naming the file and the line:column.
func Load(path string) (*Document, error) {
	data, err := userfile.Read(path, "the function role's policy", userfile.MaxProjectFile)
	if err != nil {
		var refused *userfile.Error
		if errors.As(err, &refused) {
			return nil, &LoadError{Path: path, Msg: refused.Msg, Err: err}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &LoadError{Path: path, Err: err,
				Msg: "policy file not found: write it by hand, start from `framework gen-policy > " + path + "`, or let the framework generate the policy (drop --no-autogen-policy or set \"autogen_policy\": true)"}
		}
		return nil, &LoadError{Path: path, Msg: fmt.Sprintf("read policy file: %v", err), Err: err}
	}
	p := &docParser{path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	return p.document()
}

// docParser walks the JSON tokens of a policy file, keeping offsets so that
// every error can name its line and column.
type docParser struct {
	path string
	data []byte
	dec  *json.Decoder
}

var (
	sidPattern    = regexp.MustCompile(`^[A-Za-z0-9]*$`)
	actionPattern = regexp.MustCompile(`^(\*|[a-z0-9-]+:[A-Za-z0-9*?]+)$`)
)

// unsupportedStatementKeys are IAM statement elements the framework does not
// carry into the role's policy.
var unsupportedStatementKeys = map[string]bool{
	"Condition": true, "NotAction": true, "NotResource": true, "Principal": true, "NotPrincipal": true,
}

func (p *docParser) document() (*Document, error) {
	start, err := p.delim('{', "the policy document")
	if err != nil {
		return nil, err
	}
	doc := &Document{}
	var haveVersion, haveStatement bool
	var versionAt, statementAt int64
	seen := map[string]bool{}
	for p.dec.More() {
		key, at, err := p.key(seen)
		if err != nil {
			return nil, err
		}
		switch key {
		case "Version":
			haveVersion, versionAt = true, at
			if doc.Version, err = p.str(`"Version"`); err != nil {
				return nil, err
			}
		case "Statement":
			haveStatement, statementAt = true, at
			if doc.Statement, err = p.statements(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errAt(at, nil, "unsupported key %q: a policy document has \"Version\" and \"Statement\"", key)
		}
	}
	if _, err := p.dec.Token(); err != nil { // the closing '}'
		return nil, p.syntax(err)
	}
	end := p.next(p.dec.InputOffset())
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.errAt(end, nil, "unexpected data after the policy document")
	}
	switch {
	case !haveVersion:
		return nil, p.errAt(start, nil, "missing \"Version\": add \"Version\": %q", PolicyVersion)
	case doc.Version != PolicyVersion && doc.Version != "2008-10-17":
		return nil, p.errAt(versionAt, nil, "\"Version\" is %q: IAM accepts %q (or the legacy \"2008-10-17\")", doc.Version, PolicyVersion)
	case !haveStatement:
		return nil, p.errAt(start, nil, "missing \"Statement\": add a list of statements with Effect, Action and Resource")
	case len(doc.Statement) == 0:
		return nil, p.errAt(statementAt, nil, "\"Statement\" is empty: a policy needs at least one statement")
	}
	return doc, nil
}

// statements reads the value of "Statement": a list of statement objects or,
// as IAM allows, a single one.
func (p *docParser) statements() ([]Statement, error) {
	at := p.next(p.dec.InputOffset())
	if at < int64(len(p.data)) && p.data[at] == '{' {
		s, err := p.statement(0)
		if err != nil {
			return nil, err
		}
		return []Statement{s}, nil
	}
	if _, err := p.delim('[', `"Statement"`); err != nil {
		return nil, err
	}
	return elements(p, nil, p.statement)
}

func (p *docParser) statement(i int) (Statement, error) {
	var s Statement
	what := fmt.Sprintf("Statement[%d]", i)
	start, err := p.delim('{', what)
	if err != nil {
		return s, err
	}
	seen := map[string]bool{}
	for p.dec.More() {
		key, at, err := p.key(seen)
		if err != nil {
			return s, err
		}
		switch key {
		case "Sid":
			if s.Sid, err = p.str(what + ".Sid"); err != nil {
				return s, err
			}
			if !sidPattern.MatchString(s.Sid) {
				return s, p.errAt(at, nil, "%s.Sid %q: use letters and digits only", what, s.Sid)
			}
		case "Effect":
			if s.Effect, err = p.str(what + ".Effect"); err != nil {
				return s, err
			}
			if s.Effect != "Allow" && s.Effect != "Deny" {
				return s, p.errAt(at, nil, "%s.Effect is %q: use \"Allow\" or \"Deny\"", what, s.Effect)
			}
		case "Action":
			if s.Action, err = p.strings(what + ".Action"); err != nil {
				return s, err
			}
			for _, a := range s.Action {
				if !actionPattern.MatchString(a) {
					return s, p.errAt(at, nil, "%s.Action %q: an action is \"service:Operation\" (for example \"s3:GetObject\") or \"*\"", what, a)
				}
			}
		case "Resource":
			if s.Resource, err = p.strings(what + ".Resource"); err != nil {
				return s, err
			}
			for _, r := range s.Resource {
				if r != "*" && !strings.HasPrefix(r, "arn:") {
					return s, p.errAt(at, nil, "%s.Resource %q: a resource is an ARN (\"arn:...\") or \"*\"", what, r)
				}
			}
		default:
			if unsupportedStatementKeys[key] {
				return s, p.errAt(at, nil, "%s: %q is not supported in %s: the framework applies Sid, Effect, Action and Resource only; remove it, or manage the role yourself (\"manage_role\": false with \"role_id\")", what, key, names.PolicyFile)
			}
			return s, p.errAt(at, nil, "%s: unknown key %q: a statement has Sid, Effect, Action and Resource", what, key)
		}
	}
	if _, err := p.dec.Token(); err != nil {
		return s, p.syntax(err)
	}
	switch {
	case s.Effect == "":
		return s, p.errAt(start, nil, "%s: missing \"Effect\": add \"Effect\": \"Allow\"", what)
	case len(s.Action) == 0:
		return s, p.errAt(start, nil, "%s: missing or empty \"Action\": list the actions, for example [\"s3:GetObject\"]", what)
	case len(s.Resource) == 0:
		return s, p.errAt(start, nil, "%s: missing or empty \"Resource\": list ARNs or [\"*\"]", what)
	}
	return s, nil
}

// key reads an object key, rejecting duplicates; at is the key's offset.
func (p *docParser) key(seen map[string]bool) (string, int64, error) {
	at := p.next(p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return "", at, p.syntax(err)
	}
	key, _ := tok.(string) // object keys are always strings
	if seen[key] {
		return "", at, p.errAt(at, nil, "duplicate key %q", key)
	}
	seen[key] = true
	return key, at, nil
}

// delim reads the opening delimiter d of what and returns its offset.
func (p *docParser) delim(d json.Delim, what string) (int64, error) {
	at := p.next(p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return at, p.syntax(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		kind := "an object"
		if d == '[' {
			kind = "a list"
		}
		return at, p.errAt(at, nil, "%s must be %s, found %s", what, kind, describe(tok))
	}
	return at, nil
}

func (p *docParser) str(what string) (string, error) {
	at := p.next(p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return "", p.syntax(err)
	}
	s, ok := tok.(string)
	if !ok {
		if d, isDelim := tok.(json.Delim); isDelim {
			p.skip(d)
		}
		return "", p.errAt(at, nil, "%s must be a string, found %s", what, describe(tok))
	}
	return s, nil
}

// strings reads a string or a list of strings.
func (p *docParser) strings(what string) ([]string, error) {
	at := p.next(p.dec.InputOffset())
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	if s, ok := tok.(string); ok {
		return []string{s}, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, p.errAt(at, nil, "%s must be a string or a list of strings, found %s", what, describe(tok))
	}
	return elements(p, []string{}, func(i int) (string, error) {
		return p.str(fmt.Sprintf("%s[%d]", what, i))
	})
}

// elements reads the rest of a list whose '[' was just read, its closing
// ']' included: each element with elem, which gets the element's index,
// appended to out. The first error ends it.
func elements[T any](p *docParser, out []T, elem func(i int) (T, error)) ([]T, error) {
	for p.dec.More() {
		v, err := elem(len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.syntax(err)
	}
	return out, nil
}

// skip consumes the rest of a value whose opening delimiter was just read.
func (p *docParser) skip(open json.Delim) {
	if open != '{' && open != '[' {
		return
	}
	for depth := 1; depth > 0; {
		tok, err := p.dec.Token()
		if err != nil {
			return
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
}

// next returns the offset of the next token at or after off, skipping
// white space and the separators the decoder has not consumed yet.
func (p *docParser) next(off int64) int64 {
	for off < int64(len(p.data)) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// syntax turns a decoder error into a LoadError at its position.
func (p *docParser) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return p.errAt(se.Offset, err, "invalid JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(int64(len(p.data)), err, "invalid JSON: unexpected end of file")
	default:
		return p.errAt(p.dec.InputOffset(), err, "invalid JSON: %v", err)
	}
}

// errAt returns a LoadError at byte offset off of the file.
func (p *docParser) errAt(off int64, err error, format string, args ...any) error {
	if off > int64(len(p.data)) {
		off = int64(len(p.data))
	}
	before := p.data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return &LoadError{Path: p.path, Line: line, Column: col, Msg: fmt.Sprintf(format, args...), Err: err}
}

// describe names the kind of a JSON token for error messages.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return "an object"
		case '[':
			return "a list"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return fmt.Sprintf("%t", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}
