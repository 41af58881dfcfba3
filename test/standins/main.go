// Command standins serves the AWS stand-ins the deploy tests use
// (CloudFormation and STS from test/cfnstandin, S3 from gofakes3) on
// 127.0.0.1 and prints the environment that points the AWS SDK, and so
// `framework deploy`, `diff`, `url` and `destroy`, at them, for trying the
// deploy lifecycle by hand without an AWS account:
//
//	go run ./test/standins > /tmp/standins.env &
//	set -a; . /tmp/standins.env; set +a
//	framework deploy --yes
//
// State lives in memory until the command is stopped (Ctrl-C).
package main

import (
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/framework-dev/framework/test/cfnstandin"
)

func main() {
	dir, err := os.MkdirTemp("", "framework-standins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "standins:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	aws, stop := cfnstandin.Serve()
	defer stop()
	env := aws.Environ(dir)
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if env[k] == "" {
			fmt.Printf("unset %s\n", k)
			continue
		}
		fmt.Printf("%s=%s\n", k, env[k])
	}
	fmt.Fprintf(os.Stderr, "standins: CloudFormation and STS on %s, S3 on %s; Ctrl-C stops them\n", aws.CFNURL, aws.S3URL)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}
