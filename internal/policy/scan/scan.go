// Package scan finds the AWS SDK for Go v2 calls of an app (Scan) and
// makes its IAM policy from them (Generate). It loads the app's main
// package and the packages of its module it reaches with
// golang.org/x/tools/go/packages and go/types, and maps each SDK operation
// to the IAM actions it needs with package policy.
//
// The framework CLI links it (`framework local`, `invoke --local` and
// `gen-policy` scan in its process), and so does the synthesis engine
// (cli/framework-synth), whose synthesis scans the app too. `framework
// local` and `invoke --local` check each function's AWS calls against the
// policy its deployed role will have, which this scan computes, and refuse
// them when there is none: the scan cannot wait for the engine, whose
// first build takes minutes (the AWS CDK's bindings), or the first
// `framework local` on a machine would check nothing, or refuse every
// call. The CLI once left the scan to the engine so that a new user's
// first build of the CLI compiled 36 packages fewer (golang.org/x/tools,
// go/types: about 10 s of CPU time on 2 cores with an empty build cache);
// since every `framework local` needs the scan, they are compiled before
// its first serve either way. Linked, they cost the CLI 2.1 MB (31.3 to
// 33.4 MB) and nothing measurable at start-up (`framework --help` takes
// 1.00 times as long), and a scan of examples/todo takes 1.1 s, as in the
// engine; a scan-only program built on first use would have added its
// own build (about 10 s), cache and failure modes (a module proxy out of
// reach) to the first `framework local`.
package scan

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/framework-dev/framework/internal/build"
	"github.com/framework-dev/framework/internal/policy"
)

// Generate returns the IAM policy for the app whose main package is in dir:
// the CloudWatch Logs actions every function needs, plus the actions of
// every AWS SDK for Go v2 operation the app's code uses (see Scan), one
// statement per service, Resource "*", sorted and de-duplicated, so the
// same source always gives the same document.
func Generate(dir string) (*policy.Document, error) {
	rep, err := Scan(dir)
	if err != nil {
		return nil, err
	}
	return policy.FromCalls(rep.Calls), nil
}

// loadModeGraph is the first pass: the import graph, to find the module's
// packages the main package reaches.
const loadModeGraph = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule

// loadModeTypes is the second pass: syntax and types of the module's
// packages; dependencies come from compiler export data, which the go
// command caches, rather than being type-checked from source each time.
const loadModeTypes = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
	packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// loadConfig is how Scan loads the app in dir: with the flags and
// environment of the app's host build for its manifest (internal/build:
// -trimpath, the Lambda build tags, this machine's GOOS and GOARCH),
// because Go's build cache keys compiled packages by them. The export data of the app's dependencies is then the
// host build's, found in the cache, instead of every dependency, the
// standard library included, being compiled a second time (18 s for
// examples/hello on 2 cores with an empty cache, 0.2 s with it).
func loadConfig(ctx context.Context, mode packages.LoadMode, dir string) *packages.Config {
	env := build.Environ(os.Environ(), func(k string) bool { return k == "GOOS" || k == "GOARCH" })
	return &packages.Config{Context: ctx, Mode: mode, Dir: dir, Env: env, BuildFlags: []string{"-trimpath", "-buildvcs=false", "-tags=" + build.LambdaTags}}
}

