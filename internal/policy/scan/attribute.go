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
// registration.
//
// Function values are followed where they go rather than counted where
// they are written: each variable (local, package-level, a struct field,
// a parameter, a function's result) is a node too, referenced where it is
// used, and referencing what is assigned to it. So a closure kept in a
// variable, a method value (h.get) or method expression ((*T).get), a
// function passed as an argument to a module function (to its parameter)
// and a closure a function returns (to its result, and on to the
// variable the caller assigns the call to) run in the functions whose
// code uses the variable, not in the code that made the value: a closure
// shared by two routes is reached from both.
//
// Where the walk cannot follow a value, it counts it where it is written,
// so every function that may run it is held to it (fail closed): a
// function value stored in a map, a slice or a struct literal, converted
// to an interface, passed to a function outside the module or called
// through a variable holding a call's result, is referenced by the code
// that stores it (main's: every function). What package variables
// reference, what no root reaches (code called through reflection, say)
// and what a registration with a name that is not a constant registers
// may run anywhere (UnknownFunction): package perms holds it to the
// declarations of every function and route.

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
	decls   map[*types.Func]*ast.FuncDecl // module functions and methods
	methods map[string][]*types.Func      // module methods by name
	// vars holds the node standing for each variable a function value
	// may be assigned to (see varNode).
	vars map[types.Object]ast.Node
	// assigned holds the literals, and skip the identifiers of functions,
	// methods and variables, whose value goes to a variable, parameter or
	// result: referenced through it, not by the code around them.
	assigned map[*ast.FuncLit]bool
	skip     map[*ast.Ident]bool
	// valued holds the calls of module functions whose results go to a
	// variable or parameter: the code around them runs the callee, but
	// not the functions its results hold.
	valued  map[*ast.CallExpr]bool
	handles map[types.Object]string
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
	return &graph{decls: map[*types.Func]*ast.FuncDecl{}, methods: map[string][]*types.Func{}, vars: map[types.Object]ast.Node{},
		assigned: map[*ast.FuncLit]bool{}, skip: map[*ast.Ident]bool{}, valued: map[*ast.CallExpr]bool{}, handles: map[types.Object]string{}, params: map[types.Object][]string{},
		edges: map[ast.Node][]ast.Node{}, roots: map[string][]ast.Node{}}
}

// handleKinds maps the resource package's handle types to resource kinds.
var handleKinds = map[string]string{"Table": "table", "Queue": "queue", "Topic": "topic", "Bucket": "bucket", "Secret": "secret", "Parameter": "parameter"}

// declareFuncs maps resource.NewTable and the like to their handles.
var declareFuncs = map[string]bool{"NewTable": true, "NewQueue": true, "NewTopic": true, "NewBucket": true, "NewSecret": true, "NewParameter": true}

// collectDecls is the first pass over p: its function declarations. It
// runs over every package before collect, which needs them.
func (g *graph) collectDecls(p *packages.Package) {
	info := p.TypesInfo
	if info == nil {
		return
	}
	for _, file := range p.Syntax {
		for _, d := range file.Decls {
			if n, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := info.Defs[n.Name].(*types.Func); ok {
					g.decls[fn] = n
					if n.Recv != nil {
						g.methods[fn.Name()] = append(g.methods[fn.Name()], fn)
					}
				}
			}
		}
	}
}

// collect is the second pass over p: the resource handles assigned to
// variables, and where function values go (assignments, arguments of
// module functions, results).
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
	// flow records that the value of each rhs goes to the variable of the
	// lhs at the same place.
	flow := func(lhs []ast.Expr, rhs []ast.Expr) {
		objs := make([]types.Object, len(lhs))
		for i, l := range lhs {
			objs[i] = lhsObject(info, l)
		}
		g.flowTo(info, objs, rhs)
	}
	for _, file := range p.Syntax {
		ast.PreorderStack(file, nil, func(n ast.Node, stack []ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						noteHandle(n.Lhs[i], n.Rhs[i])
					}
				}
				flow(n.Lhs, n.Rhs)
			case *ast.ValueSpec:
				if len(n.Names) == len(n.Values) {
					for i := range n.Names {
						noteHandle(n.Names[i], n.Values[i])
					}
				}
				lhs := make([]ast.Expr, len(n.Names))
				for i, id := range n.Names {
					lhs[i] = id
				}
				flow(lhs, n.Values)
			case *ast.CompositeLit:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						noteHandle(kv.Key, kv.Value)
					}
				}
			case *ast.ReturnStmt:
				if results := g.resultsOf(info, stack); results != nil && len(n.Results) > 0 {
					objs := make([]types.Object, results.Len())
					for i := range results.Len() {
						objs[i] = results.At(i)
					}
					g.flowTo(info, objs, n.Results)
				}
			case *ast.CallExpr:
				// Arguments of a module function go to its parameters.
				fn := calleeFunc(info, n)
				if fn == nil {
					break
				}
				if _, ok := g.decls[fn]; !ok || isFramework(fn) {
					break // the framework's registrations are roots
				}
				sig := fn.Type().(*types.Signature)
				args := n.Args
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
					if s, ok := info.Selections[sel]; ok && s.Kind() == types.MethodExpr && len(args) > 0 {
						args = args[1:] // the receiver
					}
				}
				for i, a := range args {
					pi := i
					if sig.Variadic() && pi >= sig.Params().Len()-1 {
						if n.Ellipsis.IsValid() {
							break // a slice passed on: not followed
						}
						pi = sig.Params().Len() - 1
					}
					if pi >= sig.Params().Len() {
						break
					}
					g.assign(sig.Params().At(pi), g.valueOf(info, a, -1))
				}
			}
			return true
		})
	}
}

