package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

var sign = map[string]string{Add: "+", Remove: "-", Modify: "~"}

// WriteText writes the report for a reader: resources with their property
// changes and replacement, then routes, WebSocket routes and functions, then IAM statements, then a
// summary line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	state := "deployed"
	if !r.Deployed {
		state = "not deployed: everything is added"
	}
	fmt.Fprintf(&b, "Stack %s (%s)\n", r.Stack, state)
	if r.Empty() {
		b.WriteString("No differences: the deployed stack matches the synthesized one.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(r.Resources) > 0 {
		b.WriteString("Resources\n")
		for _, c := range r.Resources {
			fmt.Fprintf(&b, "  %s %s %s%s\n", sign[c.Action], c.Type, c.LogicalID, replacement(c))
			for _, p := range c.Properties {
				switch {
				case p.Note != "":
					fmt.Fprintf(&b, "      ~ %s (%s)\n", p.Path, p.Note)
				case p.Old == nil:
					fmt.Fprintf(&b, "      + %s: %s\n", p.Path, short(p.New))
				case p.New == nil:
					fmt.Fprintf(&b, "      - %s: %s\n", p.Path, short(p.Old))
				default:
					old, neu := shortPair(p.Old, p.New)
					fmt.Fprintf(&b, "      ~ %s: %s → %s\n", p.Path, old, neu)
				}
			}
		}
	}
	r.writeData(&b)
	r.writeIndexProblems(&b)
	if len(r.Routes) > 0 {
		b.WriteString("Routes\n")
		for _, c := range r.Routes {
			fmt.Fprintf(&b, "  %s %s %s", sign[c.Action], c.Method, c.Path)
			if len(c.Changes) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(changed(c.Changes), ", "))
			}
			b.WriteString("\n")
		}
	}
	r.writeWebSocketRoutes(&b)
	r.writeFunctions(&b)
	if len(r.Permissions) > 0 {
		b.WriteString("Permissions\n")
		for _, c := range r.Permissions {
			fmt.Fprintf(&b, "  %s\n", c.Line())
		}
	}
	other := r.IAM
	if r.old != nil && r.new != nil {
		other = otherStatementChanges(r.old, r.new)
	}
	if len(other) > 0 {
		b.WriteString("IAM policy statements\n")
		for _, c := range other {
			fmt.Fprintf(&b, "  %s %s (%s)\n", sign[c.Action], describeStatement(c.Statement), c.Resource)
		}
	}
	if len(r.Outputs) > 0 {
		b.WriteString("Outputs\n")
		for _, c := range r.Outputs {
			fmt.Fprintf(&b, "  %s %s\n", sign[c.Action], c.Name)
		}
	}
	var add, mod, rem, repl int
	for _, c := range r.Resources {
		switch c.Action {
		case Add:
			add++
		case Remove:
			rem++
		case Modify:
			mod++
			if c.Replacement == "True" {
				repl++
			}
		}
	}
	fmt.Fprintf(&b, "%d to add, %d to modify (%d replaced), %d to remove.\n", add, mod, repl, rem)
	if r.ReplacementUnknown != "" {
		fmt.Fprintf(&b, "Replacement not known: %s\n", r.ReplacementUnknown)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changed turns the names of a route's changes into phrases: "cors" →
// "cors changed"; "cors enabled" stays as is.
func changed(changes []string) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c
		if !strings.Contains(c, " ") {
			out[i] += " changed"
		}
	}
	return out
}

func replacement(c ResourceChange) string {
	if c.Action != Modify {
		return ""
	}
	switch c.Replacement {
	case "True":
		return " (replaced)"
	case "Conditional":
		return " (may be replaced)"
	case "False":
		return " (updated in place)"
	}
	return ""
}

// short renders a value on one line, cut at 100 characters.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// shortPair renders the two sides of a change on one line each, as short
// does; a side longer than 100 characters is cut around the part that
// differs from the other side, so that the change stays visible when the
// two share a long beginning or end.
func shortPair(old, new any) (string, string) {
	o, n := marshal(old), marshal(new)
	if len(o) <= maxShown && len(n) <= maxShown {
		return o, n
	}
	// Where the two start to differ.
	pre := 0
	for pre < len(o) && pre < len(n) && o[pre] == n[pre] {
		pre++
	}
	return window(o, pre), window(n, pre)
}

// maxShown is the length a rendered value is cut to.
const maxShown = 100

// context is the number of unchanged characters kept before a difference.
const context = 24

// window returns s cut to about maxShown characters from a little before
// from, where it starts to differ; "..." marks each cut.
func window(s string, from int) string {
	if len(s) <= maxShown {
		return s
	}
	start := max(0, from-context)
	end := min(len(s), start+maxShown-6)
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	out := s[start:end]
	if start > 0 {
		out = "..." + out
	}
	if end < len(s) {
		out += "..."
	}
	return out
}

func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
