package names

import "strings"

// Outputs of the functions of event handlers and plain functions: one
// output per function, its value the Lambda function's name. The output's
// logical ID must be alphanumeric, so the handler's name (letters, digits,
// "-" and "_") is written into it reversibly: "0" as "00", "-" as "0D",
// "_" as "0U", between OutputFunctionPrefix and OutputFunctionSuffix.
const (
	OutputFunctionPrefix = "Fn"
	OutputFunctionSuffix = "Name"
)

// FunctionOutput returns the output logical ID of the function of the
// handler named handler: "nightly-cleanup" gives "Fnnightly0DcleanupName".
func FunctionOutput(handler string) string {
	return OutputFunctionPrefix + FunctionID(handler) + OutputFunctionSuffix
}

// FunctionID returns handler's name as an alphanumeric identifier,
// reversibly (see FunctionOutput).
func FunctionID(handler string) string {
	var b strings.Builder
	for _, r := range handler {
		switch r {
		case '0':
			b.WriteString("00")
		case '-':
			b.WriteString("0D")
		case '_':
			b.WriteString("0U")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// FunctionFromOutput returns the handler name an output logical ID made by
// FunctionOutput stands for, and false for any other output.
func FunctionFromOutput(key string) (string, bool) {
	id, ok := strings.CutPrefix(key, OutputFunctionPrefix)
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, OutputFunctionSuffix)
	if !ok || id == "" {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if id[i] != '0' {
			b.WriteByte(id[i])
			continue
		}
		if i+1 == len(id) {
			return "", false
		}
		i++
		switch id[i] {
		case '0':
			b.WriteByte('0')
		case 'D':
			b.WriteByte('-')
		case 'U':
			b.WriteByte('_')
		default:
			return "", false
		}
	}
	return b.String(), true
}
