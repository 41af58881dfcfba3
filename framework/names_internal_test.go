package framework

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestNameHelpersMatchTheirExpressions checks that names.go's helpers say
// what the regular expressions they replaced said, on edge cases and many
// random strings.
func TestNameHelpersMatchTheirExpressions(t *testing.T) {
	groupRe := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	anonymousRe := regexp.MustCompile(`(^|\.)func\d`)
	nonNameRe := regexp.MustCompile(`[^A-Za-z0-9_]+`)
	componentRe := regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	inputs := []string{"", "a", "A1", "_a", "-", "a-b_c", "func", "func1", "main.func1", "newApp.func2.1", "xfunc1",
		"a.funcx.func3", "func.func", "funcfunc1", ".func9", "newApp.func", "items/{id}", "a  b", "é", "a\xffb", "[]int", "Map[string]*T"}
	alphabet := []string{"a", "Z", "0", "9", "_", "-", ".", "func", "/", "{", "}", " ", "é", "\xff", "*", "["}
	rng := rand.New(rand.NewPCG(31, 21))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		if got, want := groupName(s), groupRe.MatchString(s); got != want {
			t.Errorf("groupName(%q) = %v, the expression %v", s, got, want)
		}
		if got, want := anonymous(s), anonymousRe.MatchString(s); got != want {
			t.Errorf("anonymous(%q) = %v, the expression %v", s, got, want)
		}
		if got, want := replaceRuns(s, nameByte), nonNameRe.ReplaceAllString(s, "_"); got != want {
			t.Errorf("replaceRuns(%q, nameByte) = %q, the expression %q", s, got, want)
		}
		if got, want := replaceRuns(s, componentByte), componentRe.ReplaceAllString(s, "_"); got != want {
			t.Errorf("replaceRuns(%q, componentByte) = %q, the expression %q", s, got, want)
		}
	}
}
