# Build, test and benchmark the framework and its CLI.
GO        ?= go
BIN       := bin/framework
ROOT      := $(abspath .)
LDFLAGS   := -s -w -X github.com/framework-dev/framework/internal/cli.SourceDir=$(ROOT)
CDK_CLI_VERSION := 2.1148.1
# With GOGC=400 the Go compiler collects garbage less often and needs about
# a fifth less CPU time, for a larger peak memory; a GOGC of your own is
# kept. It changes no compiled output: Go's build cache serves builds
# without it.
BUILD_ENV := GOGC=$(or $(GOGC),400)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: build install test test-deps bench bench-synth bench-first-run demo fmt vet clean bench-hotswap

build: $(BIN)

$(BIN): FORCE
	@mkdir -p bin
	$(BUILD_ENV) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cli/framework

FORCE:

# install puts the CLI in $(go env GOBIN) (default ~/go/bin), recording this
# checkout: new-project points new projects at it, and the first synth
# builds the synthesis engine from it.
install:
	$(BUILD_ENV) $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cli/framework

# test-deps downloads the modules of the policy fixture app (tests read it
# with GOPROXY=off) and installs the official CDK CLI into a test-local
# directory for the end-to-end `cdk synth` test. It needs the module proxy
# and the npm registry once; later runs reuse what they fetched.
test-deps:
	$(GO) -C internal/policy/testdata/fixture mod download
	@if [ ! -x test/.cdk-cli/node_modules/.bin/cdk ]; then \
		mkdir -p test/.cdk-cli && cd test/.cdk-cli && \
		npm install --no-audit --no-fund --loglevel=error aws-cdk@$(CDK_CLI_VERSION) >/dev/null && \
		echo "installed aws-cdk@$(CDK_CLI_VERSION) into test/.cdk-cli"; \
	fi

test: test-deps build
	$(GO) vet ./...
	$(GO) test -race -count=1 ./framework/... ./frameworktest/...
	# Fuzz runs are bounded by executions, not time: a -fuzztime duration can
	# end in a spurious "context deadline exceeded" failure.
	$(GO) test -run '^$$' -fuzz '^FuzzEventRequest$$' -fuzztime 30000x ./framework/
	$(GO) test -run '^$$' -fuzz '^FuzzRouteMatch$$' -fuzztime 60000x ./framework/
	$(GO) test -count=1 -timeout 20m ./...

# docs regenerates the reference pages and the JSON Schema derived from the
# code (docs/cli.md, docs/config.md, docs/config.schema.json); `make test`
# fails while they are stale (internal/gendocs).
.PHONY: docs
docs:
	$(GO) generate ./internal/gendocs

bench: build
	@mkdir -p .bench
	$(GO) test -run '^$$' -bench . -benchmem ./framework/... | tee .bench/framework.txt
	$(GO) run ./test/localbench -cli $(BIN) | tee .bench/local.txt
	$(GO) run ./test/coldbench | tee .bench/coldstart.txt
	$(MAKE) bench-synth

# bench-synth: synth wall time and peak memory for 1, 50, 200 and 1,000
# routes against an empty-stack synth (the Node.js + CDK floor) of the same
# run, each in a process of its own; then a re-synth with nothing changed.
bench-synth:
	@mkdir -p .bench
	$(GO) test -run '^$$' -bench 'BenchmarkSynth' -benchtime 3x -timeout 60m ./internal/engine | tee .bench/synth.txt

# bench-hotswap: the deploy loop's own cost for examples/hello against the
# CloudFormation stand-in and moto (needs moto_server): from a saved edit
# to the function updated, hotswapping and deploying fully, in one run.
bench-hotswap:
	@mkdir -p .bench
	$(GO) test -run '^$$' -bench 'BenchmarkDeployLoop' -benchtime 5x -timeout 30m ./test | tee .bench/hotswap.txt

# bench-first-run: `make demo` on a fresh machine (empty Go module and build
# caches in temporary directories; the module proxy is used), phase by
# phase, then the first synth with its engine build (SYNTH=0 skips it).
bench-first-run:
	./scripts/bench-first-run

# demo serves examples/hello on localhost:$(PORT) with no AWS account
# (make demo PORT=8080 for another port).
PORT := $(or $(PORT),8000)
demo: build
	@echo 'Then, in another terminal: curl localhost:$(PORT)/'
	cd examples/hello && ../../$(BIN) local --port $(PORT)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin .bench

# api regenerates api/<package>.txt, the exported API of each public
# package; `make test` fails while they are stale, or when an exported
# name changed since the release (api/released/) and CHANGELOG.md's top
# section does not name it (internal/apicheck).
.PHONY: api
api:
	$(GO) generate ./internal/apicheck
