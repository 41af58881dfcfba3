// Command coldbench measures a Lambda cold start of an app built with the
// framework against a bare aws-lambda-go function doing the same work
// (test/coldbench/barefn: one API Gateway event answered with
// {"hello":"world"}), and the sizes of the two binaries. `make bench` runs
// it.
//
//	go run ./test/coldbench [-app examples/hello] [-n 40]
//
// Both are built as framework deploy builds a function (linux/amd64,
// CGO_ENABLED=0, -trimpath, -ldflags "-s -w", -tags lambda.norpc). A cold
// start is the time from exec to the first answer reaching a minimal
// Runtime API served by this process on 127.0.0.1: the process starts,
// initializes, polls for the event, handles it and posts the answer. The
// two are run alternately, n times each after a warm-up, and the medians
// compared; each process is killed once it has answered.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Goals of issue 31: the app's cold start and binary size at most 1.1
// times the bare function's.
const (
	goalStart = 1.10
	goalSize  = 1.10
)

// event is the API Gateway REST proxy event both functions get.
const event = `{"resource":"/","path":"/","httpMethod":"GET","headers":{"Accept":"application/json","Host":"example.execute-api.us-east-1.amazonaws.com"},` +
	`"multiValueHeaders":{"Accept":["application/json"],"Host":["example.execute-api.us-east-1.amazonaws.com"]},` +
	`"requestContext":{"resourcePath":"/","httpMethod":"GET","path":"/dev/","stage":"dev","requestId":"r-1","identity":{"sourceIp":"127.0.0.1"}},"body":null,"isBase64Encoded":false}`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "coldbench:", err)
		os.Exit(1)
	}
}

func run() error {
	app := flag.String("app", "examples/hello", "the app's package directory")
	n := flag.Int("n", 40, "cold starts of each binary")
	before := flag.String("before", "", "another checkout of this repository (say a worktree of main) whose -app is measured too, as \"before\"")
	flag.Parse()

	dir, err := os.MkdirTemp("", "coldbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("building as deployed (linux/amd64, -trimpath, -ldflags \"-s -w\", -tags lambda.norpc)...\n")
	fns := []*function{{name: "bare aws-lambda-go", pkg: "test/coldbench/barefn"}, {name: filepath.Base(*app), pkg: *app}}
	if *before != "" {
		fns = append(fns, &function{name: filepath.Base(*app) + " (before)", pkg: *app, repo: *before})
	}
	for i, f := range fns {
		if f.bin, f.size, err = build(f.repo, f.pkg, dir, strconv.Itoa(i)); err != nil {
			return err
		}
	}

	// Warm up the page cache and the Runtime API's connections.
	for range 3 {
		for _, f := range fns {
			if _, err := coldStart(f.bin); err != nil {
				return err
			}
		}
	}
	load0 := loadavg()
	for i := range *n {
		// Rotate which goes first so none gets another's after-effects
		// every time.
		for k := range fns {
			f := fns[(i+k)%len(fns)]
			m, err := coldStart(f.bin)
			if err != nil {
				return err
			}
			f.wall = append(f.wall, m.wall)
			f.cpu = append(f.cpu, m.cpu)
		}
	}
	load1 := loadavg()

	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	bare := fns[0]
	fmt.Printf("cold start: exec to first answer via a Runtime API on 127.0.0.1, %d runs each, interleaved (load average %s -> %s)\n", *n, load0, load1)
	fmt.Printf("CPU is the process's user+system time until it is killed after its answer\n")
	fmt.Printf("%-26s %10s %8s %8s %8s %10s %8s %11s %7s\n", "function", "median ms", "p10", "p90", "ratio", "CPU ms", "ratio", "bytes", "ratio")
	for _, f := range fns {
		fmt.Printf("%-26s %10.2f %8.2f %8.2f %7.3fx %10.2f %7.3fx %11d %6.3fx\n", f.name,
			ms(median(f.wall)), ms(pct(f.wall, 0.1)), ms(pct(f.wall, 0.9)), float64(median(f.wall))/float64(median(bare.wall)),
			ms(median(f.cpu)), float64(median(f.cpu))/float64(median(bare.cpu)),
			f.size, float64(f.size)/float64(bare.size))
	}
	startRatio := float64(median(fns[1].wall)) / float64(median(bare.wall))
	sizeRatio := float64(fns[1].size) / float64(bare.size)
	fmt.Printf("cold start ratio %.3fx (goal <= %.2fx): %s\n", startRatio, goalStart, verdict(startRatio <= goalStart))
	fmt.Printf("size ratio       %.3fx (goal <= %.2fx): %s\n", sizeRatio, goalSize, verdict(sizeRatio <= goalSize))
	return nil
}

// function is one binary measured.
type function struct {
	name, pkg, repo string // repo "" is this one
	bin             string
	size            int64
	wall, cpu       []time.Duration
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// build builds the package in pkgDir of the repository in repo ("" for
// this one) as a deployed function and returns the binary to run here (the
// deployed one when this is linux/amd64) and the deployed binary's size.
func build(repo, pkgDir, dir, name string) (string, int64, error) {
	deployed := filepath.Join(dir, name+"-linux-amd64")
	if err := goBuild(repo, pkgDir, deployed, "linux", "amd64"); err != nil {
		return "", 0, err
	}
	fi, err := os.Stat(deployed)
	if err != nil {
		return "", 0, err
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		return deployed, fi.Size(), nil
	}
	host := filepath.Join(dir, name+"-host")
	if err := goBuild(repo, pkgDir, host, runtime.GOOS, runtime.GOARCH); err != nil {
		return "", 0, err
	}
	return host, fi.Size(), nil
}

func goBuild(repo, pkgDir, out, goos, goarch string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-tags=lambda.norpc", "-buildvcs=false", "-o", out, "./"+filepath.ToSlash(filepath.Clean(pkgDir)))
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOAMD64=v1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkgDir, err, b)
	}
	return nil
}

