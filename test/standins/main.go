// Command standins serves, on 127.0.0.1, the AWS stand-ins the deploy tests
// use and prints the environment that points the AWS SDK, and so the
// framework CLI, at them, for trying a stage's whole lifecycle by hand
// without an AWS account:
//
//	go run ./test/standins > /tmp/standins.env &
//	until [ -s /tmp/standins.env ]; do sleep 1; done
//	set -a; . /tmp/standins.env; set +a
//	framework deploy --yes && framework invoke api && framework logs
//
// CloudFormation and STS are test/cfnstandin's, on -port (default 4700).
// Every other service (Lambda, CloudWatch Logs, Secrets Manager, SSM, S3,
// IAM, DynamoDB, SQS, ...) is moto's (python3 -m moto.server), which it
// starts as a child process and serves behind -aws-port (default 4701);
// moto itself listens on -moto-port (default: any free port).
// What a deploy creates through the CloudFormation stand-in (the
// functions, their role, the buckets, the declared secrets and
// parameters) is created in moto too, so that `invoke`, `logs`, `deploy
// --hotswap`, `deploy --watch` and `secret set --stage` find it.
//
// moto runs no function code without Docker: its Lambda answers an Invoke
// with the event itself. The stand-in writes the invocation's START, END
// and REPORT lines to the function's log group, as Lambda does, with one
// line saying that no code ran. Without moto, it serves CloudFormation,
// STS and S3 (gofakes3) only, and says so.
//
// State lives in memory until the command is stopped (Ctrl-C, SIGTERM,
// SIGHUP), or its parent process ends: killing the `go run` that started
// it, even with SIGKILL, stops it and moto with it (on Linux, where the
// kernel tells a process its parent ended).
package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	var o options
	flag.IntVar(&o.port, "port", 4700, "port of 127.0.0.1 for CloudFormation and STS (0: any free one)")
	flag.IntVar(&o.awsPort, "aws-port", 4701, "port of 127.0.0.1 for every other service: moto's, or S3 alone without moto (0: any free one)")
	flag.IntVar(&o.motoPort, "moto-port", 0, "port of 127.0.0.1 moto itself listens on, behind -aws-port (0: any free one)")
	flag.Parse()
	// `go run` does not pass SIGTERM on to the program it runs: end with
	// the parent rather than outlive it, holding the ports and moto.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	endWithParent(syscall.SIGTERM)
	dir, err := os.MkdirTemp("", "framework-standins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "standins:", err)
		os.Exit(1)
	}
	o.dir = dir
	s, err := start(o, os.Stderr)
	if err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, "standins:", err)
		os.Exit(1)
	}
	printEnv(os.Stdout, s.env)
	fmt.Fprintln(os.Stderr, s.summary())
	<-sig
	s.close()
	os.RemoveAll(dir)
}

// printEnv writes env as lines a shell sources (`set -a; . FILE`), unset
// for the empty ones, in one write: a file redirected to is empty until it
// is complete.
func printEnv(w io.Writer, env map[string]string) {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if env[k] == "" {
			fmt.Fprintf(&b, "unset %s\n", k)
			continue
		}
		fmt.Fprintf(&b, "%s=%s\n", k, env[k])
	}
	_, _ = io.WriteString(w, b.String())
}
