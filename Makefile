# lanes — build, test, demo and benchmarks.
# `make test` is what CI runs (.ci/run); `make demo` shows lanes on examples/.

CARGO ?= cargo
VENV := .venv
PY := $(VENV)/bin/python
LANES := target/release/lanes

.PHONY: all setup build install test lint test-rust test-python fmt-check demo bench fuzz clean

all: build

setup:
	@scripts/setup.sh

build: setup
	$(CARGO) build --release --bin lanes

# `make install PREFIX=$HOME/.local`: the binary, the CMake module and the docs.
PREFIX ?= /usr/local
install: build
	scripts/install.sh $(DESTDIR)$(PREFIX) target/release/lanes

# The findings cache of the `lanes` processes the tests start: a directory
# of the build, emptied first, never the user's ~/.cache.
test: export LANES_CACHE_DIR = $(CURDIR)/target/test-cache
test: setup
	rm -rf $(CURDIR)/target/test-cache
	$(CARGO) fmt --all -- --check
	$(CARGO) build --bin lanes
	$(CARGO) test --workspace --no-fail-fast
	LANES=$(CURDIR)/target/debug/lanes $(PY) -m pytest -q -n auto --durations=15 tests
	editors/vscode/ci.sh
	node editors/vscode/e2e/e2e.js $(CURDIR)/target/debug/lanes
	editors/test/nvim-test.sh
	$(MAKE) --no-print-directory lint

# Clippy with every warning denied (the lints allowed are in Cargo.toml).
# A toolchain without the clippy component skips it with a note. Its own
# target directory: run from `make test` in the build's, it left a failed
# `rustc` probe in target/.rustc_info.json that stopped every later cargo
# command ("failed to run `rustc` to learn about target-specific
# information"); not explained yet.
lint:
	@if $(CARGO) clippy --version >/dev/null 2>&1; then \
	  $(CARGO) clippy --workspace --all-targets --quiet --target-dir $(CURDIR)/target/lint -- -D warnings; \
	else echo "lint: cargo clippy is not installed; skipped"; fi

demo: build
	@echo "== lanes check examples/*.cl"
	@$(LANES) check examples/*.cl
	@echo
	@echo "== lanes check tests/kernels/invalid/multi_three_kernels.cl (a file with mistakes; exit status 1)"
	@$(LANES) check tests/kernels/invalid/multi_three_kernels.cl || true
	@echo
	@echo "== lanes build examples/convolution.cl for AVX-512 (16 lanes), link it into a C program"
	@mkdir -p target/demo
	$(LANES) build examples/convolution.cl -o target/demo/conv.o --header target/demo/conv.h --target avx512skx-x16
	@echo "   zmm instructions: $$(objdump -d target/demo/conv.o | grep -c zmm), k-mask uses: $$(objdump -d target/demo/conv.o | grep -c '%k[1-7]')"
	cc -O2 -Itarget/demo examples/c/convolution_main.c target/demo/conv.o -o target/demo/conv -lm
	@if grep -q avx512f /proc/cpuinfo; then target/demo/conv; \
	else echo "   (this CPU has no AVX-512: building for the host instead)"; \
	  $(LANES) build examples/convolution.cl -o target/demo/conv.o --header target/demo/conv.h && \
	  cc -O2 -Itarget/demo examples/c/convolution_main.c target/demo/conv.o -o target/demo/conv -lm && target/demo/conv; fi
	@echo
	@echo "== lanes run examples/mandelbrot.cl --verify (against the scalar interpreter), timed"
	$(LANES) run examples/mandelbrot.cl --global 240,160 --arg iterations=zeros:38400 --arg width=240 --arg height=160 --arg x_min=-2.2 --arg y_min=-1.2 --arg step=0.015 --arg max_iter=100 --verify --repeat 5 --print 4

bench: setup
	scripts/intel-opencl.sh
	$(CARGO) build --release --bin lanes && $(CARGO) run --release -p lanes-bench -- frontend analysis codegen lsp precond budget

# Runs the front-end fuzz target (needs `cargo install cargo-fuzz`); SECONDS=600 by default.
FUZZ_SECONDS ?= 600
fuzz:
	mkdir -p fuzz/corpus/frontend && cd fuzz && $(CARGO) fuzz run -s none frontend corpus/frontend ../tests/kernels/valid ../tests/kernels/invalid ../examples -- -max_total_time=$(FUZZ_SECONDS) -dict=frontend.dict

clean:
	$(CARGO) clean
