package framework_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
	"github.com/framework-dev/framework/internal/manifest"
)

type author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
}

type line struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

type order struct {
	Title  string   `json:"title"`
	Price  float64  `json:"price"`
	Author author   `json:"author"`
	Lines  []line   `json:"lines,omitempty"`
	Note   *string  `json:"note"`
	Tags   []string `json:"tags,omitempty"`
}

func (o order) Validate() error {
	switch {
	case o.Price < 0:
		return errors.New("price must not be negative")
	case o.Title == "forbidden":
		return framework.ForbiddenError{Message: "that title is not allowed"}
	}
	return nil
}

type receipt struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Total float64 `json:"total"`
}

func typedApp() *framework.App {
	app := framework.New("typed")
	app.Route("/orders/{id}", func(r *framework.Request, id string, in order) (receipt, error) {
		return receipt{ID: id, Title: in.Title, Total: in.Price}, nil
	}, framework.Methods("PUT"))
	app.Route("/ptr", func(r *framework.Request, in *author) (*author, error) { return in, nil }, framework.Methods("POST"))
	app.Route("/list", func(r *framework.Request, in []line) (int, error) { return len(in), nil }, framework.Methods("POST"))
	return app
}

func TestTypedHandlers(t *testing.T) {
	bad := func(msg string) string {
		b, _ := json.Marshal(map[string]string{"Code": "BadRequestError", "Message": "Invalid request body: " + msg})
		return string(b)
	}
	cases := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"decoded and typed result", "/orders/42", `{"title":"Go","price":12.5,"author":{"name":"Ada"},"note":null}`, 200, `{"id":"42","title":"Go","total":12.5}`},
		{"pointer input", "/ptr", `{"name":"Ada"}`, 200, `{"name":"Ada"}`},
		{"slice input", "/list", `[{"sku":"a","qty":1},{"sku":"b","qty":2}]`, 200, `2`},
		{"wrong type", "/orders/1", `{"title":"Go","price":"cheap","author":{"name":"Ada"}}`, 400, bad(`field "price": expected a number, got a string`)},
		{"wrong nested type", "/orders/1", `{"title":"Go","price":1,"author":{"name":7}}`, 400, bad(`field "author.name": expected a string, got a number`)},
		{"missing required field", "/orders/1", `{"price":1,"author":{"name":"Ada"}}`, 400, bad(`field "title" is required`)},
		{"missing nested required field", "/orders/1", `{"title":"Go","price":1,"author":{"email":"a@b"}}`, 400, bad(`field "author.name" is required`)},
		{"missing field in an array element", "/orders/1", `{"title":"Go","price":1,"author":{"name":"A"},"lines":[{"sku":"a","qty":1},{"sku":"b"}]}`, 400, bad(`field "lines.1.qty" is required`)},
		{"missing field in a top-level array", "/list", `[{"qty":1}]`, 400, bad(`field "0.sku" is required`)},
		{"malformed JSON", "/orders/1", `{"title":"Go",}`, 400, bad(`malformed JSON at byte 15: invalid character '}' looking for beginning of object key string`)},
		{"truncated JSON", "/orders/1", `{"title":"Go"`, 400, bad(`malformed JSON: the body ends in the middle of a value`)},
		{"unknown field", "/orders/1", `{"title":"Go","price":1,"author":{"name":"A"},"prise":2}`, 400, bad(`field "prise" is not a field of order: remove it (unknown fields are refused)`)},
		{"not an object", "/orders/1", `[1,2]`, 400, bad(`expected a JSON object, got an array`)},
		{"empty body", "/orders/1", ``, 400, bad(`the body is empty: send a JSON object`)},
		{"two values", "/orders/1", `{"title":"Go","price":1,"author":{"name":"A"}} {}`, 400, bad(`the body holds more than one JSON value: send one object`)},
		{"number out of range", "/list", `[{"sku":"a","qty":1e400}]`, 400, bad(`field "qty": expected an integer, got number 1e400`)},
		{"Validate error", "/orders/1", `{"title":"Go","price":-1,"author":{"name":"A"}}`, 400, bad(`price must not be negative`)},
		{"null body", "/orders/1", `null`, 400, bad(`expected a JSON object, got null`)},
		{"null body to a pointer input", "/ptr", ` null `, 400, bad(`expected a JSON object, got null`)},
		{"null body to a slice input", "/list", `null`, 400, bad(`expected a JSON array, got null`)},
		{"required field null", "/orders/1", `{"title":null,"price":1,"author":{"name":"A"}}`, 400, bad(`field "title" is required: expected a string, got null`)},
		{"required nested struct null", "/orders/1", `{"title":"Go","price":1,"author":null}`, 400, bad(`field "author" is required: expected an object, got null`)},
		{"required nested field null", "/orders/1", `{"title":"Go","price":1,"author":{"name":null}}`, 400, bad(`field "author.name" is required: expected a string, got null`)},
		{"array element null", "/list", `[{"sku":"a","qty":1},null]`, 400, bad(`field "1": expected an object, got null`)},
		{"optional fields null", "/orders/7", `{"title":"Go","price":1,"author":{"name":"A","email":null},"lines":null,"tags":null,"note":null}`, 200, `{"id":"7","title":"Go","total":1}`},
		{"field twice", "/orders/1", `{"title":"Go","price":1,"author":{"name":"A"},"title":"Free"}`, 400, bad(`field "title" appears twice: send it once`)},
		{"field twice in another case", "/orders/1", `{"title":"Go","price":1,"author":{"name":"A","Name":"B"}}`, 400, bad(`field "author.name" appears twice (once as "Name"; keys match fields without regard to case): send it once`)},
		{"Validate ViewError", "/orders/1", `{"title":"forbidden","price":1,"author":{"name":"A"}}`, 403, `{"Code":"ForbiddenError","Message":"that title is not allowed"}`},
	}
	app := typedApp()
	if err := app.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method := "POST"
			if strings.HasPrefix(c.path, "/orders") {
				method = "PUT"
			}
			doors(t, app, method, c.path, []byte(c.body), map[string]string{"Content-Type": "application/json"}, func(t *testing.T, resp *frameworktest.Response) {
				if resp.StatusCode != c.status || string(resp.Body) != c.want {
					t.Errorf("= %d %s\nwant %d %s", resp.StatusCode, resp.Body, c.status, c.want)
				}
			})
		})
	}
}

