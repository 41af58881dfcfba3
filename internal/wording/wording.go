// Package wording spells the counts, durations and articles of the CLI's
// messages the same way wherever they are printed (the deploy command and
// the deploy engine's progress lines, declaration errors).
package wording

import (
	"fmt"
	"strings"
	"time"
)

// Plural returns one when n is 1 and many otherwise, for messages such as
// "1 function" and "3 functions".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Seconds formats d as seconds with one decimal: "2.5s".
func Seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// A returns word with its indefinite article, "a" or "an", for messages
// that name a kind (an authorizer's type, a handler's kind) through a
// template: "an app", "a queue", "an sqs", "an S3", "a JWT". A word
// without a vowel, or in capitals, is read as letters (an sqs, an HTTP, a
// JWT); a word with vowels by its first letter, but for the few that
// start with a "you" sound (a user, a URL) or a "w" sound (a one).
func A(word string) string {
	if word == "" {
		return "a"
	}
	if anSound(word) {
		return "an " + word
	}
	return "a " + word
}

func anSound(word string) bool {
	w := strings.ToLower(word)
	letters := strings.IndexAny(w, "aeiou") < 0 || isCapitals(word)
	if letters {
		// Letters whose names start with a vowel sound: A, E, F, H, I, L,
		// M, N, O, R, S, X; and the numbers 8, 11 and 18.
		return strings.ContainsRune("aefhilmnorsx8", rune(w[0]))
	}
	for _, p := range []string{"user", "usage", "usual", "use", "uni", "url", "uri", "one", "once"} {
		if strings.HasPrefix(w, p) {
			return false
		}
	}
	return strings.ContainsRune("aeiou", rune(w[0]))
}

// isCapitals reports whether word's letters are all capitals, two or more
// (IAM, SQS, S3), which is read as letters.
func isCapitals(word string) bool {
	n := 0
	for _, r := range word {
		switch {
		case r >= 'A' && r <= 'Z':
			n++
		case r >= 'a' && r <= 'z':
			return false
		}
	}
	return n >= 2 || (n == 1 && len(word) > 1)
}