// Scan finds the AWS SDK for Go v2 operations used by the app whose main
// package is in dir. It loads, with golang.org/x/tools/go/packages and
// go/types, the main package and every package of the same module it
// imports directly or indirectly, and in each of them records:
//
//   - calls of service client methods (c.GetObject(...) on *s3.Client, also
//     through struct embedding), method values (f := c.GetObject) and method
//     expressions ((*s3.Client).GetObject);
//   - paginators and waiters (s3.NewListObjectsV2Paginator →
//     ListObjectsV2, s3.NewObjectExistsWaiter → HeadObject), by the
//     operation interface their constructor takes;
//   - presigned requests (PresignClient.PresignGetObject → GetObject);
//   - feature/s3/manager uploads and downloads;
//   - calls through an interface type (one the app declares or the SDK's
//     XxxAPIClient) or a type parameter's constraint, counted for every
//     service client type that the module's code visibly uses (names as a
//     type, creates, stores or passes) and that implements the interface.
//
// Limits: the scan is per package, not per executed path: code in a reached
// package counts even if never called. Calls made inside other modules
// (libraries the app imports, other than the SDK feature helpers above)
// are not seen, nor interface calls when no concrete client type appears
// in the module's code, nor calls through reflection. Every action is
// granted on Resource "*". Add or narrow such actions by hand with
// --no-autogen-policy and .framework/policy.json.
//
// Loading needs the module's dependencies in the module cache (as go build
// does); it does not need the network when they are. If a package does not
// compile, Scan returns a *policy.CompileError listing the compiler's messages.
func Scan(dir string) (*policy.Report, error) {
	return ScanContext(context.Background(), dir)
}

// ScanContext is Scan, stopping the go commands it runs when ctx is done
// (`framework local` scans in its own process, and a Ctrl-C during the
// first scan on a machine, which compiles the dependencies' export data,
// must not wait for it).
func ScanContext(ctx context.Context, dir string) (*policy.Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("scan app in %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("scan app in %s: %w", abs, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("scan app in %s: not a directory: give the app's project directory", abs)
	}
	modPath, paths, framework, ok := reachable(abs)
	if !ok {
		if modPath, paths, framework, err = reachableByGraph(ctx, abs); err != nil {
			return nil, err
		}
	}
	inModule := func(p *packages.Package) bool { return p.Module != nil && p.Module.Path == modPath }
	pkgs, err := packages.Load(loadConfig(ctx, loadModeTypes, abs), paths...)
	if err != nil {
		return nil, fmt.Errorf("scan app in %s: %w", abs, goCommandError(err))
	}
	if errs := packageErrors(abs, pkgs, inModule); len(errs) > 0 {
		return nil, &policy.CompileError{Dir: abs, Errors: errs}
	}
	s := &scanner{dir: abs, clients: map[string]*types.Named{}, called: map[*ast.SelectorExpr]bool{}, callOf: map[*ast.SelectorExpr]*ast.CallExpr{}, g: newGraph()}
	for _, p := range pkgs {
		s.collectClients(p)
		s.g.collectDecls(p)
	}
	for _, p := range pkgs {
		s.g.collect(p)
	}
	for _, p := range pkgs {
		s.scan(p)
	}
	s.resolveInterfaces()
	s.attribute()
	sort.Slice(s.calls, func(i, j int) bool {
		a, b := s.calls[i], s.calls[j]
		if a.Pos != b.Pos {
			return lessPos(a.Pos, b.Pos)
		}
		return a.Operation < b.Operation
	})
	return &policy.Report{Module: modPath, Packages: paths, Calls: s.calls, UsesFramework: framework}, nil
}

// reachableByGraph answers what reachable does by asking the go command for
// the main package's import graph, and reports what stops the scan: a
// package that does not compile, a directory without Go files or without
// package main, no module.
func reachableByGraph(ctx context.Context, abs string) (modPath string, paths []string, framework bool, err error) {
	graph, err := packages.Load(loadConfig(ctx, loadModeGraph, abs), ".")
	if err != nil {
		return "", nil, false, fmt.Errorf("scan app in %s: %w", abs, goCommandError(err))
	}
	if len(graph) != 1 {
		return "", nil, false, fmt.Errorf("scan app in %s: expected one package in the directory, found %d", abs, len(graph))
	}
	root := graph[0]
	if len(root.GoFiles) == 0 && len(root.CompiledGoFiles) == 0 && len(root.Imports) == 0 {
		return "", nil, false, fmt.Errorf("scan app in %s: no Go files: run gen-policy in the app's project directory (the one with package main), or pass -C <dir>", abs)
	}
	if errs := packageErrors(abs, graph, nil); len(errs) > 0 {
		return "", nil, false, &policy.CompileError{Dir: abs, Errors: errs}
	}
	if root.Name != "main" {
		return "", nil, false, fmt.Errorf("scan app in %s: the directory holds package %s, not package main: run gen-policy in the app's project directory", abs, root.Name)
	}
	if root.Module == nil {
		return "", nil, false, fmt.Errorf("scan app in %s: not inside a Go module: create one with `go mod init`", abs)
	}
	modPath = root.Module.Path
	inModule := func(p *packages.Package) bool { return p.Module != nil && p.Module.Path == modPath }
	seen := map[string]bool{}
	var walk func(p *packages.Package)
	walk = func(p *packages.Package) {
		if seen[p.PkgPath] || !inModule(p) {
			return
		}
		seen[p.PkgPath] = true
		paths = append(paths, p.PkgPath)
		for _, imp := range p.Imports {
			walk(imp)
		}
	}
	walk(root)
	sort.Strings(paths)

	_, framework = root.Imports[policy.FrameworkPackage]
	return modPath, paths, framework, nil
}