func TestTypedOversizedBody(t *testing.T) {
	app := typedApp()
	big := `{"title":"` + strings.Repeat("x", maxBodyBytes) + `","price":1,"author":{"name":"A"}}`
	doors(t, app, "PUT", "/orders/1", []byte(big), map[string]string{"Content-Type": "application/json"}, func(t *testing.T, resp *frameworktest.Response) {
		if resp.StatusCode != 413 || string(resp.Body) != `{"message":"Request Too Long"}` {
			t.Errorf("= %d %.200s, want 413", resp.StatusCode, resp.Body)
		}
	})
}

// TestTypedUnknownFieldQuotedShort: the 400 of an unknown field quotes the
// start of its name, not a name of megabytes.
func TestTypedUnknownFieldQuotedShort(t *testing.T) {
	app := typedApp()
	long := strings.Repeat("k", 1<<20)
	body := `{"title":"Go","price":1,"author":{"name":"A"},"` + long + `":2}`
	doors(t, app, "PUT", "/orders/1", []byte(body), map[string]string{"Content-Type": "application/json"}, func(t *testing.T, resp *frameworktest.Response) {
		if resp.StatusCode != 400 || len(resp.Body) > 1024 || !strings.Contains(string(resp.Body), `field \"kkkkkkkk`) || !strings.Contains(string(resp.Body), "more bytes") {
			t.Errorf("= %d, %d bytes: %.300s; want a 400 under 1 KB naming the start of the field", resp.StatusCode, len(resp.Body), resp.Body)
		}
	})
}

