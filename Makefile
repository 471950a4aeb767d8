# vpbench: `make run` builds and runs the built-in demo; `make test` runs every test.
# Both work on a fresh Debian machine: tools/ensure-go.sh fetches a Go toolchain when none
# is installed, and the fragments in mk/ install the system packages each needs: `make
# run` (and build) only what building and running vpbench needs (deps), `make test` that
# and what only the tests need (test-deps).

SHELL := /bin/bash
GOBIN_DIR := $(shell tools/ensure-go.sh)
export PATH := $(if $(GOBIN_DIR),$(GOBIN_DIR):,)$(PATH)
GO ?= go
BIN := bin/vpbench
BENCHTIME ?= 2s

.PHONY: all build run test check bench deps test-deps fmt clean

all: build

# Fragments in mk/ add what a capability needs: each appends its install targets to
# RUN_DEPS when building or running vpbench needs them (run before build, run and test),
# or to TEST_DEPS when only tests need them (run before test only); targets to TEST_EXTRA
# (run after the Go tests) and environment to TEST_ENV (set for the Go tests, e.g. a
# display). DEPS, the name fragments used before the split, counts as RUN_DEPS. See
# mk/README.
RUN_DEPS :=
TEST_DEPS :=
DEPS :=
TEST_EXTRA :=
TEST_ENV :=
include $(sort $(wildcard mk/*.mk))

# deps: what building and running vpbench needs; test-deps: that and what only the
# tests need.
deps: $(RUN_DEPS) $(DEPS)
	@$(GO) version >/dev/null

test-deps: deps $(TEST_DEPS)

build: deps
	$(GO) build -o $(BIN) ./cmd/vpbench

run: build
	./$(BIN)

# test: formatting and vet, every test, and the concurrent packages' tests under the race
# detector (the solver's concurrent tests, and every package with goroutines: terrain,
# surface, the scene, the UI, the preview, the script watchdog, the command, the pools).
# -timeout 30m: on a loaded machine (load 8 on 2 cores) the script package's race run
# takes over 12 minutes, past go test's default of 10.
test: test-deps
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(TEST_ENV) $(GO) test -count=1 -timeout 30m ./...
	$(GO) test -count=1 -timeout 30m -race -run 'Snapshot|Workers|Dense|Allocs|HostKernels|Heights' ./gpusim/
	GOMAXPROCS=2 $(TEST_ENV) $(GO) test -count=1 -timeout 30m -race ./terrain/ ./surface/ ./waves/ ./scene/ ./engine/ ./timing/ ./tui/ ./preview/ ./script/ ./cmd/vpbench/ ./internal/...
	@for t in $(TEST_EXTRA); do $(MAKE) --no-print-directory $$t || exit 1; done

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./gpusim/

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