// runtimeAPI serves one cold start: /next once with event, then the
// answer. Each cold start has its own, on a port of its own, so that a
// request of the process killed before cannot take the next one's event.
type runtimeAPI struct {
	l   net.Listener
	srv *http.Server

	mu      sync.Mutex
	id      string        // request id of the current cold start
	sent    bool          // the event was handed out
	answers chan answer   // the answer of the current cold start
	stop    chan struct{} // closed by close
}

type answer struct {
	at   time.Time
	body []byte
	err  error
}

func newRuntimeAPI() (*runtimeAPI, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	a := &runtimeAPI{l: l, answers: make(chan answer, 1), stop: make(chan struct{}), id: strconv.FormatInt(time.Now().UnixNano(), 36)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", a.next)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/response", a.respond)
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/error", a.respond)
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", a.respond)
	a.srv = &http.Server{Handler: mux}
	go func() { _ = a.srv.Serve(l) }()
	return a, nil
}

func (a *runtimeAPI) close() {
	close(a.stop)
	_ = a.srv.Close()
}

// next hands out the event once; a second poll (the function waiting for
// its next event) waits until the process is killed.
func (a *runtimeAPI) next(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	id, sent := a.id, a.sent
	a.sent = true
	a.mu.Unlock()
	if sent {
		select {
		case <-r.Context().Done():
		case <-a.stop:
		}
		return
	}
	h := w.Header()
	h.Set("Lambda-Runtime-Aws-Request-Id", id)
	h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10))
	h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:coldbench")
	h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000")
	h.Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, event)
}

func (a *runtimeAPI) respond(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	w.WriteHeader(http.StatusAccepted)
	var err error
	switch {
	case strings.HasSuffix(r.URL.Path, "/init/error"):
		err = fmt.Errorf("the function failed to initialize: %s", body)
	case strings.HasSuffix(r.URL.Path, "/error"):
		err = fmt.Errorf("the function failed: %s", body)
	case r.PathValue("id") != a.currentID():
		err = fmt.Errorf("answer for unknown request %q", r.PathValue("id"))
	case !strings.Contains(string(body), `"statusCode":200`) || !strings.Contains(string(body), `hello`):
		err = fmt.Errorf("unexpected answer %s", body)
	}
	select {
	case a.answers <- answer{at: at, body: body, err: err}:
	default:
	}
}

func (a *runtimeAPI) currentID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.id
}

// measure is one cold start's figures: wall time from exec to answer, and
// the CPU time of the process.
type measure struct{ wall, cpu time.Duration }

// coldStart starts bin as a Lambda function and measures it until its
// answer to the first event.
func coldStart(bin string) (m measure, err error) {
	a, err := newRuntimeAPI()
	if err != nil {
		return m, err
	}
	defer a.close()
	cmd := exec.Command(bin)
	cmd.Env = []string{
		"AWS_LAMBDA_RUNTIME_API=" + a.l.Addr().String(),
		"AWS_LAMBDA_FUNCTION_NAME=coldbench",
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=128",
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/coldbench",
		"AWS_LAMBDA_LOG_STREAM_NAME=coldbench",
		"AWS_REGION=us-east-1",
		"TZ=:UTC",
	}
	out := &tailBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, out
	exited := make(chan error, 1)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return m, err
	}
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
		if cmd.ProcessState != nil {
			m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case ans := <-a.answers:
		if ans.err != nil {
			return m, fmt.Errorf("%s: %w\n%s", bin, ans.err, out.String())
		}
		m.wall = ans.at.Sub(start)
		return m, nil
	case err := <-exited:
		exited <- err
		return m, fmt.Errorf("%s exited before answering (%v)\n%s", bin, err, out.String())
	case <-ctx.Done():
		return m, errors.New(bin + " did not answer within 30 s")
	}
}

// tailBuffer keeps what a process writes to stderr, for an error message.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) < 1<<16 {
		t.b = append(t.b, p...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func median(ds []time.Duration) time.Duration { return pct(ds, 0.5) }

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

// loadavg is the 1-minute load average, or "?" where /proc has none.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
