package gendocs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/framework-dev/framework/internal/testutil"
)

// readmeLimit is the README's size budget: what it is, the two commands,
// the tutorial and the map of docs/; everything else belongs in docs/.
const readmeLimit = 15 << 10

// TestREADMESize fails when README.md outgrows its budget.
func TestREADMESize(t *testing.T) {
	fi, err := os.Stat(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > readmeLimit {
		t.Errorf("README.md is %d bytes, over its budget of %d: move the new text to the docs/ page of its topic and link it from the map", fi.Size(), readmeLimit)
	}
}

// TestDocLinks fails when a relative link in README.md or docs/*.md
// points at a file that does not exist, or at a heading anchor (#...)
// that the linked Markdown page does not have, as GitHub renders it.
func TestDocLinks(t *testing.T) {
	root := testutil.RepoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	for _, page := range pages {
		for _, problem := range brokenLinks(t, root, page) {
			t.Error(problem)
		}
	}
}

// brokenLinks lists the relative links of page that lead nowhere.
func brokenLinks(t *testing.T, root, page string) []string {
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, page)
	var problems []string
	for _, l := range mdLinks(string(text)) {
		target, frag, _ := strings.Cut(l.target, "#")
		file := page
		if target != "" {
			file = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
			if _, err := os.Stat(file); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link to %s: no such file", rel, l.line, l.target))
				continue
			}
		}
		if frag == "" || !strings.HasSuffix(file, ".md") {
			continue
		}
		body, err := os.ReadFile(file)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: link to %s: %v", rel, l.line, l.target, err))
			continue
		}
		if anchors := headingAnchors(string(body)); !slices.Contains(anchors, frag) {
			problems = append(problems, fmt.Sprintf("%s:%d: link to %s: %s has no heading with anchor #%s", rel, l.line, l.target, filepath.Base(file), frag))
		}
	}
	return problems
}

type mdLink struct {
	target string
	line   int
}

var (
	linkRE   = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	codeRE   = regexp.MustCompile("`[^`]*`")
)

// mdLinks returns the relative link targets of a Markdown text, outside
// fenced code blocks and code spans.
func mdLinks(text string) []mdLink {
	var links []mdLink
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			target := strings.Trim(m[1], "<>")
			if schemeRE.MatchString(target) {
				continue
			}
			links = append(links, mdLink{target: target, line: i + 1})
		}
	}
	return links
}

var (
	headingRE    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown text: the heading's text in lower case, without its Markdown,
// with every character other than a letter, digit, space, hyphen or
// underscore removed and spaces turned into hyphens; a repeated anchor
// gets -1, -2, ... appended.
func headingAnchors(text string) []string {
	var anchors []string
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		a := githubAnchor(inlineLinkRE.ReplaceAllString(m[1], "$1"))
		if n := seen[a]; n > 0 {
			seen[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		anchors = append(anchors, a)
	}
	return anchors
}

func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestHeadingAnchors pins the anchor rules the link check relies on.
func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# Routes and requests\n" +
		"## `framework local`\n" +
		"```sh\n# not a heading\n```\n" +
		"### Idempotency: a retried POST runs once\n" +
		"## The [CLI](cli.md)'s cache\n" +
		"## Notes\n## Notes\n")
	want := []string{"routes-and-requests", "framework-local", "idempotency-a-retried-post-runs-once", "the-clis-cache", "notes", "notes-1"}
	if !slices.Equal(got, want) {
		t.Errorf("anchors %q, want %q", got, want)
	}
}
