# lanes — build, test, demo and benchmarks.
# `make test` is what CI runs (.ci/run); `make demo` shows lanes on examples/.

CARGO ?= cargo
VENV := .venv
PY := $(VENV)/bin/python
LANES := target/release/lanes

.PHONY: all setup build test test-rust test-python fmt-check demo bench fuzz clean

all: build

setup:
	@scripts/setup.sh

build: setup
	$(CARGO) build --release --bin lanes

test: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) build --bin lanes
	$(CARGO) test --workspace --no-fail-fast
	LANES=$(CURDIR)/target/debug/lanes $(PY) -m pytest -q tests

demo: build
	@echo "== lanes check examples/*.cl"
	@$(LANES) check examples/*.cl
	@echo
	@echo "== lanes check tests/kernels/invalid/multi_three_kernels.cl (a file with mistakes; exit status 1)"
	@$(LANES) check tests/kernels/invalid/multi_three_kernels.cl || true

bench: setup
	$(CARGO) run --release -p lanes-bench -- frontend analysis

# Runs the front-end fuzz target (needs `cargo install cargo-fuzz`); SECONDS=600 by default.
FUZZ_SECONDS ?= 600
fuzz:
	mkdir -p fuzz/corpus/frontend && cd fuzz && $(CARGO) fuzz run -s none frontend corpus/frontend ../tests/kernels/valid ../tests/kernels/invalid ../examples -- -max_total_time=$(FUZZ_SECONDS) -dict=frontend.dict

clean:
	$(CARGO) clean
