package framework_test

import (
	"fmt"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// A handler's return value becomes a JSON response; each {capture} in the
// path is one string argument.
func ExampleApp_Route() {
	app := framework.New("shop")
	app.Route("/items/{id}", func(r *framework.Request, id string) (any, error) {
		return map[string]string{"id": id, "method": r.Method}, nil
	}, framework.Methods("GET", "PUT"))

	resp := frameworktest.New(app).Get("/items/42", nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	// Output: 200 {"id":"42","method":"GET"}
}

// Built-in errors answer {"Code", "Message"} with their status; a type that
// embeds one answers with its own name as Code.
func ExampleNotFoundError() {
	type ItemMissing struct{ framework.NotFoundError }
	app := framework.New("shop")
	app.Route("/items/{id}", func(r *framework.Request, id string) (any, error) {
		return nil, ItemMissing{framework.NotFoundError{Message: "no item " + id}}
	})
	resp := frameworktest.New(app).Get("/items/7", nil)
	fmt.Println(resp.StatusCode, string(resp.Body))
	// Output: 404 {"Code":"ItemMissing","Message":"no item 7"}
}

// A Response sets status, headers and body exactly.
func ExampleResponse() {
	app := framework.New("shop")
	app.Route("/created", func(r *framework.Request) (any, error) {
		return framework.Response{StatusCode: 201, Body: "created!", Headers: map[string]string{"Content-Type": "text/plain"}}, nil
	}, framework.Methods("POST"))
	resp := frameworktest.New(app).Do("POST", "/created", nil, nil)
	fmt.Println(resp.StatusCode, resp.Header("Content-Type")[0], string(resp.Body))
	// Output: 201 text/plain created!
}

// A CORS route carries Access-Control-Allow-Origin on every response, and
// its OPTIONS preflight is answered for it.
func ExampleCORS() {
	app := framework.New("shop")
	app.Route("/items", func(r *framework.Request) (any, error) { return []string{}, nil },
		framework.Methods("GET", "POST"), framework.CORS(true))
	c := frameworktest.New(app)
	fmt.Println(c.Get("/items", nil).Header("Access-Control-Allow-Origin")[0])
	fmt.Println(c.Do("OPTIONS", "/items", nil, nil).Header("Access-Control-Allow-Methods")[0])
	// Output:
	// *
	// GET,POST,OPTIONS
}

// Declaration mistakes are reported together, each naming its route and
// where it was declared.
func ExampleApp_Validate() {
	app := framework.New("shop")
	app.Route("/items/{id}", func(r *framework.Request) (any, error) { return nil, nil })
	fmt.Println(app.Validate())
	// Output:
	// 1 invalid declaration:
	//   route /items/{id} (declared at framework/example_test.go:65): the handler func(*framework.Request) (interface {}, error) has 0 capture parameter(s) after the *Request but the path has 1 capture(s): want func(*framework.Request, string) (T, error)
}

// The JSON body is parsed only for application/json requests; a malformed
// body answers 400.
func ExampleRequest_JSONBody() {
	app := framework.New("shop")
	app.Route("/echo", func(r *framework.Request) (any, error) {
		return r.JSONBody()
	}, framework.Methods("POST"))
	c := frameworktest.New(app)
	ok := c.Do("POST", "/echo", []byte(`{"a":[1,2]}`), map[string]string{"Content-Type": "application/json"})
	bad := c.Do("POST", "/echo", []byte(`{"a":`), map[string]string{"Content-Type": "application/json"})
	fmt.Println(ok.StatusCode, string(ok.Body))
	fmt.Println(bad.StatusCode, string(bad.Body))
	// Output:
	// 200 {"a":[1,2]}
	// 400 {"Code":"BadRequestError","Message":"Error Parsing JSON"}
}