// goCommandError shortens the error go/packages returns when the go command
// itself fails ("err: exit status 1: stderr: go: go.mod file not found ...")
// to the go command's own message.
func goCommandError(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "stderr: "); i >= 0 {
		if rest := strings.TrimSpace(msg[i+len("stderr: "):]); rest != "" {
			return fmt.Errorf("the go command failed: %s", rest)
		}
	}
	return fmt.Errorf("the go command failed: %w", err)
}

// packageErrors returns the errors of the packages (and their
// dependencies) as "file:line:col: message", positions relative to dir,
// in the order go/packages reports them, without duplicates. With keep set,
// only packages for which keep is true are visited below the roots.
func packageErrors(dir string, roots []*packages.Package, keep func(*packages.Package) bool) []string {
	var out []string
	seen := map[string]bool{}
	visited := map[*packages.Package]bool{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if visited[p] {
			return
		}
		visited[p] = true
		// With type errors at hand, the go command's compiler output for
		// the same package ("# pkg" and the same messages) is a duplicate.
		typed := false
		for _, e := range p.Errors {
			typed = typed || e.Kind == packages.TypeError || e.Kind == packages.ParseError
		}
		for _, e := range p.Errors {
			if typed && e.Kind == packages.ListError {
				continue
			}
			msg := e.Msg
			if e.Pos != "" && e.Pos != "-" {
				msg = relPos(dir, e.Pos) + ": " + e.Msg
			}
			if !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
		}
		for _, imp := range p.Imports {
			if keep == nil || keep(imp) {
				visit(imp)
			}
		}
	}
	for _, p := range roots {
		visit(p)
	}
	return out
}

// relPos rewrites "file:line:col" with file relative to dir when inside it.
func relPos(dir, pos string) string {
	file, rest := pos, ""
	// Split off ":line" and ":line:col" from the right; file names may
	// themselves contain colons on some systems.
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 || !isDigits(file[i+1:]) {
			break
		}
		file, rest = file[:i], file[i:]+rest
	}
	if rel, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(rel, "..") {
		file = filepath.ToSlash(rel)
	}
	return file + rest
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// lessPos orders "file:line:col" positions by file, then numerically.
func lessPos(a, b string) bool {
	fa, la, ca := splitPos(a)
	fb, lb, cb := splitPos(b)
	if fa != fb {
		return fa < fb
	}
	if la != lb {
		return la < lb
	}
	return ca < cb
}

func splitPos(p string) (file string, line, col int) {
	file = p
	if i := strings.LastIndexByte(file, ':'); i >= 0 {
		fmt.Sscan(file[i+1:], &col)
		file = file[:i]
	}
	if i := strings.LastIndexByte(file, ':'); i >= 0 {
		fmt.Sscan(file[i+1:], &line)
		file = file[:i]
	}
	return file, line, col
}

// scanner collects calls across the module's packages.
type scanner struct {
	dir     string
	clients map[string]*types.Named // service package path → its Client type, if the module uses it
	calls   []policy.Call
	meta    []callMeta // one per call: what attribute resolves
	pending []ifaceCall
	called  map[*ast.SelectorExpr]bool // selectors that are the function of a call
	callOf  map[*ast.SelectorExpr]*ast.CallExpr
	g       *graph
	frames  []frame // where the walk is
}

