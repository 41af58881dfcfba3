package framework_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// doors sends one request through the local handler and through the
// Lambda adapter and runs check on each answer.
func doors(t *testing.T, app *framework.App, method, path string, body []byte, headers map[string]string, check func(t *testing.T, resp *frameworktest.Response)) {
	t.Helper()
	c := frameworktest.New(app)
	t.Run("local", func(t *testing.T) { check(t, c.Do(method, path, body, headers)) })
	t.Run("lambda", func(t *testing.T) { check(t, c.Lambda(method, path, body, headers)) })
}

// trace appends name to the X-Trace header of the response on its way out.
func trace(name string) framework.Middleware {
	return func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		c.Request.SetResponseHeader("X-In-"+name, "1")
		resp, err := next(c)
		if err != nil {
			return nil, err
		}
		if resp.Headers == nil {
			resp.Headers = map[string]string{}
		}
		resp.Headers["X-Trace"] = name + ">" + resp.Headers["X-Trace"]
		return resp, nil
	}
}

func requireToken(c *framework.Call, next framework.Next) (*framework.Response, error) {
	if c.Request.Headers.Get("X-Token") == "" {
		return nil, framework.UnauthorizedError{Message: "send X-Token"}
	}
	return next(c)
}

func TestMiddleware(t *testing.T) {
	type want struct {
		status int
		body   string // exact, or a prefix when it ends with "…"
		header map[string]string
	}
	cases := []struct {
		name    string
		setup   func(a *framework.App)
		method  string
		path    string
		headers map[string]string
		want    want
	}{
		{"order: app, group, route, handler", func(a *framework.App) {
			a.Use(trace("A"), trace("B"))
			g := framework.NewGroup("g")
			g.Use(trace("G"))
			g.Route("/x", func(r *framework.Request) (any, error) { return "ok", nil }, framework.WithMiddleware(trace("R")))
			a.Register("/g", g)
			a.Use(trace("C")) // app middleware registered later still come before the group's
		}, "GET", "/g/x", nil, want{200, `"ok"`, map[string]string{"X-Trace": "A>B>C>G>R>", "Content-Type": "application/json"}}},
		{"route middleware only on its route", func(a *framework.App) {
			a.Route("/a", ok, framework.WithMiddleware(trace("R")))
			a.Route("/b", ok)
		}, "GET", "/b", nil, want{200, `"ok"`, map[string]string{"X-Trace": ""}}},
		{"early answer", func(a *framework.App) {
			a.Use(requireToken)
			a.Route("/", func(r *framework.Request) (any, error) { panic("the handler must not run") })
		}, "GET", "/", nil, want{401, `{"Code":"UnauthorizedError","Message":"send X-Token"}`, nil}},
		{"early answer passes with the token", func(a *framework.App) {
			a.Use(requireToken)
			a.Route("/", ok)
		}, "GET", "/", map[string]string{"X-Token": "t"}, want{200, `"ok"`, nil}},
		{"sees the handler's error", func(a *framework.App) {
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
				resp, err := next(c)
				if err != nil {
					c.Request.SetResponseHeader("X-Error", err.Error())
				}
				return resp, err
			})
			a.Route("/", func(r *framework.Request) (any, error) { return nil, framework.NotFoundError{Message: "gone"} })
		}, "GET", "/", nil, want{404, `{"Code":"NotFoundError","Message":"gone"}`, map[string]string{"X-Error": "gone"}}},
		{"turns an error into a response", func(a *framework.App) {
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
				if _, err := next(c); err != nil {
					return &framework.Response{StatusCode: 503, Body: map[string]string{"retry": "later"}}, nil
				}
				return nil, nil
			})
			a.Route("/", func(r *framework.Request) (any, error) { return nil, framework.ConflictError{Message: "busy"} })
		}, "GET", "/", nil, want{503, `{"retry":"later"}`, nil}},
		{"changes the status, the body stays JSON", func(a *framework.App) {
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
				resp, err := next(c)
				if err == nil {
					resp.StatusCode = 201
				}
				return resp, err
			})
			a.Route("/", func(r *framework.Request) (any, error) { return "made", nil })
		}, "GET", "/", nil, want{201, `"made"`, map[string]string{"Content-Type": "application/json"}}},
		{"a handler's Response passes as is", func(a *framework.App) {
			a.Use(trace("A"))
			a.Route("/", func(r *framework.Request) (any, error) {
				return framework.Response{Body: "plain", Headers: map[string]string{"X-Own": "1"}}, nil
			})
		}, "GET", "/", nil, want{200, "plain", map[string]string{"X-Own": "1", "X-Trace": "A>", "Content-Type": "text/plain; charset=utf-8"}}},
		{"panic in middleware is a 500", func(a *framework.App) {
			a.Use(framework.RequestID(""), func(c *framework.Call, next framework.Next) (*framework.Response, error) { panic("boom") })
			a.Route("/", ok)
		}, "GET", "/", map[string]string{"X-Request-Id": "abc"}, want{500, `{"Code":"FrameworkViewError","Message":"FrameworkViewError: An internal server error occurred."}`, map[string]string{"X-Request-Id": "abc"}}},
		{"panic in middleware with Debug", func(a *framework.App) {
			a.Debug = true
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) { panic("boom") })
			a.Route("/", ok)
		}, "GET", "/", nil, want{500, "Uncaught error in handler \"ok\" for GET /\n\n*errors.errorString: panic: boom…", nil}},
		{"middleware error is a 500", func(a *framework.App) {
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
				return nil, bytes.ErrTooLarge
			})
			a.Route("/", ok)
		}, "GET", "/", nil, want{500, `{"Code":"FrameworkViewError"…`, nil}},
		{"request id from the client, on errors too", func(a *framework.App) {
			a.Use(framework.RequestID(""))
			a.Route("/", func(r *framework.Request) (any, error) { return nil, framework.BadRequestError{Message: "no"} })
		}, "GET", "/", map[string]string{"X-Request-Id": "req-7"}, want{400, `{"Code":"BadRequestError","Message":"no"}`, map[string]string{"X-Request-Id": "req-7"}}},
		{"request id header of one's choice", func(a *framework.App) {
			a.Use(framework.RequestID("X-Correlation-Id"))
			a.Route("/", ok)
		}, "GET", "/", map[string]string{"X-Correlation-Id": "c1"}, want{200, `"ok"`, map[string]string{"X-Correlation-Id": "c1"}}},
		{"UseFor all", func(a *framework.App) {
			a.UseFor(framework.KindAll, trace("ALL"))
			a.UseFor(framework.KindHTTP, trace("H"))
			a.Route("/", ok)
		}, "GET", "/", nil, want{200, `"ok"`, map[string]string{"X-Trace": "ALL>H>"}}},
		{"JSON parse error reaches middleware as an error", func(a *framework.App) {
			a.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
				_, err := next(c)
				c.Request.SetResponseHeader("X-Saw", strings.ReplaceAll(err.Error(), " ", "_"))
				return nil, err
			})
			a.Route("/", func(r *framework.Request) (any, error) { _, _ = r.JSONBody(); return "ignored", nil }, framework.Methods("POST"))
		}, "POST", "/", map[string]string{"Content-Type": "application/json"}, want{400, `{"Code":"BadRequestError","Message":"Error Parsing JSON"}`, map[string]string{"X-Saw": "Error_Parsing_JSON"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := framework.New("mw")
			c.setup(app)
			if err := app.Validate(); err != nil {
				t.Fatal(err)
			}
			var body []byte
			if c.method == "POST" {
				body = []byte("{not json")
			}
			doors(t, app, c.method, c.path, body, c.headers, func(t *testing.T, resp *frameworktest.Response) {
				got := string(resp.Body)
				if resp.StatusCode != c.want.status {
					t.Errorf("status %d, want %d (body %s)", resp.StatusCode, c.want.status, got)
				}
				if p, isPrefix := strings.CutSuffix(c.want.body, "…"); isPrefix {
					if !strings.HasPrefix(got, p) {
						t.Errorf("body %q, want it to start with %q", got, p)
					}
				} else if got != c.want.body {
					t.Errorf("body %s, want %s", got, c.want.body)
				}
				for k, v := range c.want.header {
					if h := strings.Join(resp.Header(k), ","); h != v {
						t.Errorf("header %s = %q, want %q", k, h, v)
					}
				}
			})
		})
	}
}

