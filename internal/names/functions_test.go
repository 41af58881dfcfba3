package names

import "testing"

func TestFunctionOutputRoundTrip(t *testing.T) {
	for _, name := range []string{"nightly", "nightly-cleanup", "on_s3_0", "a0D", "X_-0"} {
		key := FunctionOutput(name)
		for _, r := range key {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				t.Errorf("%s → %s: not alphanumeric", name, key)
			}
		}
		if got, ok := FunctionFromOutput(key); !ok || got != name {
			t.Errorf("%s → %s → %q, %v", name, key, got, ok)
		}
	}
	for _, key := range []string{OutputFunctionName, OutputFunctionArn, "FnName", "Fnx0Name", "Fnx0ZName", "EndpointURL"} {
		if got, ok := FunctionFromOutput(key); ok {
			t.Errorf("FunctionFromOutput(%s) = %q, want none", key, got)
		}
	}
}
