# The two commands of the README:
#   make try    builds guard and runs it on a real command
#   make test   runs every test (unit, CLI scripts, real-kernel integration)
# Both install what a fresh machine lacks (scripts/deps) first.

GO ?= go
BIN := bin/guard

.PHONY: all build deps try test vet fmt-check bench

all: build

deps:
	@scripts/deps

build: deps
	CGO_ENABLED=1 $(GO) build -o $(BIN) ./cmd/guard

# try: what the kernel offers, a verdict without running anything, then real
# commands through the gate and the sandbox (the last one reads a path a deny
# rule blocks: the kernel refuses it, the rest of the command runs).
try: build
	$(BIN) version
	-$(BIN) check shell 'git status && rm -rf build'
	$(BIN) exec -c 'git status --short | head -5 && ls'
	-$(BIN) exec --mode bypass --deny 'read(~/.ssh)' -c 'ls ~/.ssh; echo "the sandbox kept ~/.ssh unreadable; this line still runs"'

vet: deps
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: deps fmt-check vet
	CGO_ENABLED=1 $(GO) test -count=1 -timeout 30m ./...

bench: build
	bench/run