// callMeta is what the scan learns of a call's place and target while
// walking, resolved once every package has been seen.
type callMeta struct {
	node   ast.Node
	kind   string       // the target handle's resource kind, "" when unknown
	handle types.Object // the variable or field holding it, when known
	// deadLetter: the input names the queue handle's dead-letter queue.
	deadLetter bool
}

// ifaceCall is a method call through an interface, resolved against the
// visible clients once every package has been seen.
type ifaceCall struct {
	pos   string
	iface *types.Interface
	name  string
	via   string // "interface" or "type parameter"
	node  ast.Node
}

// node is the function declaration or literal the walk is in (nil at
// package level).
func (s *scanner) node() ast.Node {
	if len(s.frames) == 0 {
		return nil
	}
	return s.frames[len(s.frames)-1].node
}

// frame is the innermost frame of the walk.
func (s *scanner) frame() frame {
	if len(s.frames) == 0 {
		return frame{}
	}
	return s.frames[len(s.frames)-1]
}

// attribute fills each call's Functions and Target.
func (s *scanner) attribute() {
	s.g.resolveInterfaces()
	reach := s.g.reach()
	for i := range s.calls {
		m := s.meta[i]
		s.calls[i].Functions = functionsOf(reach, m.node)
		if m.kind != "" {
			s.calls[i].Target = &policy.Target{Kind: m.kind, Name: s.g.handleName(m.handle), DeadLetter: m.deadLetter}
		}
	}
}

// serviceClient reports whether t (or what it points to) is the Client type
// of an SDK service package, and returns it.
func serviceClient(t types.Type) (*types.Named, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Name() != "Client" {
		return nil, false
	}
	if _, ok := policy.IAMPrefix(n.Obj().Pkg().Path()); !ok {
		return nil, false
	}
	return n, true
}

// collectClients records the service client types p's code mentions.
func (s *scanner) collectClients(p *packages.Package) {
	if p.TypesInfo == nil {
		return
	}
	note := func(t types.Type) {
		if n, ok := serviceClient(t); ok {
			s.clients[n.Obj().Pkg().Path()] = n
		}
	}
	for _, tv := range p.TypesInfo.Types {
		note(tv.Type)
	}
	for _, obj := range p.TypesInfo.Defs {
		if obj != nil {
			note(obj.Type())
		}
	}
}

func (s *scanner) add(pos token.Position, pkgPath, op, via string, actions []string) {
	s.addAt(pos, pkgPath, op, via, actions, callMeta{node: s.node()})
}

func (s *scanner) addAt(pos token.Position, pkgPath, op, via string, actions []string, meta callMeta) {
	if len(actions) == 0 {
		return
	}
	s.meta = append(s.meta, meta)
	s.calls = append(s.calls, policy.Call{
		Pos:       relPos(s.dir, pos.String()),
		Package:   pkgPath,
		Operation: op,
		Actions:   actions,
		Via:       via,
	})
}

// scan records the SDK operations used in p.
func (s *scanner) scan(p *packages.Package) {
	info := p.TypesInfo
	if info == nil {
		return
	}
	everyRoot := false
	for _, file := range p.Syntax {
		s.frames = s.frames[:0]
		var pushed []bool
		ast.Inspect(file, func(n ast.Node) bool {
			if n == nil {
				if pushed[len(pushed)-1] {
					s.frames = s.frames[:len(s.frames)-1]
				}
				pushed = pushed[:len(pushed)-1]
				return true
			}
			push := func(f frame) {
				s.frames = append(s.frames, f)
				pushed[len(pushed)-1] = true
			}
			pushed = append(pushed, false)
			switch n := n.(type) {
			case *ast.FuncDecl:
				push(frame{node: n})
				if n.Recv == nil && (n.Name.Name == "init" || (n.Name.Name == "main" && p.Name == "main")) {
					s.g.roots[policy.EveryFunction] = append(s.g.roots[policy.EveryFunction], n)
				}
			case *ast.FuncLit:
				if !s.g.assigned[n] {
					s.g.ref(s.frame(), n)
				}
				push(frame{node: n})
			case *ast.Ident:
				if obj := info.Uses[n]; obj != nil && !s.g.skip[n] {
					s.g.refObject(s.frame(), obj)
				}
			case *ast.CompositeLit:
				if name, ok := appAuthorizer(info, n); ok {
					push(frame{node: s.node(), targets: []string{name}})
				}
			case *ast.CallExpr:
				// Inspect visits a call before its function expression,
				// so the selector is marked before selector sees it.
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
					s.called[sel] = true
					s.callOf[sel] = n
				}
				s.g.noteParams(info, n)
				s.g.refResults(s.frame(), info, n)
				s.constructor(p, n)
				if targets, ok := registration(info, n); ok {
					push(frame{node: s.node(), targets: targets})
				}
			case *ast.SelectorExpr:
				s.selector(p, n)
			}
			return true
		})
		if !everyRoot {
			// What package variables hold may run in any function.
			s.g.roots[policy.UnknownFunction] = append(s.g.roots[policy.UnknownFunction], nil)
			everyRoot = true
		}
	}
}

