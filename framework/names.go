package framework

import "strings"

// What three regular expressions said, written out: compiling them cost
// every start of every app, and package regexp a share of the binary.
// TestNameHelpersMatchTheirExpressions compares each with its expression.

// groupName: ^[A-Za-z][A-Za-z0-9_-]*$
func groupName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// anonymous tells whether a function's name is the one Go gives a
// function literal ("newApp.func2"): (^|\.)func\d
func anonymous(name string) bool {
	for i := 0; ; {
		j := strings.Index(name[i:], "func")
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || name[j-1] == '.') && j+4 < len(name) && isDigit(name[j+4]) {
			return true
		}
		i = j + 1
	}
}

// replaceRuns replaces every run of bytes for which keep is false with
// one "_", as ReplaceAllString of [^...]+ with "_" does.
func replaceRuns(s string, keep func(byte) bool) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		if keep(s[i]) {
			b.WriteByte(s[i])
			in = false
		} else if !in {
			b.WriteByte('_')
			in = true
		}
	}
	return b.String()
}

// nameByte: [A-Za-z0-9_]
func nameByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// componentByte: [A-Za-z0-9._-]
func componentByte(c byte) bool { return nameByte(c) || c == '.' || c == '-' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
