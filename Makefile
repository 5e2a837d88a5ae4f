# pyasc developer entry points. `make demo` and `make test` set everything up
# on a fresh Debian machine (scripts/bootstrap.sh) before they run.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
JOBS ?= $(shell nproc)
# Recursive (=) so the test happens after bootstrap may have installed ccache.
CCACHE = $(shell command -v ccache 2>/dev/null)
LAUNCHER = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache,)
CPP_BUILD ?= build/cpp
EXAMPLE_BUILD ?= build/vector_add
# scikit-build-core's build tree of `make install` (one per virtual environment).
WHEEL_BUILD ?= build/wheel
# The project's own code builds with -Werror (ASC_WERROR); third-party headers are system headers.
WERROR ?= ON

.PHONY: official-samples all setup build cpp-test install example py-test test test-latest test-sanitize test-sanitize-cpp test-sanitize-python test-tsan array-api lock demo bench serve-soak clean

all: test

setup:
	@PYASC_VENV=$(VENV) bash scripts/bootstrap.sh

# C++ library, GoogleTest suites, C++ benchmarks.
build: setup
	cmake -S . -B $(CPP_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) -DPython_EXECUTABLE=$(CURDIR)/$(PY) \
	  -DASC_WERROR=$(WERROR)
	cmake --build $(CPP_BUILD) -j $(JOBS)

cpp-test: build
	ctest --test-dir $(CPP_BUILD) --output-on-failure -j $(JOBS)

# The pyasc package into .venv (scikit-build-core; ccache reuses the C++ objects).
install: setup
	CMAKE_ARGS="$(LAUNCHER) -DASC_WERROR=$(WERROR)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install \
	  --no-build-isolation --no-deps -q -C build-dir=$(WHEEL_BUILD) .

# The vector_add operator project, built against the installed package.
example: install
	cmake -S examples/vector_add -B $(EXAMPLE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) \
	  -DPython_EXECUTABLE=$(CURDIR)/$(PY) \
	  -DCMAKE_PREFIX_PATH="$$($(PY) -c 'import pyasc; print(pyasc.cmake_prefix_path)');$$($(PY) -m pybind11 --cmakedir)"
	cmake --build $(EXAMPLE_BUILD) -j $(JOBS)

py-test: example
	cd /tmp && PYTHONPATH=$(CURDIR)/$(EXAMPLE_BUILD) $(CURDIR)/$(PY) -m pytest -q -p no:cacheprovider \
	  $(CURDIR)/tests/python $(CURDIR)/examples/vector_add/tests $(CURDIR)/examples/ascendc/tests

# Everything CI runs: C++ unit tests, then the Python package and example tests.
test: cpp-test py-test

# The Python suite against the newest releases requirements/dev.in allows (its
# own .venv-latest and build trees; not part of CI): the next break shows here
# before users see it. `make lock` then moves the lock to those releases.
test-latest:
	PYASC_LATEST=1 $(MAKE) VENV=.venv-latest CPP_BUILD=build/latest/cpp EXAMPLE_BUILD=build/latest/vector_add \
	  WHEEL_BUILD=build/latest/wheel py-test

# Sanitizer runs (developer targets, not part of CI: run them before a release
# and before resolving an issue that touched C++; each sanitizer tree is a
# full build of libasc, which does not fit CI's budget on a busy 2-core
# machine, see README's "Sanitizers"). Any report fails the run
# (halt_on_error, UBSan without recovery); -O1 keeps the builds short.
#   test-sanitize         both of:
#   test-sanitize-cpp     ASan+UBSan build of libasc and every GoogleTest suite
#                         in build/asan, LeakSanitizer on;
#   test-sanitize-python  pyasc._C built in build/asan too, laid out as a package
#                         in build/asan-py/site, and tests/python but its
#                         server/MPI/compiler parts under it with libasan
#                         preloaded, LeakSanitizer on
#                         (scripts/sanitizers/python_smoke.sh says which, and how
#                         CPython's own exit-time blocks are told apart);
#   test-tsan             TSan build of the suites whose code runs on the core
#                         and stream workers (runtime, graph, ops, nn) in build/tsan.
# Justified false positives are listed in scripts/sanitizers/*.supp.
ASAN_BUILD ?= build/asan
TSAN_BUILD ?= build/tsan
SAN_CMAKE = cmake -S . -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) -DPython_EXECUTABLE=$(CURDIR)/$(PY) \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DASC_WERROR=$(WERROR) -DASC_BUILD_BENCHMARKS=OFF
test-sanitize: test-sanitize-cpp test-sanitize-python

