package gendocs

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// CLIReference renders the command tree app as Markdown: the global
// flags, then each command (subcommands after their parent) with its
// aliases, arguments and flags.
func CLIReference(app *kong.Application) []byte {
	var b bytes.Buffer
	name := app.Name
	fmt.Fprintf(&b, "# The `%s` command\n\n%s\n\n", name, generatedNote)
	fmt.Fprintf(&b, "%s\n\n", oneLine(app.Help))
	fmt.Fprintf(&b, "```\n%s <command> [flags]\n```\n\n", name)
	fmt.Fprintf(&b, "Every command accepts the global flags. `%s <command> --help` prints a command's help.\n\n", name)

	var commands []*kong.Node
	var collect func(n *kong.Node)
	collect = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden || c.Type != kong.CommandNode {
				continue
			}
			commands = append(commands, c)
			collect(c)
		}
	}
	collect(app.Node)

	b.WriteString("## Commands\n\n| Command | What it does |\n|---|---|\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", path(c), anchor(path(c)), cell(c.Help))
	}
	b.WriteString("\n## Global flags\n\n")
	flagTable(&b, app.Flags)

	for _, c := range commands {
		fmt.Fprintf(&b, "\n## %s\n\n", path(c))
		fmt.Fprintf(&b, "%s\n\n", oneLine(c.Help))
		if c.Detail != "" {
			fmt.Fprintf(&b, "%s\n\n", c.Detail)
		}
		fmt.Fprintf(&b, "```\n%s\n```\n\n", usage(c))
		if len(c.Aliases) > 0 {
			fmt.Fprintf(&b, "Aliases: %s.\n\n", codeList(c.Aliases))
		}
		if c.DefaultCmd != nil {
			fmt.Fprintf(&b, "Without a subcommand, `%s` runs `%s`.\n\n", path(c), path(c.DefaultCmd))
		}
		if len(c.Positional) > 0 {
			b.WriteString("| Argument | Type | Required | Default | Description |\n|---|---|---|---|---|\n")
			for _, p := range c.Positional {
				req := "no"
				if p.Required {
					req = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", strings.ToUpper(p.Name), typeName(p), req, defaultOf(p), cell(p.Help))
			}
			b.WriteString("\n")
		}
		var flags []*kong.Flag
		for _, f := range c.Flags {
			if !f.Hidden {
				flags = append(flags, f)
			}
		}
		if len(flags) > 0 {
			flagTable(&b, flags)
		} else if len(c.Children) == 0 {
			b.WriteString("No flags but the global ones.\n")
		}
		var subs []string
		for _, sub := range c.Children {
			if !sub.Hidden && sub.Type == kong.CommandNode {
				subs = append(subs, fmt.Sprintf("[`%s`](#%s)", path(sub), anchor(path(sub))))
			}
		}
		if len(subs) > 0 {
			if len(flags) > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "Subcommands: %s.\n", strings.Join(subs, ", "))
		}
	}
	return b.Bytes()
}

// flagTable writes the flags as a table; the Environment column only when
// one of them reads an environment variable.
func flagTable(b *bytes.Buffer, flags []*kong.Flag) {
	env := false
	for _, f := range flags {
		env = env || len(f.Envs) > 0
	}
	if env {
		b.WriteString("| Flag | Type | Default | Environment | Description |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("| Flag | Type | Default | Description |\n|---|---|---|---|\n")
	}
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		names := []string{"`--" + f.Name + "`"}
		if f.Short != 0 {
			names = append(names, fmt.Sprintf("`-%c`", f.Short))
		}
		for _, a := range f.Aliases {
			names = append(names, "`--"+a+"`")
		}
		if f.Negated {
			names = append(names, "`--no-"+f.Name+"`")
		}
		fmt.Fprintf(b, "| %s | %s | %s |", strings.Join(names, ", "), typeName(f.Value), defaultOf(f.Value))
		if env {
			var envs []string
			for _, e := range f.Envs {
				envs = append(envs, "`"+e+"`")
			}
			fmt.Fprintf(b, " %s |", strings.Join(envs, ", "))
		}
		fmt.Fprintf(b, " %s |\n", cell(f.Help))
	}
}

// path is the command line that runs n: the program's name and the
// commands down to n.
func path(n *kong.Node) string {
	var parts []string
	for ; n != nil; n = n.Parent {
		parts = append([]string{n.Name}, parts...)
	}
	return strings.Join(parts, " ")
}

// usage is the command's synopsis: its path, arguments and [flags].
func usage(c *kong.Node) string {
	parts := []string{path(c)}
	if len(c.Children) > 0 {
		if c.DefaultCmd != nil {
			parts = append(parts, "[<command>]")
		} else {
			parts = append(parts, "<command>")
		}
	}
	for _, p := range c.Positional {
		arg := "<" + p.Name + ">"
		if p.Target.Kind() == reflect.Slice {
			arg += " ..."
		}
		if !p.Required {
			arg = "[" + arg + "]"
		}
		parts = append(parts, arg)
	}
	parts = append(parts, "[flags]")
	return strings.Join(parts, " ")
}

var durationType = reflect.TypeFor[time.Duration]()

// typeName names a value's type for readers: a switch (no value), a
// string, a path, an integer, a duration, a list, or one of an enum.
func typeName(v *kong.Value) string {
	if v.Enum != "" {
		return "one of " + codeList(v.EnumSlice())
	}
	t := v.Target.Type()
	if v.Tag != nil && v.Tag.Type == "path" {
		return "path"
	}
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "switch"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "list"
	case reflect.Map:
		return "KEY=VALUE pairs"
	}
	return "string"
}

func defaultOf(v *kong.Value) string {
	if !v.HasDefault || v.Default == "" {
		return ""
	}
	return "`" + v.Default + "`"
}

// cell makes text fit one Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func codeList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}

// anchor is the heading id GitHub gives a heading of text.
func anchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
