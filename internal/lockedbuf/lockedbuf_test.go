package lockedbuf

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestWait(t *testing.T) {
	var b Buffer
	go func() {
		for _, s := range []string{"one\n", "two\n", "three\n"} {
			_, _ = b.Write([]byte(s))
		}
	}()
	got, ok := b.Wait(t.Context(), func(s string) bool { return strings.Contains(s, "three") })
	if !ok || got != "one\ntwo\nthree\n" {
		t.Errorf("Wait = %q, %v; want all three lines", got, ok)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if got, ok := b.Wait(ctx, func(s string) bool { return strings.Contains(s, "four") }); ok || got != "one\ntwo\nthree\n" {
		t.Errorf("Wait for what is never written = %q, %v; want the content and false once ctx is done", got, ok)
	}
}
