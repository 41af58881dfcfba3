package local

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// event reports one thing that happened: as a JSON object with "event" and
// "time" plus fields in JSON mode, otherwise as the human line (skipped when empty).
func (s *supervisor) event(kind string, fields map[string]any, human string, args ...any) {
	if s.o.JSON {
		obj := map[string]any{"event": kind, "time": time.Now().UTC().Format(time.RFC3339Nano)}
		for k, v := range fields {
			obj[k] = v
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return
		}
		s.printf("%s\n", b)
		return
	}
	if human == "" {
		return
	}
	line := fmt.Sprintf(human, args...)
	s.printf("%s\n", strings.TrimRight(line, "\n"))
}
