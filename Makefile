# Thin convenience wrapper around the CMake presets (see CMakePresets.json).
#
#   make deps            install missing build dependencies (Debian/Ubuntu; root)
#   make demo            build and run examples/quickstart.cpp
#   make test            release build of the tests and examples + ctest
#   make test-sanitize   ASan/UBSan debug build + ctest
#   make test-cuda       build the CUDA tests with nvcc and run them (skipped without a GPU)
#   make bench           release build + run every benchmark
#   make clean           remove build/
#
# Parallelism defaults to 2 jobs; override with e.g. `make test JOBS=8`. `make test-cuda
# CUDA_ARCHS=90-virtual` overrides the preset's GPU targets (there: PTX only, no machine code);
# CUDA_COMPILE_ONLY=1 builds the CUDA tests unoptimized, as a compile check (CI has no GPU).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

JOBS ?= 2
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(JOBS)
export CTEST_PARALLEL_LEVEL ?= $(JOBS)

DEPS       := cmake ninja-build g++ libxsimd-dev doctest-dev libbenchmark-dev
BENCH_PEERS := libeigen3-dev xtensor-dev

.PHONY: all deps deps-bench demo test test-sanitize test-cuda bench clean

# nvcc: from PATH, else the CUDA toolkit's default location.
NVCC ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)

all: test

# $(1): package list. $(2): "required" (fail when missing and not root) or
# "optional" (just report). Packages are only installed when something is missing.
define ensure_packages
if ! command -v dpkg >/dev/null 2>&1; then \
  echo "deps: dpkg not available; make sure these are installed: $(1)"; \
  exit 0; \
fi; \
missing=""; \
for p in $(1); do \
  status="$$(dpkg -s "$$p" 2>/dev/null || true)"; \
  case "$$status" in \
    *"Status: install ok installed"*) ;; \
    *) missing="$$missing $$p" ;; \
  esac; \
done; \
if [ -z "$$missing" ]; then \
  echo "deps: all present ($(1))"; \
elif [ "$$(id -u)" -eq 0 ]; then \
  echo "deps: installing:$$missing"; \
  apt-get update; \
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
elif [ "$(2)" = "required" ]; then \
  echo "deps: missing packages:$$missing"; \
  echo "deps: install them with: sudo apt-get install$$missing"; \
  exit 1; \
else \
  echo "deps: optional packages not installed (skipped):$$missing"; \
fi
endef

deps:
	@$(call ensure_packages,$(DEPS),required)

deps-bench: deps
	@$(call ensure_packages,$(BENCH_PEERS),optional)

demo: deps
	cmake --preset release
	cmake --build --preset release --target example_quickstart
	./build/release/examples/example_quickstart

test: deps
	cmake --preset release
	cmake --build --preset release --target tl_tests
	ctest --preset release

test-sanitize: deps
	cmake --preset debug-sanitize
	cmake --build --preset debug-sanitize --target tl_tests
	ctest --preset debug-sanitize

test-cuda: deps
	@if [ ! -x "$(NVCC)" ]; then echo "test-cuda: nvcc not found (set NVCC=...); skipping the CUDA tests"; exit 0; fi; \
	CUDACXX="$(NVCC)" cmake --preset cuda $(if $(CUDA_ARCHS),-DCMAKE_CUDA_ARCHITECTURES="$(CUDA_ARCHS)") \
	  $(if $(CUDA_COMPILE_ONLY),-DTL_CUDA_TESTS_COMPILE_ONLY=ON) && \
	cmake --build --preset cuda --target tl_cuda_tests && \
	ctest --preset cuda

bench: deps-bench
	cmake --preset release
	cmake --build --preset release
	cmake --build --preset release --target run_benchmarks

clean:
	rm -rf build
