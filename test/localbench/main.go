// Command localbench measures `framework local` against a bare net/http
// server doing the same work (GET / answering {"hello":"world"} as JSON),
// in the same run, with the load coming from a second process over loopback
// with keep-alive connections. `make bench` runs it.
//
//	go run ./test/localbench -cli bin/framework [-duration 3s] [-rounds 3] [-conns 1,32]
//
// Each round runs the bare server, then framework local, then the bare
// server again (so both see the same conditions on average); the figures
// printed are the medians over the rounds, with the load average of the
// machine, and the ratios are those medians' against the bare server's.
//
// The same binary plays three parts: the harness (default), the bare server
// (`bare ADDR`) and the load generator (`load URL CONNS DURATION`), which
// prints one JSON line of results.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "bare":
			bare(os.Args[2])
			return
		case "load":
			load(os.Args[2:])
			return
		}
	}
	if err := harness(); err != nil {
		fmt.Fprintln(os.Stderr, "localbench:", err)
		os.Exit(1)
	}
}

// result is one load run's figures.
type result struct {
	Requests int     `json:"requests"`
	Errors   int     `json:"errors"`
	RPS      float64 `json:"rps"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`

	cpuPerReq time.Duration // the server's CPU time per request (harness)
}

func harness() error {
	cli := flag.String("cli", "bin/framework", "path of the framework CLI")
	app := flag.String("app", "examples/hello", "project served by framework local")
	duration := flag.Duration("duration", 3*time.Second, "length of each load run")
	rounds := flag.Int("rounds", 3, "interleaved rounds per connection count")
	connList := flag.String("conns", "1,32", "comma-separated connection counts")
	flag.Parse()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cliPath, err := filepath.Abs(*cli)
	if err != nil {
		return err
	}

	// framework local
	lc := exec.Command(cliPath, "local", "--port", "0", "--json", "--no-autoreload")
	lc.Dir = *app
	lc.Stderr = os.Stderr
	out, err := lc.StdoutPipe()
	if err != nil {
		return err
	}
	if err := lc.Start(); err != nil {
		return fmt.Errorf("start %s local: %w", cliPath, err)
	}
	defer func() { _ = lc.Process.Signal(os.Interrupt); _ = lc.Wait() }()
	localURL, err := servingURL(out)
	if err != nil {
		return err
	}

	// bare net/http
	port, err := freePort()
	if err != nil {
		return err
	}
	bc := exec.Command(self, "bare", "127.0.0.1:"+strconv.Itoa(port))
	bc.Stderr = os.Stderr
	if err := bc.Start(); err != nil {
		return err
	}
	defer func() { _ = bc.Process.Kill(); _ = bc.Wait() }()
	bareURL := fmt.Sprintf("http://127.0.0.1:%d/", port)
	if err := waitUp(bareURL); err != nil {
		return err
	}
	localURL = strings.Replace(localURL, "localhost", "127.0.0.1", 1)
	if err := waitUp(localURL); err != nil {
		return err
	}

	fmt.Printf("GET / over loopback, keep-alive, load from a second process, %s per run, %d interleaved rounds (bare, local, bare), medians\n", *duration, *rounds)
	fmt.Printf("%-16s %6s %10s %9s %9s %7s\n", "server", "conns", "req/s", "p50 ms", "p99 ms", "errors")
	ok := true
	for _, cs := range strings.Split(*connList, ",") {
		conns, err := strconv.Atoi(strings.TrimSpace(cs))
		if err != nil {
			return fmt.Errorf("-conns: %w", err)
		}
		// warm both up, then measure alternately
		_, _ = runLoad(self, bareURL, conns, time.Second)
		_, _ = runLoad(self, localURL, conns, time.Second)
		load0 := loadavg()
		var bs, ls []*result
		var ratios, cpuRatios []float64
		for i := range *rounds {
			order := []string{bareURL, localURL}
			if i%2 == 1 {
				order = []string{localURL, bareURL}
			}
			var br, lr *result
			for _, url := range order {
				pid := bc.Process.Pid
				if url == localURL {
					pid = lc.Process.Pid
				}
				cpu0 := treeCPU(pid)
				r, err := runLoad(self, url, conns, *duration)
				if err != nil {
					return err
				}
				if r.Requests > 0 {
					r.cpuPerReq = (treeCPU(pid) - cpu0) / time.Duration(r.Requests)
				}
				if url == localURL {
					lr = r
				} else {
					br = r
				}
			}
			bs, ls = append(bs, br), append(ls, lr)
			ratios = append(ratios, lr.RPS/br.RPS)
			cpuRatios = append(cpuRatios, float64(lr.cpuPerReq)/float64(br.cpuPerReq))
		}
		b, l := medianResult(bs), medianResult(ls)
		fmt.Printf("%-16s %6d %10.0f %9.2f %9.2f %7d\n", "bare net/http", conns, b.RPS, b.P50ms, b.P99ms, b.Errors)
		fmt.Printf("%-16s %6d %10.0f %9.2f %9.2f %7d\n", "framework local", conns, l.RPS, l.P50ms, l.P99ms, l.Errors)
		ratio, p99 := l.RPS/b.RPS, l.P99ms/b.P99ms
		fmt.Printf("%-16s %6d %9.1f%% %19s %.2fx p99   (rounds: %s; load average %s -> %s)\n", "local/bare", conns, 100*ratio, "", p99, percents(ratios), load0, loadavg())
		// The same, both loaded at once: whatever else runs on the machine
		// disturbs both alike, so the ratios vary less between runs.
		var togetherRPS, togetherCPU []float64
		for range *rounds {
			var br, lr *result
			var berr, lerr error
			var wg sync.WaitGroup
			c0b, c0l := treeCPU(bc.Process.Pid), treeCPU(lc.Process.Pid)
			wg.Add(2)
			go func() { defer wg.Done(); br, berr = runLoad(self, bareURL, conns, *duration) }()
			go func() { defer wg.Done(); lr, lerr = runLoad(self, localURL, conns, *duration) }()
			wg.Wait()
			if berr != nil || lerr != nil {
				return errors.Join(berr, lerr)
			}
			cb, cl := treeCPU(bc.Process.Pid)-c0b, treeCPU(lc.Process.Pid)-c0l
			togetherRPS = append(togetherRPS, lr.RPS/br.RPS)
			if br.Requests > 0 && lr.Requests > 0 && cb > 0 {
				togetherCPU = append(togetherCPU, (float64(cl)/float64(lr.Requests))/(float64(cb)/float64(br.Requests)))
			}
		}
		fmt.Printf("%-16s %6d both loaded at once: local req/s %.1f%% of bare (rounds: %s), CPU per request %.2fx (rounds: %s)\n", "local/bare", conns,
			100*medianFloat(togetherRPS), percents(togetherRPS), medianFloat(togetherCPU), times(togetherCPU))
		bcpu, lcpu := medianDuration(bs), medianDuration(ls)
		fmt.Printf("%-16s %6d server CPU per request: bare %.1f us, local %.1f us, %.2fx (rounds: %s)\n", "local/bare", conns,
			float64(bcpu.Nanoseconds())/1000, float64(lcpu.Nanoseconds())/1000, float64(lcpu)/float64(bcpu), times(cpuRatios))
		if conns == 32 {
			pass := ratio >= 0.95 && p99 <= 1.2
			ok = ok && pass
			fmt.Printf("target at 32 conns (>= 95%% of bare req/s, p99 <= 1.2x bare): %s\n", map[bool]string{true: "met", false: "NOT met"}[pass])
		}
	}
	if !ok {
		fmt.Println("note: figures on a shared 2-core machine vary between runs; rerun to confirm")
	}
	return nil
}

