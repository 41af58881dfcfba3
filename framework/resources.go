package framework

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/framework-dev/framework/internal/apphook"
	"github.com/framework-dev/framework/internal/manifest"
)

// The resources an app declares and owns, and the accesses it grants,
// which package framework/resource declares through apphook.

// resourceDecl is one declared resource.
type resourceDecl struct {
	res   manifest.Resource
	where string // file:line of the declaration
}

// grantDecl is one declared access, to every function (no handlers) or to
// the handlers named.
type grantDecl struct {
	grant    manifest.Grant
	handlers []string
	where    string
}

// declareResource adds r to the app's resources.
func (a *App) declareResource(r manifest.Resource, where string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("%s declared at %s after the app started serving: declare every resource before Run", r.Label(), where))
		return
	}
	a.resources = append(a.resources, resourceDecl{res: r, where: where})
}

// grantResource adds an access to a declared resource.
func (a *App) grantResource(g manifest.Grant, handlers []string, where string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.table != nil {
		a.regErrs = append(a.regErrs, fmt.Errorf("access %q to resource %q granted at %s after the app started serving: grant every access before Run", g.Access, g.Resource, where))
		return
	}
	a.grants = append(a.grants, grantDecl{grant: g, handlers: slices.Clone(handlers), where: where})
}

// refuse records a declaration error.
func (a *App) refuse(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.regErrs = append(a.regErrs, err)
}

// validateResources reports two resources with one name (the manifest
// lists the first only) and the accesses granted to handlers that m, the
// app's manifest, does not have; manifest.Validate checks the rest.
func (a *App) validateResources(m *manifest.Manifest) []error {
	var errs []error
	first := map[string]resourceDecl{}
	for _, r := range a.resources {
		key := strings.ToLower(r.res.Name)
		if f, ok := first[key]; ok {
			errs = append(errs, fmt.Errorf("%s declared at %s: %s declared at %s has the same name (names are unique regardless of case): rename one", r.res.Label(), r.where, f.res.Label(), f.where))
			continue
		}
		first[key] = r
	}
	names := map[string]bool{}
	for _, r := range m.Routes {
		names[r.Handler] = true
	}
	for _, f := range m.Functions {
		names[f.Name] = true
	}
	for _, g := range a.grants {
		for _, h := range g.handlers {
			if !names[h] {
				errs = append(errs, fmt.Errorf("access %q to resource %q granted at %s to handler %q, which the app does not declare: name a route handler (its Name option or Go function's name), an event handler or a plain function", g.grant.Access, g.grant.Resource, g.where, h))
			}
		}
	}
	return errs
}

// addResources describes the declared resources (the first of each name)
// and accesses in m, whose routes and functions are already there: the
// app-wide grants in m.Grants, the others on the routes and functions they
// name.
func (a *App) addResources(m *manifest.Manifest) {
	for _, r := range a.resources {
		if m.Resource(r.res.Name) == nil {
			m.Resources = append(m.Resources, r.res)
		}
	}
	sort.SliceStable(m.Resources, func(i, j int) bool { return m.Resources[i].Name < m.Resources[j].Name }) // see manifestOf
	for _, g := range a.grants {
		if len(g.handlers) == 0 {
			m.Grants = addGrant(m.Grants, g.grant)
			continue
		}
		for i := range m.Routes {
			if slices.Contains(g.handlers, m.Routes[i].Handler) {
				m.Routes[i].Grants = addGrant(m.Routes[i].Grants, g.grant)
			}
		}
		for i := range m.Functions {
			if slices.Contains(g.handlers, m.Functions[i].Name) {
				m.Functions[i].Grants = addGrant(m.Functions[i].Grants, g.grant)
			}
		}
	}
}

// addGrant adds g to gs unless it is there already.
func addGrant(gs []manifest.Grant, g manifest.Grant) []manifest.Grant {
	if slices.Contains(gs, g) {
		return gs
	}
	return append(gs, g)
}

// sourceOf sets f's source: a declared resource ("resource:NAME") or a
// name or ARN.
func sourceOf(f *manifest.Function, source string) {
	if name, ok := strings.CutPrefix(source, apphook.SourcePrefix); ok {
		f.SourceResource = name
		return
	}
	f.Source = source
}
