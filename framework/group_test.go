package framework_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/framework-dev/framework/internal/apphook"

	"github.com/framework-dev/framework/framework"
	"github.com/framework-dev/framework/frameworktest"
)

// here returns "framework/group_test.go:LINE" of its caller.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	parts := strings.Split(file, "/")
	return fmt.Sprintf("%s/%s:%d", parts[len(parts)-2], parts[len(parts)-1], line)
}

func TestGroups(t *testing.T) {
	books := framework.NewGroup("books")
	books.Route("/", func(r *framework.Request) (any, error) { return "list", nil }, framework.Name("list"))
	books.Route("/{id}", func(r *framework.Request, id string) (any, error) { return "book " + id, nil }, framework.Name("get"))
	tenants := framework.NewGroup("tenants")
	tenants.Route("/items", func(r *framework.Request, tenant string) (any, error) { return "items of " + tenant, nil }, framework.Name("items"))
	app := framework.New("groups")
	app.Route("/", ok)
	app.Register("/books", books)
	app.Register("/t/{tenant}", tenants)
	root := framework.NewGroup("root")
	root.Route("/about", func(r *framework.Request) (any, error) { return "about", nil }, framework.Name("about"))
	app.Register("", root)

	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range m.Routes {
		got = append(got, r.Path+" "+r.Handler)
	}
	want := "/ ok, /about root.about, /books books.list, /books/{id} books.get, /t/{tenant}/items tenants.items"
	if strings.Join(got, ", ") != want {
		t.Errorf("routes %s, want %s", strings.Join(got, ", "), want)
	}
	c := frameworktest.New(app)
	for path, body := range map[string]string{"/books": `"list"`, "/books/7": `"book 7"`, "/t/acme/items": `"items of acme"`, "/about": `"about"`} {
		for _, resp := range []*frameworktest.Response{c.Get(path, nil), c.Lambda("GET", path, nil, nil)} {
			if resp.StatusCode != 200 || string(resp.Body) != body {
				t.Errorf("GET %s = %d %s, want %s", path, resp.StatusCode, resp.Body, body)
			}
		}
	}
}

func TestGroupConflicts(t *testing.T) {
	cases := []struct {
		name  string
		setup func(a *framework.App) []string // returns substrings the error must hold
	}{
		{"two groups serve one route", func(a *framework.App) []string {
			g1, g2 := framework.NewGroup("one"), framework.NewGroup("two")
			d1 := here()
			g1.Route("/x", ok)
			d2 := here()
			g2.Route("/x", ok)
			r1 := here()
			a.Register("/p", g1)
			r2 := here()
			a.Register("/p", g2)
			return []string{"route /p/x: method GET is served twice", `handler "one.ok"`, `handler "two.ok"`,
				next(d1), next(d2), `group "one" registered at ` + next(r1), `group "two" registered at ` + next(r2)}
		}},
		{"a group and an app route", func(a *framework.App) []string {
			d1 := here()
			a.Route("/p/x", ok, framework.Methods("GET", "POST"))
			g := framework.NewGroup("g")
			d2 := here()
			g.Route("/x", ok, framework.Methods("POST"))
			a.Register("/p", g)
			return []string{"method POST is served twice", `handler "ok" declared at ` + next(d1), `handler "g.ok" declared at ` + next(d2)}
		}},
		{"same group name", func(a *framework.App) []string {
			c1 := here()
			g1 := framework.NewGroup("dup")
			c2 := here()
			g2 := framework.NewGroup("dup")
			a.Register("/a", g1)
			a.Register("/b", g2)
			return []string{`group "dup"`, "same name", "created at " + next(c1), "created at " + next(c2)}
		}},
		{"registered twice", func(a *framework.App) []string {
			g := framework.NewGroup("twice")
			a.Register("/a", g)
			r2 := here()
			a.Register("/b", g)
			return []string{`group "twice"`, "again at " + next(r2), "registered once"}
		}},
		{"duplicate names in a group", func(a *framework.App) []string {
			g := framework.NewGroup("g")
			g.Route("/a", ok)
			g.Route("/b", ok)
			a.Register("/g", g)
			return []string{`two handlers named "g.ok"`}
		}},
		{"bad prefix", func(a *framework.App) []string {
			a.Register("/p/", framework.NewGroup("g"))
			return []string{`prefix "/p/"`, "end with"}
		}},
		{"bad group name", func(a *framework.App) []string {
			a.Register("/p", framework.NewGroup("a b"))
			return []string{`group "a b"`, "letters, digits"}
		}},
		{"group route without slash", func(a *framework.App) []string {
			g := framework.NewGroup("g")
			g.Route("x", ok)
			a.Register("/p", g)
			return []string{"route x", `"/x"`}
		}},
		{"nil group", func(a *framework.App) []string {
			a.Register("/p", nil)
			return []string{"nil"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := framework.New("conflicts")
			want := c.setup(app)
			err := app.Validate()
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// next is the position one line below pos ("f.go:10" → "f.go:11").
func next(pos string) string {
	i := strings.LastIndex(pos, ":")
	var n int
	fmt.Sscan(pos[i+1:], &n)
	return fmt.Sprintf("%s:%d", pos[:i], n+1)
}

// TestAnonymousHandlerNames: a function literal's handler is named after
// its methods and path, in the app and in a group, not "newApp.func2";
// Name still overrides it.
func TestAnonymousHandlerNames(t *testing.T) {
	app := framework.New("names")
	h := func(*framework.Request, string) (any, error) { return nil, nil }
	app.Route("/items/{id}", h, framework.Methods("PUT", "GET"))
	app.Route("/", func(*framework.Request) (any, error) { return nil, nil })
	app.Route("/named", func(*framework.Request) (any, error) { return nil, nil }, framework.Name("listNamed"))
	g := framework.NewGroup("admin")
	g.Route("/users/{user}", func(*framework.Request, string, string) (any, error) { return nil, nil }, framework.Methods("DELETE"))
	app.Register("/orgs/{org}", g)
	m, err := apphook.Of(app).Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range m.Routes {
		got = append(got, r.Path+"="+r.Handler)
	}
	want := "/=get_root /items/{id}=get_put_items_id /named=listNamed /orgs/{org}/users/{user}=admin.delete_users_user"
	if strings.Join(got, " ") != want {
		t.Errorf("handler names %v, want %s", got, want)
	}
}
