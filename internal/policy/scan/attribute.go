package scan

import (
	"go/ast"
	"go/constant"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/framework-dev/framework/internal/policy"
)

// Attribution: which functions of the app reach each call.
//
// The code is cut into nodes, each a function declaration or a function
// literal, and a node's body references other nodes (calls them, takes
// them as values, holds a literal, calls an interface method a module
// type implements). The framework's registrations are the roots: what
// the arguments of app.Route or Group.Route reference runs in the API's
// function (RoutePrefix+handler when the route's name is known), of
// app.Use in the API's function, of app.OnSQSMessage("worker", ...) and
// the other event registrations and framework.LambdaFunction in the
// function they name, of app.UseFor(kind, ...) in the functions of that
// kind, and the Func of an AppAuthorizer{Name: ...} in the authorizer's
// function. main and init run in every function (EveryFunction), and so
// do the calls in package variables' initialisers; references inside a
// registration's arguments are not references of the code around the
// registration. What package variables reference, what no root reaches
// (code called through reflection, say) and what a registration with a
// name that is not a constant registers may run anywhere
// (UnknownFunction).

// framePkg is the framework's runtime, whose registrations the scan reads.
const framePkg = policy.FrameworkPackage

// frame is where the walk is: inside a node's body, or inside the
// arguments of a registration (targets set).
type frame struct {
	node    ast.Node // *ast.FuncDecl, *ast.FuncLit, or nil (package level)
	targets []string // a registration's: the functions its arguments run in
}

// graph is the module's nodes and their references.
type graph struct {
	decls    map[*types.Func]*ast.FuncDecl // module functions and methods
	methods  map[string][]*types.Func      // module methods by name
	varLits  map[types.Object][]*ast.FuncLit
	assigned map[*ast.FuncLit]bool // literals assigned to a variable: referenced through it
	handles  map[types.Object]string
	// params holds the declared names passed to a parameter of a module
	// function, by the parameter, at each call site ("" when unknown).
	params map[types.Object][]string
	edges  map[ast.Node][]ast.Node
	roots  map[string][]ast.Node
	ifaces []ifaceRef
}

// ifaceRef is an interface method call, a reference to every module
// method of that name whose type implements the interface.
type ifaceRef struct {
	from  frame
	iface *types.Interface
	name  string
}

func newGraph() *graph {
	return &graph{decls: map[*types.Func]*ast.FuncDecl{}, methods: map[string][]*types.Func{}, varLits: map[types.Object][]*ast.FuncLit{},
		assigned: map[*ast.FuncLit]bool{}, handles: map[types.Object]string{}, params: map[types.Object][]string{},
		edges: map[ast.Node][]ast.Node{}, roots: map[string][]ast.Node{}}
}

// handleKinds maps the resource package's handle types to resource kinds.
var handleKinds = map[string]string{"Table": "table", "Queue": "queue", "Topic": "topic", "Bucket": "bucket", "Secret": "secret", "Parameter": "parameter"}

// declareFuncs maps resource.NewTable and the like to their handles.
var declareFuncs = map[string]bool{"NewTable": true, "NewQueue": true, "NewTopic": true, "NewBucket": true, "NewSecret": true, "NewParameter": true}

// collect is the first pass over p: its function declarations, the
// function literals and resource handles assigned to variables.
func (g *graph) collect(p *packages.Package) {
	info := p.TypesInfo
	if info == nil {
		return
	}
	noteHandle := func(lhs ast.Expr, rhs ast.Expr) {
		name, ok := declaredName(info, rhs)
		if !ok {
			return
		}
		obj := lhsObject(info, lhs)
		if obj == nil {
			return
		}
		if prev, seen := g.handles[obj]; seen && prev != name {
			name = "" // two declarations: not known
		}
		g.handles[obj] = name
	}
	noteLit := func(lhs ast.Expr, rhs ast.Expr) {
		lit, ok := ast.Unparen(rhs).(*ast.FuncLit)
		if !ok {
			return
		}
		if obj := lhsObject(info, lhs); obj != nil {
			g.varLits[obj] = append(g.varLits[obj], lit)
			g.assigned[lit] = true
		}
	}
	for _, file := range p.Syntax {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if fn, ok := info.Defs[n.Name].(*types.Func); ok {
					g.decls[fn] = n
					if n.Recv != nil {
						g.methods[fn.Name()] = append(g.methods[fn.Name()], fn)
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						noteHandle(n.Lhs[i], n.Rhs[i])
						noteLit(n.Lhs[i], n.Rhs[i])
					}
				}
			case *ast.ValueSpec:
				if len(n.Names) == len(n.Values) {
					for i := range n.Names {
						noteHandle(n.Names[i], n.Values[i])
						noteLit(n.Names[i], n.Values[i])
					}
				}
			case *ast.CompositeLit:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						noteHandle(kv.Key, kv.Value)
					}
				}
			}
			return true
		})
	}
}