// medianResult is the median of each figure of rs, taken separately.
func medianResult(rs []*result) *result {
	med := func(f func(*result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	out := &result{
		RPS:   med(func(r *result) float64 { return r.RPS }),
		P50ms: med(func(r *result) float64 { return r.P50ms }),
		P99ms: med(func(r *result) float64 { return r.P99ms }),
	}
	for _, r := range rs {
		out.Requests += r.Requests
		out.Errors += r.Errors
	}
	return out
}

// medianDuration is the median CPU time per request of rs.
func medianDuration(rs []*result) time.Duration {
	v := make([]time.Duration, len(rs))
	for i, r := range rs {
		v[i] = r.cpuPerReq
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// medianFloat is the median of v (0 for none).
func medianFloat(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// times formats ratios as 1.05x.
func times(ratios []float64) string {
	parts := make([]string, len(ratios))
	for i, r := range ratios {
		parts[i] = fmt.Sprintf("%.2fx", r)
	}
	return strings.Join(parts, " ")
}

// treeCPU is the CPU time (user and system) of process pid and its
// descendants so far, from /proc (0 where there is none): the server's
// work per request, which other work on the machine disturbs less than
// its throughput. framework local's server is its app process, a child.
func treeCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis: utime and stime
	// are the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	var total time.Duration
	if len(f) > 12 {
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total = time.Duration(ut+st) * 10 * time.Millisecond
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, k := range strings.Fields(string(kids)) {
			if kp, err := strconv.Atoi(k); err == nil {
				total += treeCPU(kp)
			}
		}
	}
	return total
}

// percents formats ratios as percentages.
func percents(ratios []float64) string {
	parts := make([]string, len(ratios))
	for i, r := range ratios {
		parts[i] = fmt.Sprintf("%.0f%%", 100*r)
	}
	return strings.Join(parts, " ")
}

// loadavg is the 1-minute load average, or "?" where /proc has none.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// servingURL reads framework local's JSON events until the serving one.
func servingURL(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var ev struct{ Event, URL string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == "serving" {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return ev.URL, nil
		}
	}
	return "", fmt.Errorf("framework local exited without serving")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitUp(url string) error {
	for i := 0; i < 200; i++ {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("%s did not answer 200", url)
}

// runLoad runs the load generator as a separate process.
func runLoad(self, url string, conns int, d time.Duration) (*result, error) {
	out, err := exec.Command(self, "load", url, strconv.Itoa(conns), d.String()).Output()
	if err != nil {
		return nil, fmt.Errorf("load generator: %w", err)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("load generator output %q: %w", out, err)
	}
	return &r, nil
}

// bare serves GET / like examples/hello, with net/http alone.
func bare(addr string) {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]string{"hello": "world"})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	})
	srv := &http.Server{Addr: addr, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// load sends GET requests on conns keep-alive connections for a duration
// and prints a result line.
func load(args []string) {
	url := args[0]
	conns, _ := strconv.Atoi(args[1])
	d, _ := time.ParseDuration(args[2])
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true}
			client := &http.Client{Transport: tr}
			local := make([]time.Duration, 0, 1<<16)
			e := 0
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					e++
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					e++
					continue
				}
				local = append(local, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, local...)
			errs += e
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	r := result{Requests: len(lat), Errors: errs, RPS: float64(len(lat)) / elapsed.Seconds(), P50ms: pct(0.50), P99ms: pct(0.99)}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}
