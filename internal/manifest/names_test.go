package manifest

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestNameChecksMatchTheirExpressions checks that each hand-written check
// of names.go accepts exactly what the regular expression it replaced
// accepted (and parseARN splits as its expression's groups did), on edge
// cases and on many random strings over an alphabet of the characters
// that matter.
func TestNameChecksMatchTheirExpressions(t *testing.T) {
	type check struct {
		re string
		ok func(string) bool
	}
	checks := []check{
		{`^[A-Za-z][A-Za-z0-9_-]{0,63}$`, functionName},
		{`^[A-Za-z][A-Za-z0-9]{0,63}$`, resourceName},
		{`^[A-Za-z0-9._~-]+$`, queryName},
		{`^[0-9A-Za-z*?,/#-]+$`, cronText},
		{`^[A-Za-z0-9._~!$&'()*+,;=:@-]+$`, literalSegment},
		{`^\{([A-Za-z_][A-Za-z0-9_]*)\}$`, func(s string) bool { _, ok := captureSegment(s); return ok }},
		{`^[A-Za-z0-9_-]{1,75}(\.fifo)?$`, queueName},
		{`^[A-Za-z0-9_-]{1,251}(\.fifo)?$`, topicName},
		{`^[A-Za-z0-9_.-]{1,128}$`, kinesisName},
		{`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`, bucketName},
		{`^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):([0-9]*):(.+)$`, func(s string) bool { _, _, _, _, ok := parseARN(s); return ok }},
	}
	arnRe := regexp.MustCompile(checks[len(checks)-1].re)
	captureRe := regexp.MustCompile(checks[5].re)

	edge := []string{"", "a", "A", "_", "-", "0", "9a", "a9", "{", "}", "{}", "{a}", "{_}", "{9}", "{a-b}", "{{a}}",
		"a.fifo", ".fifo", "fifo", "a.fifo.fifo", "a.FIFO", "abc", "ab", "a.b", "a..b", "-ab", "ab-", "my-bucket.logs",
		"arn:aws:sqs:us-east-1:123456789012:q", "arn:aws-cn:s3:::bucket", "arn:aws:s3:::", "arn:aws::us:1:x",
		"arn:aws:dynamodb:us-east-1:1:table/t/stream/2020", "arn:awsX:sqs:r:1:q", "arn:aws:sqs:r:1a:q", "arn:aws:sqs:r:1:q\n",
		"arn:aws:sqs:r:1:a:b:c", "arn:aws:SQS:r:1:q", "arn:aws:sqs:R:1:q", "arn:aws:sqs:r:1:\xff", "a\n", "é", "aé", "a\xff",
		"0 12 * * ? *", "cron", "1,2/3#L-W", "~a.b-c_d", "x!$&'()*+,;=:@", "a b", "a%20b"}
	for _, n := range []int{1, 2, 3, 62, 63, 64, 65, 74, 75, 76, 127, 128, 129, 250, 251, 252} {
		edge = append(edge, strings.Repeat("a", n), "A"+strings.Repeat("0", n-1), strings.Repeat("b", n)+".fifo")
	}
	alphabet := []string{"a", "z", "A", "Z", "0", "9", "_", "-", ".", ":", "{", "}", "~", "*", "?", ",", "/", "#", "!", "@", " ", "\n", "é", "\xff",
		"arn", "aws", "fifo", ".fifo", "arn:aws:", "s3", "::"}
	rng := rand.New(rand.NewPCG(31, 22))
	random := func() string {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("arn:aws")
		}
		n := rng.IntN(12)
		if rng.IntN(8) == 0 {
			n = rng.IntN(300)
		}
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	inputs := edge
	for range 20000 {
		inputs = append(inputs, random())
	}
	for _, c := range checks {
		re := regexp.MustCompile(c.re)
		for _, s := range inputs {
			if got, want := c.ok(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: hand-written check says %v, the expression %v", c.re, s, got, want)
			}
		}
	}
	for _, s := range inputs {
		if m := arnRe.FindStringSubmatch(s); m != nil {
			service, region, account, resource, _ := parseARN(s)
			if got := []string{service, region, account, resource}; strings.Join(got, "|") != strings.Join(m[1:], "|") {
				t.Errorf("parseARN(%q) = %q, the expression's groups %q", s, got, m[1:])
			}
		}
		if m := captureRe.FindStringSubmatch(s); m != nil {
			if name, _ := captureSegment(s); name != m[1] {
				t.Errorf("captureSegment(%q) = %q, the expression's group %q", s, name, m[1])
			}
		}
	}
}

// TestMediaTypeShortcut checks that MediaType's shortcut for a plain
// type/subtype gives what parsing gives, for every byte in every place
// and for common values.
func TestMediaTypeShortcut(t *testing.T) {
	inputs := []string{"application/json", "text/plain", "*/*", "image/*", "application/vnd.api+json", "a/b", "/", "a/", "/b",
		"a/b/c", "Application/JSON", "text/plain; charset=utf-8", " text/plain", "text/plain ", "application/x-www-form-urlencoded", ""}
	for c := 0; c < 256; c++ {
		for _, f := range []string{"%c/b", "a/%c", "a%c/b", "a/b%c"} {
			inputs = append(inputs, strings.Replace(f, "%c", string([]byte{byte(c)}), 1))
		}
	}
	for _, v := range inputs {
		if got, want := MediaType(v), mediaTypeParsed(v); got != want {
			t.Errorf("MediaType(%q) = %q, parsing gives %q", v, got, want)
		}
	}
}
