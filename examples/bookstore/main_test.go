package main

import (
	"strings"
	"testing"

	"github.com/framework-dev/framework/frameworktest"
)

func TestBookstore(t *testing.T) {
	json := map[string]string{"Content-Type": "application/json", "X-Editor": "ada", "X-Request-Id": "r-1"}
	cases := []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		want                     string
	}{
		{"list", "GET", "/books", "", nil, 200, `{"books":[{"id":"1","title":"The Go Programming Language","author":"Donovan, Kernighan","year":2015,"tags":["go"]}],"count":1}`},
		{"create", "POST", "/books", `{"title":"Dune","author":"Herbert","year":1965}`, json, 201, `{"id":"2","title":"Dune","author":"Herbert","year":1965}`},
		{"create without editor", "POST", "/books", `{"title":"Dune"}`, map[string]string{"Content-Type": "application/json"}, 401, `{"Code":"UnauthorizedError","Message":"send the X-Editor header to change the catalogue"}`},
		{"create with a wrong type", "POST", "/books", `{"title":"Dune","author":"Herbert","year":"1965"}`, json, 400, `{"Code":"BadRequestError","Message":"Invalid request body: field \"year\": expected an integer, got a string"}`},
		{"create without author", "POST", "/books", `{"title":"Dune","year":1965}`, json, 400, `{"Code":"BadRequestError","Message":"Invalid request body: field \"author\" is required"}`},
		{"create from the future", "POST", "/books", `{"title":"Dune","author":"Herbert","year":3000}`, json, 400, `{"Code":"BadRequestError","Message":"Invalid request body: field \"year\" is 3000: give a year between 1450 and 2100"}`},
		{"patch", "PATCH", "/books/1", `{"year":2016}`, json, 200, `{"id":"1","title":"The Go Programming Language","author":"Donovan, Kernighan","year":2016,"tags":["go"]}`},
		{"missing", "GET", "/books/99", "", nil, 404, `{"Code":"NotFoundError","Message":"no book 99"}`},
		{"delete without key", "DELETE", "/books/1", "", nil, 403, `{"message":"Forbidden"}`},
		{"health", "GET", "/health", "", nil, 200, `{"status":"ok","books":2}`},
	}
	for _, door := range []string{"local", "lambda"} {
		c := frameworktest.New(newApp())
		for _, tc := range cases {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			send := c.Do
			if door == "lambda" {
				send = c.Lambda
			}
			resp := send(tc.method, tc.path, body, tc.headers)
			if resp.StatusCode != tc.status || string(resp.Body) != tc.want {
				t.Errorf("%s %s: %s %s = %d %s\nwant %d %s", door, tc.name, tc.method, tc.path, resp.StatusCode, resp.Body, tc.status, tc.want)
			}
			id := strings.Join(resp.Header("X-Request-Id"), ",")
			if tc.headers["X-Request-Id"] != "" && id != tc.headers["X-Request-Id"] {
				t.Errorf("%s %s: X-Request-Id %q, want the client's", door, tc.name, id)
			}
			if id == "" && tc.status != 403 {
				t.Errorf("%s %s: no X-Request-Id", door, tc.name)
			}
		}
	}
}