// resultsOf is the result list of the innermost function declaration or
// literal of stack, nil when there is none or it has no results.
func (g *graph) resultsOf(info *types.Info, stack []ast.Node) *types.Tuple {
	for i := len(stack) - 1; i >= 0; i-- {
		var t types.Type
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			if obj := info.Defs[f.Name]; obj != nil {
				t = obj.Type()
			}
		case *ast.FuncLit:
			t = info.TypeOf(f)
		default:
			continue
		}
		sig, ok := t.(*types.Signature)
		if !ok || sig.Results().Len() == 0 {
			return nil
		}
		return sig.Results()
	}
	return nil
}

// flowTo records that the values of exprs (an assignment's right side, a
// return statement's results) go to the variables objs, one each, or
// each its result of a single call. A nil variable (a map element, the
// blank identifier) is not followed: the value stays with the code
// around it.
func (g *graph) flowTo(info *types.Info, objs []types.Object, exprs []ast.Expr) {
	switch {
	case len(objs) == len(exprs):
		for i := range objs {
			if objs[i] != nil {
				g.assign(objs[i], g.valueOf(info, exprs[i], -1))
			}
		}
	case len(exprs) == 1:
		if _, ok := ast.Unparen(exprs[0]).(*ast.CallExpr); !ok {
			return
		}
		for i := range objs {
			if objs[i] != nil {
				g.assign(objs[i], g.valueOf(info, exprs[0], i))
			}
		}
	}
}

// varNode is the node standing for the variable obj (a local or package
// variable, a struct field, a parameter or a result): what is assigned to
// it runs where it is used.
func (g *graph) varNode(obj types.Object) ast.Node {
	if n, ok := g.vars[obj]; ok {
		return n
	}
	n := &ast.Ident{Name: obj.Name(), NamePos: obj.Pos()}
	g.vars[obj] = n
	return n
}

// assign records that the variable obj may hold the functions of nodes.
func (g *graph) assign(obj types.Object, nodes []ast.Node) {
	if len(nodes) == 0 {
		return
	}
	v := g.varNode(obj)
	g.edges[v] = append(g.edges[v], nodes...)
}

// valueOf returns the nodes whose code the value of e may run when the
// graph follows it: a function literal, a module function or method
// used as a value (f, h.get, (*T).get), a variable, or a call of a module
// function (its result i, every result when i < 0). It marks e so that
// the walk does not count it as a reference of the code around it, whose
// code runs the called function's body but not the value. Any other
// expression is nil: its references stay with the code around it.
func (g *graph) valueOf(info *types.Info, e ast.Expr, i int) []ast.Node {
	switch x := ast.Unparen(e).(type) {
	case *ast.FuncLit:
		g.assigned[x] = true
		return []ast.Node{x}
	case *ast.Ident:
		return g.identValue(info, x)
	case *ast.SelectorExpr:
		return g.identValue(info, x.Sel)
	case *ast.CallExpr:
		fn := calleeFunc(info, x)
		if fn == nil {
			return nil
		}
		if _, ok := g.decls[fn]; !ok {
			return nil
		}
		g.valued[x] = true
		return g.resultNodes(fn, i)
	}
	return nil
}

// identValue is valueOf for an identifier naming a module function or
// method, or a variable.
func (g *graph) identValue(info *types.Info, id *ast.Ident) []ast.Node {
	switch o := info.Uses[id].(type) {
	case *types.Func:
		if d, ok := g.decls[o.Origin()]; ok {
			g.skip[id] = true
			return []ast.Node{d}
		}
	case *types.Var:
		g.skip[id] = true
		return []ast.Node{g.varNode(o)}
	}
	return nil
}

// resultNodes are the nodes of fn's result i (every result when i < 0).
func (g *graph) resultNodes(fn *types.Func, i int) []ast.Node {
	res := fn.Type().(*types.Signature).Results()
	var out []ast.Node
	for j := range res.Len() {
		if i < 0 || i == j {
			out = append(out, g.varNode(res.At(j)))
		}
	}
	return out
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
		if v, ok := g.vars[o]; ok {
			g.ref(fr, v)
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

// refResults records that the code of fr references the results of a
// call of a module function that no variable or parameter takes (passed
// to a registration, called at once, returned on): the functions they
// hold may run there.
func (g *graph) refResults(fr frame, info *types.Info, call *ast.CallExpr) {
	if g.valued[call] {
		return
	}
	fn := calleeFunc(info, call)
	if fn == nil {
		return
	}
	if _, ok := g.decls[fn]; !ok {
		return
	}
	for _, n := range g.resultNodes(fn, -1) {
		g.ref(fr, n)
	}
}

// isFramework reports whether fn is the framework runtime's (its own
// packages are in the module when the app is in this repository): the
// arguments of its registrations are roots, not values followed into its
// code.
func isFramework(fn *types.Func) bool {
	return fn.Pkg() != nil && (fn.Pkg().Path() == framePkg || strings.HasPrefix(fn.Pkg().Path(), framePkg+"/"))
}