// selector handles x.M where M is a method: client operations, presign
// operations, feature helpers and interface methods.
func (s *scanner) selector(p *packages.Package, sel *ast.SelectorExpr) {
	selection, ok := p.TypesInfo.Selections[sel]
	if !ok {
		return
	}
	fn, ok := selection.Obj().(*types.Func)
	if !ok || !fn.Exported() {
		return
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return
	}
	via := "call"
	switch selection.Kind() {
	case types.MethodExpr:
		via = "method expression"
	case types.MethodVal:
		if !s.called[sel] {
			via = "method value"
		}
	default:
		return
	}
	pos := p.Fset.Position(sel.Sel.Pos())
	recv := sig.Recv().Type()
	if _, isIface := recv.Underlying().(*types.Interface); isIface {
		if it, ok := selection.Recv().Underlying().(*types.Interface); ok {
			via := "interface"
			if _, isParam := types.Unalias(selection.Recv()).(*types.TypeParam); isParam {
				via = "type parameter"
			}
			s.pending = append(s.pending, ifaceCall{pos: relPos(s.dir, pos.String()), iface: it, name: fn.Name(), via: via, node: s.node()})
			s.g.ifaces = append(s.g.ifaces, ifaceRef{from: s.frame(), iface: it, name: fn.Name()})
		}
		return
	}
	named := namedOf(recv)
	if named == nil || named.Obj().Pkg() == nil {
		return
	}
	pkgPath := named.Obj().Pkg().Path()
	switch {
	case named.Obj().Name() == "Client":
		if isOperation(fn) {
			meta := callMeta{node: s.node()}
			if call, ok := s.callOf[sel]; ok {
				meta.kind, meta.handle, _ = inputTarget(p.TypesInfo, call)
				meta.deadLetter = namesDeadLetter(call)
			}
			s.addAt(pos, pkgPath, fn.Name(), via, policy.OperationActions(pkgPath, fn.Name()), meta)
		}
	case pkgPath == policy.HandlePackage:
		// A handle's own call: Secret.Value, Parameter.Value.
		if actions, ok := handleCalls[named.Obj().Name()+"."+fn.Name()]; ok {
			meta := callMeta{node: s.node()}
			meta.kind, meta.handle, _ = handleTarget(p.TypesInfo, sel)
			s.addAt(pos, pkgPath, named.Obj().Name()+"."+fn.Name(), "handle", actions, meta)
		}
	case pkgPath == policy.FrameworkPackage && named.Obj().Name() == "Connections" && p.PkgPath != policy.FrameworkPackage:
		// The WebSocket connections handle calls the API Gateway
		// management API (framework/connections.go); its own methods
		// calling each other (scanned when the app is in this
		// repository's module) are not the app's calls.
		if slices.Contains([]string{"Send", "SendJSON", "Close", "Describe"}, fn.Name()) {
			s.addAt(pos, pkgPath, "Connections."+fn.Name(), "handle", []string{policy.ManageConnections}, callMeta{node: s.node(), kind: "websocket"})
		}
	case named.Obj().Name() == "PresignClient":
		if op, ok := strings.CutPrefix(fn.Name(), "Presign"); ok && op != "" {
			s.add(pos, pkgPath, op, "presign", policy.OperationActions(pkgPath, op))
		}
	default:
		if op, actions, ok := policy.HelperActions(pkgPath + "." + named.Obj().Name() + "." + fn.Name()); ok {
			s.add(pos, pkgPath, op, "helper", actions)
		}
	}
}

