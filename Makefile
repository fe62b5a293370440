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

try: build
	$(BIN) sandbox status
	$(BIN) check shell 'git status && rm -rf build'; true
	$(BIN) exec -- ls -la

vet: deps
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: deps fmt-check vet
	CGO_ENABLED=1 $(GO) test -count=1 -timeout 30m ./...

bench: build
	bench/run