// lhsObject is the variable or field an assignment's left side names.
func lhsObject(info *types.Info, lhs ast.Expr) types.Object {
	switch l := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		if obj := info.Defs[l]; obj != nil {
			return obj
		}
		return info.Uses[l]
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[l]; ok {
			return sel.Obj()
		}
		return info.Uses[l.Sel]
	}
	return nil
}

// declaredName is the name given to resource.NewXxx(app, "name", ...) in
// e, when e is such a call with a constant name.
func declaredName(info *types.Info, e ast.Expr) (string, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) < 2 {
		return "", false
	}
	fn := calleeFunc(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != policy.HandlePackage || !declareFuncs[fn.Name()] {
		return "", false
	}
	return constString(info, call.Args[1])
}

// constString is e's value when it is a constant string.
func constString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// calleeFunc is the function or method a call calls statically, or nil.
func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	if fn != nil {
		fn = fn.Origin()
	}
	return fn
}

// registration returns the functions a call of the framework's runs its
// arguments in, or ok false when it is no registration.
func registration(info *types.Info, call *ast.CallExpr) (targets []string, ok bool) {
	fn := calleeFunc(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != framePkg {
		return nil, false
	}
	sig := fn.Type().(*types.Signature)
	recv := ""
	if sig.Recv() != nil {
		if n := namedOf(sig.Recv().Type()); n != nil {
			recv = n.Obj().Name()
		}
	}
	name := fn.Name()
	switch {
	case recv == "" && (name == "LambdaFunction" || name == "WebSocketRoute"):
		if len(call.Args) > 1 {
			if s, ok := constString(info, call.Args[1]); ok {
				return []string{s}, true
			}
		}
		return []string{policy.UnknownFunction}, true
	case recv != "App" && recv != "Group":
		return nil, false
	case name == "Route":
		return []string{routeTarget(info, call)}, true
	case name == "Use":
		return []string{policy.APIFunction}, true
	case recv == "App" && name == "UseFor":
		if len(call.Args) > 0 {
			if k, ok := constString(info, call.Args[0]); ok {
				switch k {
				case "http":
					return []string{policy.APIFunction}, true
				case "all":
					return []string{policy.EveryFunction}, true
				}
				return []string{policy.KindPrefix + k}, true
			}
		}
		return []string{policy.UnknownFunction}, true
	case recv == "App" && strings.HasPrefix(name, "On"):
		if len(call.Args) > 0 {
			if s, ok := constString(info, call.Args[0]); ok {
				return []string{s}, true
			}
		}
		return []string{policy.UnknownFunction}, true
	}
	return nil, false
}

// routeTarget is RoutePrefix + the route's handler name when the scan
// can tell it (a Name option with a constant, or a handler that is a
// function declared by name), else APIFunction.
func routeTarget(info *types.Info, call *ast.CallExpr) string {
	for _, a := range call.Args[min(2, len(call.Args)):] {
		c, ok := ast.Unparen(a).(*ast.CallExpr)
		if !ok || len(c.Args) != 1 {
			continue
		}
		if fn := calleeFunc(info, c); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == framePkg && fn.Name() == "Name" {
			if s, ok := constString(info, c.Args[0]); ok {
				return policy.RoutePrefix + s
			}
		}
	}
	if len(call.Args) > 1 {
		if id, ok := ast.Unparen(call.Args[1]).(*ast.Ident); ok {
			if fn, ok := info.Uses[id].(*types.Func); ok && fn.Type().(*types.Signature).Recv() == nil {
				return policy.RoutePrefix + fn.Name()
			}
		}
	}
	return policy.APIFunction
}

// appAuthorizer returns the name of a framework.AppAuthorizer literal.
func appAuthorizer(info *types.Info, lit *ast.CompositeLit) (string, bool) {
	tv, ok := info.Types[lit]
	if !ok {
		return "", false
	}
	n := namedOf(tv.Type)
	if n == nil || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != framePkg || n.Obj().Name() != "AppAuthorizer" {
		return "", false
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
				return constString(info, kv.Value)
			}
		}
	}
	return "", false
}

// ref records that the code of fr references node.
func (g *graph) ref(fr frame, node ast.Node) {
	if fr.targets != nil {
		for _, t := range fr.targets {
			g.roots[t] = append(g.roots[t], node)
		}
		return
	}
	g.edges[fr.node] = append(g.edges[fr.node], node)
}

// refObject records a reference to a module function or method, or to a
// variable holding function literals.
func (g *graph) refObject(fr frame, obj types.Object) {
	switch o := obj.(type) {
	case *types.Func:
		if d, ok := g.decls[o.Origin()]; ok {
			g.ref(fr, d)
		}
	case *types.Var:
		for _, lit := range g.varLits[o] {
			g.ref(fr, lit)
		}
	}
}

// resolveInterfaces adds the references of interface method calls to the
// module methods that may answer them.
func (g *graph) resolveInterfaces() {
	for _, c := range g.ifaces {
		for _, m := range g.methods[c.name] {
			recv := m.Type().(*types.Signature).Recv().Type()
			if types.Implements(recv, c.iface) || types.Implements(types.NewPointer(types.Unalias(recv)), c.iface) {
				if d, ok := g.decls[m]; ok {
					g.ref(c.from, d)
				}
			}
		}
	}
}

