package wording

import (
	"testing"
	"time"
)

func TestWording(t *testing.T) {
	for n, want := range map[int]string{0: "functions", 1: "function", 2: "functions"} {
		if got := Plural(n, "function", "functions"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0.0s", 2500 * time.Millisecond: "2.5s", 61 * time.Second: "61.0s"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

// A kind named through a template gets the article it is read with: "a app
// authorizer" was printed for an app authorizer.
func TestA(t *testing.T) {
	for word, want := range map[string]string{
		"app": "an app", "iam": "an iam", "IAM": "an IAM", "jwt": "a jwt", "JWT": "a JWT",
		"custom": "a custom", "cognito_user_pools": "a cognito_user_pools",
		"sqs": "an sqs", "sns": "an sns", "s3": "an s3", "S3": "an S3", "dynamodb": "a dynamodb",
		"kinesis": "a kinesis", "eventbridge": "an eventbridge", "schedule": "a schedule",
		"function": "a function", "authorizer": "an authorizer", "http": "an http", "HTTP API": "an HTTP API",
		"user pool": "a user pool", "URL": "a URL", "url": "a url", "queue": "a queue", "execute-api": "an execute-api",
		"logs": "a logs", "": "a",
	} {
		if got := A(word); got != want {
			t.Errorf("A(%q) = %q, want %q", word, got, want)
		}
	}
}
