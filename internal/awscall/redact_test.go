package awscall

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRedact: secrets quoted in a message (a credential_process output the
// SDK could not parse, a credentials endpoint's body) are replaced; an
// access key ID keeps its last 4 characters; the rest stays.
func TestRedact(t *testing.T) {
	const secret, token = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+abc=="
	for _, in := range []string{
		`parse failed of process output: {"Version": 1, "AccessKeyId": "AKIAIOSFODNN7EXAMPLE", "SecretAccessKey": "` + secret + `", "SessionToken": "` + token + `", "Expiration": 12}, error: json: cannot unmarshal number`,
		fmt.Sprintf("are not a JSON object with AccessKeyId and SecretAccessKey: %q", `{"AccessKeyId":"AKIAIOSFODNN7EXAMPLE","SecretAccessKey":"`+secret+`","Token":"`+token+`"}`),
		"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key=" + secret + "\naws_session_token = " + token + "\n",
		`{'SecretAccessKey': '` + secret + `', 'SessionToken': '` + token + `', 'AccessKeyId': 'AKIAIOSFODNN7EXAMPLE'}`,
	} {
		got := Redact(in)
		if strings.Contains(got, secret) || strings.Contains(got, token) || strings.Contains(got, "token") && strings.Contains(got, "IQoJ") {
			t.Errorf("Redact(%q)\n= %q: a secret is left", in, got)
		}
		if strings.Contains(got, "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(got, "...MPLE") {
			t.Errorf("Redact(%q)\n= %q: want the access key ID's last 4 only", in, got)
		}
		if strings.Count(got, "[redacted]") != 2 {
			t.Errorf("Redact(%q)\n= %q: want the secret and the token [redacted]", in, got)
		}
	}
	for _, same := range []string{"", "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", "the token in FRAMEWORK_X spans several lines", "SessionToken:"} {
		if got := Redact(same); got != same {
			t.Errorf("Redact(%q) = %q, want it unchanged", same, got)
		}
	}
	base := errors.New(`parse failed of process output: {"SecretAccessKey": "` + secret + `"}`)
	err := RedactError(fmt.Errorf("refresh: %w", base))
	if strings.Contains(err.Error(), secret) || !errors.Is(err, base) {
		t.Errorf("RedactError: %v (wraps the cause: %v)", err, errors.Is(err, base))
	}
}
