package awscall

import "strings"

// Redact returns s with the secrets of AWS credentials it may quote
// replaced: the value of every key naming a secret or a token
// (SecretAccessKey, SessionToken, Token, aws_secret_access_key,
// aws_session_token, ...) becomes [redacted], and an access key ID keeps
// its last 4 characters only. Such keys appear in messages that quote what
// a credential source answered: the AWS SDK's error for a credential_process
// output it cannot parse quotes the output whole. Keys are found as JSON
// (also escaped, as %q prints it) or as key = value lines.
func Redact(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		if !isKeyChar(s[i]) || i > 0 && isKeyChar(s[i-1]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isKeyChar(s[j]) {
			j++
		}
		key := strings.ToLower(s[i:j])
		b.WriteString(s[i:j])
		i = j
		secret := strings.Contains(key, "secret") || strings.HasSuffix(key, "token")
		keyID := key == "accesskeyid" || strings.HasSuffix(key, "access_key_id")
		if !secret && !keyID {
			continue
		}
		// The separator: closing quotes, then : or =, then opening quotes.
		k := i
		for k < len(s) && strings.IndexByte("\"'\\ \t", s[k]) >= 0 {
			k++
		}
		if k == len(s) || s[k] != ':' && s[k] != '=' {
			continue
		}
		k++
		for k < len(s) && strings.IndexByte("\"'\\ \t", s[k]) >= 0 {
			k++
		}
		if k < len(s) && (s[k] == '{' || s[k] == '[') {
			continue // an object follows, not a value ("SecretAccessKey: {...")
		}
		v := k
		for v < len(s) && strings.IndexByte("\"'\\ \t\r\n,;}", s[v]) < 0 {
			v++
		}
		if v == k {
			continue
		}
		b.WriteString(s[i:k])
		if secret {
			b.WriteString("[redacted]")
		} else {
			id := s[k:v]
			if len(id) > 4 {
				id = "..." + id[len(id)-4:]
			}
			b.WriteString(id)
		}
		i = v
	}
	return b.String()
}

func isKeyChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// RedactError returns err with its message passed through Redact, still
// wrapping err (errors.Is and errors.As see it); nil for nil, and err
// itself when its message quotes no secret.
func RedactError(err error) error {
	if err == nil {
		return nil
	}
	msg := Redact(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
