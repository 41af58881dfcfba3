// Command localbench measures `framework local` against a bare net/http
// server doing the same work (GET / answering {"hello":"world"} as JSON),
// in the same run, with the load coming from a second process over loopback
// with keep-alive connections. `make bench` runs it.
//
//	go run ./test/localbench -cli bin/framework [-duration 5s] [-conns 1,32]
//
// The same binary plays three parts: the harness (default), the bare server
// (`bare ADDR`) and the load generator (`load URL CONNS DURATION`), which
// prints one JSON line of results.
package main

import (
	"bufio"
	"context"
	"encoding/json"
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
}

func harness() error {
	cli := flag.String("cli", "bin/framework", "path of the framework CLI")
	app := flag.String("app", "examples/hello", "project served by framework local")
	duration := flag.Duration("duration", 5*time.Second, "length of each load run")
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

	fmt.Printf("GET / over loopback, keep-alive, load from a second process, %s per run\n", *duration)
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
		b, err := runLoad(self, bareURL, conns, *duration)
		if err != nil {
			return err
		}
		l, err := runLoad(self, localURL, conns, *duration)
		if err != nil {
			return err
		}
		fmt.Printf("%-16s %6d %10.0f %9.2f %9.2f %7d\n", "bare net/http", conns, b.RPS, b.P50ms, b.P99ms, b.Errors)
		fmt.Printf("%-16s %6d %10.0f %9.2f %9.2f %7d\n", "framework local", conns, l.RPS, l.P50ms, l.P99ms, l.Errors)
		ratio, p99 := l.RPS/b.RPS, l.P99ms/b.P99ms
		fmt.Printf("%-16s %6d %9.0f%% %19s %.2fx p99\n", "local/bare", conns, 100*ratio, "", p99)
		if conns == 32 {
			pass := ratio >= 0.8 && p99 <= 1.5
			ok = ok && pass
			fmt.Printf("target at 32 conns (>= 80%% of bare req/s, p99 <= 1.5x bare): %s\n", map[bool]string{true: "met", false: "NOT met"}[pass])
		}
	}
	if !ok {
		fmt.Println("note: figures on a shared 2-core machine vary between runs; rerun to confirm")
	}
	return nil
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