// reach returns, for each node, the functions whose roots reach it.
func (g *graph) reach() map[ast.Node][]string {
	out := map[ast.Node][]string{}
	targets := make([]string, 0, len(g.roots))
	for t := range g.roots {
		targets = append(targets, t)
	}
	slices.Sort(targets)
	for _, t := range targets {
		seen := map[ast.Node]bool{}
		queue := slices.Clone(g.roots[t])
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if seen[n] {
				continue
			}
			seen[n] = true
			out[n] = append(out[n], t)
			queue = append(queue, g.edges[n]...)
		}
	}
	return out
}

// functionsOf is the Functions of a call made in node.
func functionsOf(reach map[ast.Node][]string, node ast.Node) []string {
	fs := reach[node]
	switch {
	case node == nil || slices.Contains(fs, policy.EveryFunction):
		return []string{policy.EveryFunction}
	case len(fs) == 0:
		return []string{policy.UnknownFunction}
	}
	return slices.Clone(fs)
}

// handleTarget returns the declared resource a handle method call's
// receiver is: its kind from its type, its name from the variable or
// field holding it when known (resolved after the walk).
func handleTarget(info *types.Info, sel *ast.SelectorExpr) (kind string, obj types.Object, ok bool) {
	tv, ok := info.Types[sel.X]
	if !ok {
		return "", nil, false
	}
	n := namedOf(tv.Type)
	if n == nil || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != policy.HandlePackage {
		return "", nil, false
	}
	kind, ok = handleKinds[n.Obj().Name()]
	if !ok {
		return "", nil, false
	}
	switch x := ast.Unparen(sel.X).(type) {
	case *ast.Ident:
		obj = info.Uses[x]
	case *ast.SelectorExpr:
		if s, ok := info.Selections[x]; ok {
			obj = s.Obj()
		}
	}
	return kind, obj, true
}

// inputTarget finds, in an SDK call's arguments, the handle whose Name,
// ARN or URL the input names (TableName: aws.String(todos.Name())).
func inputTarget(info *types.Info, call *ast.CallExpr) (kind string, obj types.Object, ok bool) {
	for _, a := range call.Args {
		ast.Inspect(a, func(n ast.Node) bool {
			if ok {
				return false
			}
			c, isCall := n.(*ast.CallExpr)
			if !isCall {
				return true
			}
			sel, isSel := ast.Unparen(c.Fun).(*ast.SelectorExpr)
			if !isSel {
				return true
			}
			switch sel.Sel.Name {
			case "Name", "ARN", "URL", "StreamARN":
				kind, obj, ok = handleTarget(info, sel)
				if dl := deadLetterOf(sel); !ok && dl != nil {
					kind, obj, ok = handleTarget(info, dl)
				}
			}
			return !ok
		})
		if ok {
			return kind, obj, ok
		}
	}
	return "", nil, false
}

// noteParams records the declared names passed to module functions'
// handle parameters at a call.
func (g *graph) noteParams(info *types.Info, call *ast.CallExpr) {
	fn := calleeFunc(info, call)
	if fn == nil {
		return
	}
	if _, ok := g.decls[fn]; !ok {
		return
	}
	sig := fn.Type().(*types.Signature)
	for i, a := range call.Args {
		if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
			break
		}
		p := sig.Params().At(i)
		n := namedOf(p.Type())
		if n == nil || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != policy.HandlePackage {
			continue
		}
		name := ""
		if obj := lhsObject(info, a); obj != nil {
			name = g.handles[obj]
		}
		g.params[p] = append(g.params[p], name)
	}
}

// handleName is the declared name of the handle held by obj, or "".
func (g *graph) handleName(obj types.Object) string {
	if obj == nil {
		return ""
	}
	if name, ok := g.handles[obj]; ok {
		return name
	}
	names := slices.Compact(slices.Sorted(slices.Values(g.params[obj])))
	if len(names) == 1 {
		return names[0]
	}
	return ""
}

// deadLetterOf returns, for the selector of q.DeadLetter().URL() (or
// Name, ARN), the selector q.DeadLetter; nil for any other.
func deadLetterOf(sel *ast.SelectorExpr) *ast.SelectorExpr {
	c, ok := ast.Unparen(sel.X).(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return nil
	}
	inner, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
	if !ok || inner.Sel.Name != "DeadLetter" {
		return nil
	}
	return inner
}

// namesDeadLetter reports whether an SDK call's input names a queue
// handle's dead-letter queue: q.DeadLetter().URL(), .ARN() or .Name().
func namesDeadLetter(call *ast.CallExpr) bool {
	found := false
	for _, a := range call.Args {
		ast.Inspect(a, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && !found {
				switch sel.Sel.Name {
				case "Name", "ARN", "URL":
					found = deadLetterOf(sel) != nil
				}
			}
			return !found
		})
	}
	return found
}
