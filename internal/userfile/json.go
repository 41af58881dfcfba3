package userfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// CheckJSON returns nil when data is one JSON value, and otherwise an
// error saying what is wrong and where: "it is empty", or the line and
// column of the problem and what the JSON decoder found there.
func CheckJSON(data []byte) error {
	trimmed := bytes.TrimRight(data, " \t\r\n")
	if len(bytes.TrimLeft(trimmed, " \t\r\n")) == 0 {
		return errors.New("it is empty")
	}
	var v json.RawMessage
	err := json.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	index, msg := -1, err.Error()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		index = int(se.Offset) - 1 // Offset counts the bytes read, the bad one included
	}
	if strings.Contains(msg, "unexpected end of JSON input") {
		index, msg = len(trimmed), "unexpected end of input: a closing brace, bracket or quote is missing"
	}
	if index < 0 {
		return errors.New(msg)
	}
	line, col := LineColumn(data, index)
	return fmt.Errorf("line %d, column %d: %s", line, col, msg)
}

// LineColumn converts the byte index of a character into a 1-based line
// and column (counted in characters).
func LineColumn(data []byte, index int) (line, col int) {
	index = min(max(index, 0), len(data))
	line = 1 + bytes.Count(data[:index], []byte("\n"))
	start := bytes.LastIndexByte(data[:index], '\n') + 1
	col = utf8.RuneCount(data[start:index]) + 1
	return line, col
}
