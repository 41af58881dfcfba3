package framework

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
)

// Group is a set of routes and middleware declared apart from the app,
// typically in a package of its own, and registered on an app under a path
// prefix with App.Register (the original framework's blueprints):
//
//	// package books
//	func Routes() *framework.Group {
//		g := framework.NewGroup("books")
//		g.Route("/", list)
//		g.Route("/{id}", get)
//		return g
//	}
//
//	// package main
//	app.Register("/books", books.Routes())
//
// A group's handler names are prefixed with the group's name and a dot
// ("books.list"), so they stay unique across the app. Two registrations
// serving one method on one path, two groups of one name, and a group
// registered twice are start-up errors naming both declarations with
// their file and line.
type Group struct {
	name  string
	where string

	mu     sync.Mutex
	routes []*route
	mw     []Middleware
	errs   []error
}

// registration is a group registered on an app.
type registration struct {
	group  *Group
	prefix string
	where  string
}

// NewGroup returns an empty group named name (letters, digits, _ and -,
// starting with a letter).
func NewGroup(name string) *Group {
	g := &Group{name: name, where: callerAt(1)}
	if !groupName(name) {
		g.errs = append(g.errs, fmt.Errorf("group %q (created at %s): the name must be letters, digits, _ and -, starting with a letter", name, g.where))
	}
	return g
}

// Name returns the group's name.
func (g *Group) Name() string { return g.name }

// Route declares a route of the group; path is relative to the prefix the
// group is registered under ("/" is the prefix itself). Handlers and
// options are those of App.Route.
func (g *Group) Route(path string, handler any, opts ...RouteOption) {
	r := newRoute(path, handler, opts)
	r.where = callerAt(1)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.routes = append(g.routes, r)
}

// Use adds middleware to every route of the group. They run after the
// app's middleware and before the route's own, in the order registered.
func (g *Group) Use(mw ...Middleware) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range mw {
		if m == nil {
			g.errs = append(g.errs, fmt.Errorf("group %q: middleware at %s is nil: pass a function", g.name, callerAt(1)))
			continue
		}
		g.mw = append(g.mw, m)
	}
}

// Register serves the routes of g under prefix ("/books"; "" or "/" for
// the root). The group's routes and middleware are read when the app
// starts, so the group may still be added to after Register.
func (a *App) Register(prefix string, g *Group) {
	where := callerAt(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if g == nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("Register(%q, nil) at %s: pass a group made with NewGroup", prefix, where))
		return
	}
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("group %q registered at %s after the app started serving: register every group before Run", g.name, where))
		return
	}
	a.groups = append(a.groups, registration{group: g, prefix: prefix, where: where})
}

// label names a registration in error messages.
func (reg registration) label() string {
	return fmt.Sprintf("group %q registered at %s", reg.group.name, reg.where)
}

// declaredAt describes where a route was declared, for conflict errors.
func (r *route) declaredAt() string {
	where := r.where
	if where == "" {
		where = "an unknown place"
	}
	if r.group != nil {
		return fmt.Sprintf("handler %q declared at %s in %s", r.Name, where, r.group.label())
	}
	return fmt.Sprintf("handler %q declared at %s", r.Name, where)
}

// joinPrefix is a group route's full path.
func joinPrefix(prefix, path string) string {
	prefix = strings.TrimSuffix(prefix, "/")
	if path == "/" {
		if prefix == "" {
			return "/"
		}
		return prefix
	}
	return prefix + path
}

// expandGroups adds the routes of the registered groups to the app's
// routes and returns the problems of the groups and registrations.
func (a *App) expandGroups() []error {
	var errs []error
	byName := map[string]registration{}
	for _, reg := range a.groups {
		g := reg.group
		g.mu.Lock()
		errs = append(errs, g.errs...)
		if first, ok := byName[g.name]; ok {
			if first.group == g {
				errs = append(errs, fmt.Errorf("%s and again at %s: a group is registered once; for a second prefix, make a second group (a function returning a new Group)", first.label(), reg.where))
			} else {
				errs = append(errs, fmt.Errorf("%s (created at %s) and %s (created at %s) have the same name: group names must be unique, since they prefix the handler names", first.label(), first.group.where, reg.label(), g.where))
			}
			g.mu.Unlock()
			continue
		}
		byName[g.name] = reg
		if reg.prefix != "" && reg.prefix != "/" {
			// A capture in the prefix is the handlers' first capture argument.
			if _, err := manifest.ParsePath(reg.prefix); err != nil {
				errs = append(errs, fmt.Errorf("%s: prefix %q: %w", reg.label(), reg.prefix, err))
				g.mu.Unlock()
				continue
			}
		}
		names := map[string]*route{}
		for _, gr := range g.routes {
			r := *gr
			r.Methods = slices.Clone(gr.Methods)
			r.ContentTypes = slices.Clone(gr.ContentTypes)
			r.optErrs = slices.Clone(gr.optErrs)
			r.Path = joinPrefix(reg.prefix, gr.Path)
			r.Name = g.name + "." + gr.Name
			r.group = &reg
			r.groupMW = g.mw
			if other, ok := names[r.Name]; ok {
				errs = append(errs, fmt.Errorf("%s: two handlers named %q (declared at %s and %s): handler names must be unique in a group (use the Name option)", reg.label(), r.Name, other.where, r.where))
				continue
			}
			names[r.Name] = &r
			if !strings.HasPrefix(gr.Path, "/") {
				errs = append(errs, fmt.Errorf("route %s of %s (declared at %s): the path does not start with \"/\": write it as \"/%s\"", gr.Path, reg.label(), r.where, gr.Path))
				continue
			}
			a.routes = append(a.routes, &r)
		}
		g.mu.Unlock()
	}
	return errs
}

// conflicts finds the routes that serve a method of a path another route
// already serves, when a group is involved, and returns an error for each
// naming both declarations, and the routes without the conflicting ones.
func conflicts(routes []*route) ([]error, []*route) {
	var errs []error
	type key struct{ path, method string }
	owner := map[key]*route{}
	kept := make([]*route, 0, len(routes))
	for _, r := range routes {
		clash := false
		for _, m := range r.Methods {
			o, ok := owner[key{manifest.Shape(r.Path), m}]
			if !ok || o == r || (o.group == nil && r.group == nil) {
				continue
			}
			clash = true
			errs = append(errs, fmt.Errorf("route %s: method %s is served twice: by %s, and by %s; give one of them another path or method (or another group prefix)", r.Path, m, o.declaredAt(), r.declaredAt()))
			break
		}
		if clash {
			continue
		}
		for _, m := range r.Methods {
			if _, ok := owner[key{manifest.Shape(r.Path), m}]; !ok {
				owner[key{manifest.Shape(r.Path), m}] = r
			}
		}
		kept = append(kept, r)
	}
	return errs, kept
}

// callerAt returns "dir/file.go:line" of the caller skip frames above the
// function calling callerAt.
func callerAt(skip int) string { return apphook.Caller(skip + 1) }
