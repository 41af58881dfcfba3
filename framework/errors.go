package framework

import (
	"errors"
	"reflect"
)

// ViewError is an error that becomes a JSON response {"Code": ..., "Message": ...}
// with its own HTTP status. The built-in errors below implement it; so does any
// struct type that embeds one of them, and its Code is then its own type name:
//
//	type WidgetMissing struct{ framework.NotFoundError }
//	return nil, WidgetMissing{framework.NotFoundError{Message: "no widget 7"}}
//	// → 404 {"Code":"WidgetMissing","Message":"no widget 7"}
type ViewError interface {
	error
	// StatusCode is the HTTP status of the response.
	StatusCode() int
}

// BadRequestError answers 400.
type BadRequestError struct{ Message string }

// UnauthorizedError answers 401.
type UnauthorizedError struct{ Message string }

// ForbiddenError answers 403.
type ForbiddenError struct{ Message string }

// NotFoundError answers 404.
type NotFoundError struct{ Message string }

// ConflictError answers 409.
type ConflictError struct{ Message string }

// UnprocessableEntityError answers 422.
type UnprocessableEntityError struct{ Message string }

// TooManyRequestsError answers 429.
type TooManyRequestsError struct{ Message string }

// FrameworkViewError answers 500 with the given message.
type FrameworkViewError struct{ Message string }

func (e BadRequestError) Error() string          { return e.Message }
func (e UnauthorizedError) Error() string        { return e.Message }
func (e ForbiddenError) Error() string           { return e.Message }
func (e NotFoundError) Error() string            { return e.Message }
func (e ConflictError) Error() string            { return e.Message }
func (e UnprocessableEntityError) Error() string { return e.Message }
func (e TooManyRequestsError) Error() string     { return e.Message }
func (e FrameworkViewError) Error() string       { return e.Message }

// StatusCode returns 400.
func (BadRequestError) StatusCode() int { return 400 }

// StatusCode returns 401.
func (UnauthorizedError) StatusCode() int { return 401 }

// StatusCode returns 403.
func (ForbiddenError) StatusCode() int { return 403 }

// StatusCode returns 404.
func (NotFoundError) StatusCode() int { return 404 }

// StatusCode returns 409.
func (ConflictError) StatusCode() int { return 409 }

// StatusCode returns 422.
func (UnprocessableEntityError) StatusCode() int { return 422 }

// StatusCode returns 429.
func (TooManyRequestsError) StatusCode() int { return 429 }

// StatusCode returns 500.
func (FrameworkViewError) StatusCode() int { return 500 }

// internalErrorMessage is the Message of an uncaught error with Debug off.
const internalErrorMessage = "FrameworkViewError: An internal server error occurred."

// errorBody is the JSON shape of every ViewError response.
type errorBody struct {
	Code    string `json:"Code"`
	Message string `json:"Message"`
}

// asViewError finds the ViewError in err's chain and the Code it answers with:
// the name of its dynamic type.
func asViewError(err error) (ViewError, string, bool) {
	var ve ViewError
	if !errors.As(err, &ve) {
		return nil, "", false
	}
	t := reflect.TypeOf(ve)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return ve, t.Name(), true
}
