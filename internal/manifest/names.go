package manifest

import "strings"

// The checks below are what regular expressions would say (each names its
// expression), written out: compiling the expressions cost every start of
// every app, in Lambda too, about a millisecond and 9,000 allocations, and
// package regexp a fifth of the framework's share of the binary.
// TestNameChecksMatchTheirExpressions compares each with its expression.

// byteSet is a set of ASCII bytes.
type byteSet [4]uint64

func (s *byteSet) has(c byte) bool { return c < 128 && s[c>>6]&(1<<(c&63)) != 0 }

// set returns the set of the bytes in chars, ranges written a-z.
func set(chars string) byteSet {
	var s byteSet
	for i := 0; i < len(chars); i++ {
		lo, hi := chars[i], chars[i]
		if i+2 < len(chars) && chars[i+1] == '-' {
			hi = chars[i+2]
			i += 2
		}
		for c := int(lo); c <= int(hi); c++ {
			s[c>>6] |= 1 << (c & 63)
		}
	}
	return s
}

// all reports whether every byte of s is in the set.
func (s *byteSet) all(str string) bool {
	for i := 0; i < len(str); i++ {
		if !s.has(str[i]) {
			return false
		}
	}
	return true
}

var (
	letters     = set("A-Za-z")
	alnum       = set("A-Za-z0-9")
	alnumUnder  = set("A-Za-z0-9_")
	nameChars   = set("A-Za-z0-9_-")
	dottedChars = set("A-Za-z0-9_.-")
	queryChars  = set("A-Za-z0-9._~-")
	cronChars   = set("0-9A-Za-z*?,/#-")
	pathChars   = set("A-Za-z0-9._~!$&'()*+,;=:@-")
	bucketEnds  = set("a-z0-9")
	bucketChars = set("a-z0-9.-")
	arnLower    = set("a-z-")
	arnChars    = set("a-z0-9-")
	digits      = set("0-9")
	// A token's characters (RFC 2045, as package mime reads them: printable
	// ASCII but space and ()<>@,;:\"/[]?=), lower case only.
	mediaTokenChars = set("!#-'*+.0-9^-~-")
)

// functionName: ^[A-Za-z][A-Za-z0-9_-]{0,63}$
func functionName(s string) bool {
	return len(s) >= 1 && len(s) <= 64 && letters.has(s[0]) && nameChars.all(s[1:])
}

// resourceName: ^[A-Za-z][A-Za-z0-9]{0,63}$
func resourceName(s string) bool {
	return len(s) >= 1 && len(s) <= 64 && letters.has(s[0]) && alnum.all(s[1:])
}

// queryName: ^[A-Za-z0-9._~-]+$
func queryName(s string) bool { return s != "" && queryChars.all(s) }

// cronText: ^[0-9A-Za-z*?,/#-]+$
func cronText(s string) bool { return s != "" && cronChars.all(s) }

// literalSegment: ^[A-Za-z0-9._~!$&'()*+,;=:@-]+$
func literalSegment(s string) bool { return s != "" && pathChars.all(s) }

// captureSegment: ^\{([A-Za-z_][A-Za-z0-9_]*)\}$, returning the name.
func captureSegment(s string) (string, bool) {
	if len(s) < 3 || s[0] != '{' || s[len(s)-1] != '}' {
		return "", false
	}
	name := s[1 : len(s)-1]
	if !(letters.has(name[0]) || name[0] == '_') || !alnumUnder.all(name[1:]) {
		return "", false
	}
	return name, true
}

// queueName: ^[A-Za-z0-9_-]{1,75}(\.fifo)?$
func queueName(s string) bool { return fifoName(s, 75) }

// topicName: ^[A-Za-z0-9_-]{1,251}(\.fifo)?$
func topicName(s string) bool { return fifoName(s, 251) }

func fifoName(s string, max int) bool {
	if len(s) >= 1 && len(s) <= max && nameChars.all(s) {
		return true
	}
	base, ok := strings.CutSuffix(s, ".fifo")
	return ok && len(base) >= 1 && len(base) <= max && nameChars.all(base)
}

// kinesisName: ^[A-Za-z0-9_.-]{1,128}$
func kinesisName(s string) bool { return len(s) >= 1 && len(s) <= 128 && dottedChars.all(s) }

// bucketName: ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$
func bucketName(s string) bool {
	return len(s) >= 3 && len(s) <= 63 && bucketEnds.has(s[0]) && bucketEnds.has(s[len(s)-1]) && bucketChars.all(s[1:len(s)-1])
}

// parseARN splits an ARN as
// ^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):([0-9]*):(.+)$ does into
// service, region, account and resource; ok is false where the expression
// does not match. No class of the first four fields holds ":", so each
// field ends at the next one.
func parseARN(s string) (service, region, account, resource string, ok bool) {
	rest, found := strings.CutPrefix(s, "arn:aws")
	if !found {
		return "", "", "", "", false
	}
	var f [4]string
	for i := range f {
		j := strings.IndexByte(rest, ':')
		if j < 0 {
			return "", "", "", "", false
		}
		f[i], rest = rest[:j], rest[j+1:]
	}
	// . matches any character but a newline.
	if !arnLower.all(f[0]) || f[1] == "" || !arnChars.all(f[1]) || !arnChars.all(f[2]) || !digits.all(f[3]) ||
		rest == "" || strings.IndexByte(rest, '\n') >= 0 {
		return "", "", "", "", false
	}
	return f[1], f[2], f[3], rest, true
}
