package remote

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
)

// InvokeAPI is the part of the Lambda client Invoke uses.
type InvokeAPI interface {
	Invoke(ctx context.Context, in *lambda.InvokeInput, opts ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

// Result is the outcome of a synchronous invocation.
type Result struct {
	// StatusCode is Lambda's HTTP status for the invocation (200).
	StatusCode int32 `json:"status_code"`
	// ExecutedVersion is the function version that ran ($LATEST).
	ExecutedVersion string `json:"executed_version,omitempty"`
	// FunctionError is set when the function failed: "Unhandled" (Lambda
	// caught the error) or "Handled"; Payload then holds the error document.
	FunctionError string `json:"function_error,omitempty"`
	// ErrorType and ErrorMessage are the error document's errorType and
	// errorMessage, when FunctionError is set.
	ErrorType    string `json:"error_type,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	// Payload is what the function returned (or its error document).
	Payload []byte `json:"-"`
	// LogTail is the end of the invocation's log (the last 4 KB), decoded.
	LogTail string `json:"log_tail"`
}

// MarshalJSON writes the result with its payload as JSON when it is JSON,
// else as a string.
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	var payload any = string(r.Payload)
	if json.Valid(r.Payload) {
		payload = json.RawMessage(r.Payload)
	}
	return json.Marshal(struct {
		*plain
		Payload any `json:"payload"`
	}{(*plain)(r), payload})
}

// FunctionGoneError is Invoke's error for a function the stage's stack
// names that does not exist (deleted outside framework).
type FunctionGoneError struct {
	Function string
	Err      error
}

func (e *FunctionGoneError) Error() string {
	return fmt.Sprintf("invoke function %s: it does not exist (was the stage destroyed outside framework?); deploy the stage again: %v", e.Function, e.Err)
}

func (e *FunctionGoneError) Unwrap() error { return e.Err }

// Invoke calls the function synchronously (RequestResponse) with payload
// and asks for the tail of its log. A function error is not an error of
// Invoke: it is in the Result. Errors say which function failed to be
// invoked.
func Invoke(ctx context.Context, c InvokeAPI, functionName string, payload []byte) (*Result, error) {
	out, err := c.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:   aws.String(functionName),
		InvocationType: lambdatypes.InvocationTypeRequestResponse,
		LogType:        lambdatypes.LogTypeTail,
		Payload:        payload,
	})
	if err != nil {
		var nf *lambdatypes.ResourceNotFoundException
		if errors.As(err, &nf) {
			return nil, &FunctionGoneError{Function: functionName, Err: err}
		}
		return nil, fmt.Errorf("invoke function %s: %w", functionName, err)
	}
	r := &Result{
		StatusCode:      out.StatusCode,
		ExecutedVersion: aws.ToString(out.ExecutedVersion),
		FunctionError:   aws.ToString(out.FunctionError),
		Payload:         out.Payload,
	}
	if lr := aws.ToString(out.LogResult); lr != "" {
		b, err := base64.StdEncoding.DecodeString(lr)
		if err != nil {
			return nil, fmt.Errorf("invoke function %s: decode the log tail (LogResult is not base64): %w", functionName, err)
		}
		r.LogTail = string(b)
	}
	if r.FunctionError != "" {
		var doc struct {
			Type    string `json:"errorType"`
			Message string `json:"errorMessage"`
		}
		if json.Unmarshal(r.Payload, &doc) == nil && (doc.Type != "" || doc.Message != "") {
			r.ErrorType, r.ErrorMessage = doc.Type, doc.Message
		} else {
			r.ErrorMessage = strings.TrimSpace(string(r.Payload))
		}
	}
	return r, nil
}

// ErrorLine describes the function error of r in one line: its type and
// message, then whether Lambda reported it as Unhandled or Handled.
func (r *Result) ErrorLine() string {
	typ := r.ErrorType
	if typ == "" {
		typ = "(no errorType)"
	}
	return fmt.Sprintf("%s: %s (%s)", typ, r.ErrorMessage, r.FunctionError)
}