# The ASan tree also builds pyasc._C (ASC_BUILD_PYTHON) for test-sanitize-python:
# one sanitizer build of libasc serves both runs.
ASAN_CMAKE = $(SAN_CMAKE) -B $(ASAN_BUILD) -DASC_SANITIZE=address,undefined -DASC_BUILD_PYTHON=ON \
  -Dpybind11_DIR="$$($(PY) -m pybind11 --cmakedir)"

test-sanitize-cpp: setup
	$(ASAN_CMAKE)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:check_initialization_order=1:allocator_may_return_null=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

test-sanitize-python: setup
	$(ASAN_CMAKE)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target _C
	scripts/sanitizers/python_smoke.sh $(ASAN_BUILD)

test-tsan: setup
	$(SAN_CMAKE) -B $(TSAN_BUILD) -DASC_SANITIZE=thread
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target test_runtime test_graph test_ops test_nn
	@# Fork.* start workers in a child of a multi-threaded process, which TSan
	@# does not support ("starting new threads after multi-threaded fork").
	@# ops and nn: their loops run on the core workers (parallel_for, conv
	@# pieces); oneDNN and libgomp are not instrumented, so only pyasc's own
	@# accesses and synchronisation are checked there.
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1:suppressions=$(CURDIR)/scripts/sanitizers/tsan.supp \
	  ctest --test-dir $(TSAN_BUILD) -L '^(runtime|graph|ops|nn)$$' -E '^Fork\.' --output-on-failure -j $(JOBS)

# The array API conformance suite against the installed package (not part of CI):
#   make array-api ARRAY_API_TESTS=<git dir of data-apis/array-api-tests> ARRAY_API_SPEC=<git dir of data-apis/array-api>
array-api: install
	@test -n "$(ARRAY_API_TESTS)" -a -n "$(ARRAY_API_SPEC)" || { echo "usage: make array-api ARRAY_API_TESTS=DIR ARRAY_API_SPEC=DIR"; exit 2; }
	bash scripts/array_api_tests.sh $(ARRAY_API_TESTS) $(ARRAY_API_SPEC)

# Rewrite requirements/lock.txt with the newest releases (scripts/lock.sh).
lock:
	bash scripts/lock.sh

# The main demo: vector_add written in the Ascend C model, called from Python.
demo: example
	PYTHONPATH=$(CURDIR)/$(EXAMPLE_BUILD) $(PY) examples/vector_add/demo.py

# Benchmark peers (onnxruntime, onnx; requirements/bench.txt) into build/bench/site.
bench-setup:
	scripts/bench_setup.sh

# Every benchmark prints its ratio against a peer measured in the same run.
bench: build example install
	$(CPP_BUILD)/bench_vector_add
	$(CPP_BUILD)/bench_launch
	$(CPP_BUILD)/bench_memory_pool
	$(CPP_BUILD)/bench_profiler
	$(CPP_BUILD)/bench_mmad
	set -e; for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

# pyasc-serve soak (issue 18; not in CI): 10 minutes at concurrency 16, a new model version
# every 30 s; prints failed requests and the server's RSS / pool at start and end.
SOAK_SECS ?= 600
serve-soak: install
	$(PY) benchmarks/bench_serve.py --soak $(SOAK_SECS)

clean:
	rm -rf build .venv-latest

# CANN's official asc-devkit samples through their own CMakeLists and README
# commands (scripts/official_samples.py; not part of CI, takes long):
#   make official-samples MIRROR=/path/to/asc-devkit [FILTER=03_basic_api] [SAMPLE_JOBS=2]
SAMPLE_JOBS ?= 1
official-samples: install
	@test -n "$(MIRROR)" || { echo "make official-samples: set MIRROR=<asc-devkit checkout or git dir>"; exit 2; }
	$(PY) scripts/official_samples.py "$(MIRROR)" --jobs $(SAMPLE_JOBS) $(if $(FILTER),--filter $(FILTER),)
