package gendocs

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/framework-dev/framework/internal/config"
)

// ConfigReference renders the table of keys (config.Keys) as Markdown.
func ConfigReference() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Configuration: `.framework/config.json`\n\n%s\n\n", generatedNote)
	b.WriteString(`Top-level keys are the defaults of every stage; ` + "`stages.<name>`" + ` holds a
stage's own values, which replace them (` + "`environment_variables`" + `, ` + "`tags`" + ` and
` + "`lambda_functions`" + ` are merged with the top level's, the stage winning). A
stage absent from the file uses the top-level settings.

` + "```json" + `
{
  "$schema": "` + config.SchemaURL("") + `",
  "version": "` + config.FormatVersion + `",
  "app_name": "hello",
  "lambda_memory_size": 256,
  "stages": {
    "dev": {},
    "prod": {"lambda_memory_size": 1024, "log_retention_in_days": 30}
  }
}
` + "```" + `

Unknown keys (with a "did you mean"), wrong types and impossible values are
errors naming the file, the key path and, for syntax errors, the line and
column. The JSON Schema ` + "[`config.schema.json`](config.schema.json)" + ` checks the
same keys, types and values in an editor; ` + "`framework new-project`" + ` names it in
` + "`$schema`" + `.

`)
	var top, settings, production []config.Key
	for _, k := range config.Keys {
		switch {
		case k.Scope == config.TopLevel:
			top = append(top, k)
		case k.Production:
			production = append(production, k)
		default:
			settings = append(settings, k)
		}
	}
	b.WriteString("## Top-level keys\n\nAllowed at the top level only.\n\n")
	keyTable(&b, top, "")
	b.WriteString("\n## Stage settings\n\nAllowed at the top level (every stage's default) and in `stages.<name>`.\n\n")
	keyTable(&b, settings, "")
	b.WriteString("\n## Production settings\n\nThe settings that run a deployed stage in production: concurrency, layers,\nVPC, tracing, logs, the front door and the REST API's endpoint and domain.\nAllowed at the top level and in `stages.<name>`; a stage's value replaces\nthe top level's whole.\n\n")
	keyTable(&b, production, "")
	for _, k := range config.Keys {
		if len(k.Keys) == 0 {
			continue
		}
		prefix := k.Name + "."
		if k.Type == config.TypeObjectMap {
			prefix = k.Name + ".<name>."
		}
		fmt.Fprintf(&b, "\n## Keys of `%s`\n\n", strings.TrimSuffix(prefix, "."))
		if len(k.Required) > 0 {
			fmt.Fprintf(&b, "Required: %s.\n\n", codeList(k.Required))
		}
		keyTable(&b, k.Keys, prefix)
	}
	return b.Bytes()
}

func keyTable(b *bytes.Buffer, keys []config.Key, prefix string) {
	b.WriteString("| Key | Where | Type | Default | Allowed values | Meaning |\n|---|---|---|---|---|---|\n")
	for _, k := range keys {
		def := k.Default
		if def != "" && (k.DefaultJSON != nil || def == "{}" || def == "[]") {
			def = "`" + def + "`"
		}
		fmt.Fprintf(b, "| `%s%s` | %s | %s | %s | %s | %s |\n", prefix, k.Name, where(k, prefix), k.Type, cell(def), cell(allowed(k)), cell(k.Doc))
	}
}

// where says where k may be written: at the top level only, at the top
// level and in each stage (global or per stage), or inside another key.
func where(k config.Key, prefix string) string {
	switch k.Scope {
	case config.TopLevel:
		return "top level"
	case config.PerStage:
		return "top level or stage"
	}
	return "in `" + strings.TrimSuffix(prefix, ".") + "`"
}

// allowed describes the values k allows.
func allowed(k config.Key) string {
	var parts []string
	if len(k.Enum) > 0 {
		vals := make([]string, len(k.Enum))
		for i, v := range k.Enum {
			vals[i] = fmt.Sprintf("`%v`", v)
		}
		parts = append(parts, strings.Join(vals, ", "))
	}
	switch {
	case k.Min != nil && k.Max != nil:
		parts = append(parts, fmtNum(*k.Min)+" to "+fmtNum(*k.Max))
	case k.Min != nil:
		parts = append(parts, fmtNum(*k.Min)+" or more")
	case k.Max != nil:
		parts = append(parts, "at most "+fmtNum(*k.Max))
	}
	if k.MaxItems > 0 {
		parts = append(parts, "at most "+strconv.Itoa(k.MaxItems))
	}
	if k.Values != "" {
		parts = append(parts, k.Values)
	}
	return strings.Join(parts, "; ")
}

func fmtNum(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