func TestMiddlewareDeclarationErrors(t *testing.T) {
	cases := []struct {
		name  string
		setup func(a *framework.App)
		want  []string
	}{
		{"unknown kind", func(a *framework.App) { a.UseFor("cron", trace("x")) }, []string{`kind "cron" is unknown`, `"all", "http", "schedule"`, "middleware_test.go:"}},
		{"nil middleware", func(a *framework.App) { a.Use(nil) }, []string{"nil Middleware"}},
		{"nil route middleware", func(a *framework.App) { a.Route("/", ok, framework.WithMiddleware(nil)) }, []string{"route /", "nil Middleware"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := framework.New("mw")
			app.Route("/ok", ok)
			c.setup(app)
			err := app.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	app := framework.New("late")
	app.Route("/", ok)
	frameworktest.New(app).Get("/", nil)
	app.Use(trace("late"))
	if err := app.Validate(); err == nil || !strings.Contains(err.Error(), "after the app started serving") {
		t.Errorf("Use after serving: Validate() = %v", err)
	}
}

func TestRequestLogger(t *testing.T) {
	var buf bytes.Buffer
	app := framework.New("log")
	app.Use(framework.RequestLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	app.Route("/items/{id}", func(r *framework.Request, id string) (any, error) {
		if id == "boom" {
			panic("boom")
		}
		return nil, framework.NotFoundError{Message: "no " + id}
	})
	c := frameworktest.New(app)
	for _, tc := range []struct {
		send   func() *frameworktest.Response
		status int
		level  string
		reqID  string
	}{
		{func() *frameworktest.Response { return c.Lambda("GET", "/items/7", nil, nil) }, 404, "INFO", "test-request"},
		{func() *frameworktest.Response { return c.Get("/items/boom", nil) }, 500, "ERROR", ""},
	} {
		buf.Reset()
		resp := tc.send()
		if resp.StatusCode != tc.status {
			t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
		}
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("log line %q is not one JSON object: %v", buf.String(), err)
		}
		if line["msg"] != "request" || line["level"] != tc.level || line["method"] != "GET" ||
			line["route"] != "/items/{id}" || line["status"] != float64(tc.status) || !strings.HasPrefix(line["path"].(string), "/items/") {
			t.Errorf("log line %s", buf.String())
		}
		if _, ok := line["duration_ms"].(float64); !ok {
			t.Errorf("log line %s: no duration_ms", buf.String())
		}
		if id, _ := line["request_id"].(string); id == "" || (tc.reqID != "" && id != tc.reqID) {
			t.Errorf("log line %s: request_id %q, want %q", buf.String(), id, tc.reqID)
		}
	}
}

// TestMiddlewareSeesTheStatusSent: a handler's plain value reaches
// middleware with the status that will be sent, so a logging middleware
// logs 200 (or the route's Status), never 0.
func TestMiddlewareSeesTheStatusSent(t *testing.T) {
	var seen []int
	app := framework.New("status")
	app.Use(func(c *framework.Call, next framework.Next) (*framework.Response, error) {
		resp, err := next(c)
		if resp != nil {
			seen = append(seen, resp.StatusCode)
		}
		return resp, err
	})
	app.Route("/plain", func(*framework.Request) (any, error) { return map[string]int{"a": 1}, nil })
	app.Route("/created", func(*framework.Request) (any, error) { return "made", nil }, framework.Methods("POST"), framework.Status(201))
	app.Route("/response", func(*framework.Request) (any, error) { return &framework.Response{Body: "x"}, nil })
	c := frameworktest.New(app)
	for _, r := range []struct{ method, path string }{{"GET", "/plain"}, {"POST", "/created"}, {"GET", "/response"}} {
		if got := c.Do(r.method, r.path, nil, nil); got.StatusCode != map[string]int{"/plain": 200, "/created": 201, "/response": 200}[r.path] {
			t.Errorf("%s %s answered %d", r.method, r.path, got.StatusCode)
		}
	}
	if fmt.Sprint(seen) != "[200 201 200]" {
		t.Errorf("middleware saw statuses %v, want [200 201 200]", seen)
	}
}