// constructor handles calls of SDK package-level functions: paginator and
// waiter constructors, and feature helper functions.
func (s *scanner) constructor(p *packages.Package, call *ast.CallExpr) {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return
	}
	fn, ok := p.TypesInfo.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
		return
	}
	pkgPath := fn.Pkg().Path()
	pos := p.Fset.Position(id.Pos())
	if op, actions, ok := policy.HelperActions(pkgPath + "." + fn.Name()); ok {
		s.add(pos, pkgPath, op, "helper", actions)
		return
	}
	if _, ok := policy.IAMPrefix(pkgPath); !ok {
		return
	}
	var via string
	switch {
	case strings.HasPrefix(fn.Name(), "New") && strings.HasSuffix(fn.Name(), "Paginator"):
		via = "paginator"
	case strings.HasPrefix(fn.Name(), "New") && strings.HasSuffix(fn.Name(), "Waiter"):
		via = "waiter"
	default:
		return
	}
	// The constructor's first parameter is the operation's interface,
	// "<Operation>APIClient": it names the operation the paginator or
	// waiter calls (NewObjectExistsWaiter takes HeadObjectAPIClient).
	params := fn.Type().(*types.Signature).Params()
	if params.Len() == 0 {
		return
	}
	named := namedOf(params.At(0).Type())
	if named == nil {
		return
	}
	op, ok := strings.CutSuffix(named.Obj().Name(), "APIClient")
	if !ok || op == "" {
		return
	}
	meta := callMeta{node: s.node()}
	meta.kind, meta.handle, _ = inputTarget(p.TypesInfo, call)
	meta.deadLetter = namesDeadLetter(call)
	s.addAt(pos, pkgPath, op, via, policy.OperationActions(pkgPath, op), meta)
}

// handleCalls are the resource handles' methods that call AWS themselves,
// with the IAM actions they need.
var handleCalls = map[string][]string{
	"Secret.Value":    {"secretsmanager:GetSecretValue"},
	"Parameter.Value": {"ssm:GetParameter"},
}

// resolveInterfaces attributes interface calls to the visible clients that
// implement the interface.
func (s *scanner) resolveInterfaces() {
	paths := make([]string, 0, len(s.clients))
	for path := range s.clients {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, c := range s.pending {
		for _, path := range paths {
			client := s.clients[path]
			ptr := types.NewPointer(client)
			if !types.Implements(ptr, c.iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(ptr, false, client.Obj().Pkg(), c.name)
			fn, ok := obj.(*types.Func)
			if !ok || !isOperation(fn) {
				continue
			}
			s.calls = append(s.calls, policy.Call{Pos: c.pos, Package: path, Operation: c.name,
				Actions: policy.OperationActions(path, c.name), Via: c.via})
			s.meta = append(s.meta, callMeta{node: c.node})
		}
	}
}

// isOperation reports whether fn has the shape of an SDK operation method:
// func(ctx context.Context, params *<Name>Input, optFns ...func(*Options)) (*<Name>Output, error).
func isOperation(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() < 2 {
		return false
	}
	ctx := namedOf(sig.Params().At(0).Type())
	if ctx == nil || ctx.Obj().Pkg() == nil || ctx.Obj().Pkg().Path() != "context" || ctx.Obj().Name() != "Context" {
		return false
	}
	in, ok := sig.Params().At(1).Type().(*types.Pointer)
	if !ok {
		return false
	}
	n := namedOf(in.Elem())
	return n != nil && n.Obj().Name() == fn.Name()+"Input"
}

func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if a, ok := t.(*types.Alias); ok {
		t = types.Unalias(a)
	}
	n, _ := t.(*types.Named)
	return n
}