func TestTypedDeclarationErrors(t *testing.T) {
	cases := []struct {
		name    string
		path    string
		handler any
		want    string
	}{
		{"capture not a string", "/o/{id}", func(r *framework.Request, id int, in order) (any, error) { return nil, nil }, "argument 2 is int, not string"},
		{"no error result", "/o", func(r *framework.Request, in order) receipt { return receipt{} }, "must return (Out, error)"},
		{"body not last", "/o/{id}", func(r *framework.Request, in order, id string) (any, error) { return nil, nil }, "capture parameter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := framework.New("typed")
			app.Route(c.path, c.handler, framework.Methods("POST"))
			err := app.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
}

func TestTypedManifestSchemas(t *testing.T) {
	m, err := apphook.Of(typedApp()).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]manifest.Route{}
	for _, r := range m.Routes {
		byPath[r.Path] = r
	}
	if got := byPath["/orders/{id}"].RequestSchema; got["$ref"] != "#/components/schemas/order" {
		t.Errorf("request schema %v", got)
	}
	if got := byPath["/orders/{id}"].ResponseSchema; got["$ref"] != "#/components/schemas/receipt" {
		t.Errorf("response schema %v", got)
	}
	if got := byPath["/list"].ResponseSchema; got["type"] != "integer" {
		t.Errorf("/list response schema %v", got)
	}
	o, _ := json.Marshal(m.Schemas["order"])
	const want = `{"additionalProperties":false,"properties":{"author":{"$ref":"#/components/schemas/author"},"lines":{"items":{"$ref":"#/components/schemas/line"},"type":"array"},"note":{"nullable":true,"type":"string"},"price":{"format":"double","type":"number"},"tags":{"items":{"type":"string"},"type":"array"},"title":{"type":"string"}},"required":["title","price","author"],"type":"object"}`
	if string(o) != want {
		t.Errorf("order schema\n got %s\nwant %s", o, want)
	}

	// An app without typed handlers prints the manifest it always did.
	plain := framework.New("plain")
	plain.Route("/", ok)
	pm, err := apphook.Of(plain).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(pm)
	for _, key := range []string{"schemas", "request_schema", "response_schema"} {
		if strings.Contains(string(b), key) {
			t.Errorf("untyped manifest %s holds %q", b, key)
		}
	}
}

func TestStatusOption(t *testing.T) {
	for _, withMW := range []bool{false, true} {
		app := framework.New("status")
		if withMW {
			app.Use(framework.RequestID(""))
		}
		app.Route("/a", func(r *framework.Request, in author) (author, error) { return in, nil }, framework.Methods("POST"), framework.Status(201))
		app.Route("/b", func(r *framework.Request) (any, error) { return nil, framework.ConflictError{Message: "c"} }, framework.Status(202))
		app.Route("/c", func(r *framework.Request) (any, error) { return framework.Response{Body: "r"}, nil }, framework.Status(201))
		for _, c := range []struct {
			method, path string
			status       int
		}{{"POST", "/a", 201}, {"GET", "/b", 409}, {"GET", "/c", 200}} {
			doors(t, app, c.method, c.path, []byte(`{"name":"x"}`), map[string]string{"Content-Type": "application/json"}, func(t *testing.T, resp *frameworktest.Response) {
				if resp.StatusCode != c.status {
					t.Errorf("middleware %v: %s %s = %d %s, want %d", withMW, c.method, c.path, resp.StatusCode, resp.Body, c.status)
				}
			})
		}
	}
	app := framework.New("status")
	app.Route("/", ok, framework.Status(204))
	if err := app.Validate(); err == nil || !strings.Contains(err.Error(), "Status(204)") {
		t.Errorf("Validate() = %v, want the Status(204) error", err)
	}
}
