# pyasc developer entry points. `make demo` and `make test` set everything up
# on a fresh Debian machine (scripts/bootstrap.sh) before they run.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
JOBS ?= $(shell nproc)
# Recursive (=) so the test happens after bootstrap may have installed ccache.
CCACHE = $(shell command -v ccache 2>/dev/null)
LAUNCHER = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache,)
CPP_BUILD := build/cpp
EXAMPLE_BUILD := build/vector_add

.PHONY: all setup build cpp-test install example py-test test demo bench clean

all: test

setup:
	@bash scripts/bootstrap.sh

# C++ library, GoogleTest suites, C++ benchmarks.
build: setup
	cmake -S . -B $(CPP_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) -DPython_EXECUTABLE=$(CURDIR)/$(PY)
	cmake --build $(CPP_BUILD) -j $(JOBS)

cpp-test: build
	ctest --test-dir $(CPP_BUILD) --output-on-failure -j $(JOBS)

# The pyasc package into .venv (scikit-build-core; ccache reuses the C++ objects).
install: setup
	CMAKE_ARGS="$(LAUNCHER)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install --no-build-isolation -q .

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

# The main demo: vector_add written in the Ascend C model, called from Python.
demo: example
	PYTHONPATH=$(CURDIR)/$(EXAMPLE_BUILD) $(PY) examples/vector_add/demo.py

# Benchmarks print ratios against their peers measured in the same run.
# Every benchmark prints its ratio against a peer measured in the same run.
bench: build example install
	$(CPP_BUILD)/bench_vector_add
	$(CPP_BUILD)/bench_launch
	$(CPP_BUILD)/bench_memory_pool
	$(CPP_BUILD)/bench_profiler
	$(CPP_BUILD)/bench_mmad
	set -e; for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b; done

clean:
	rm -rf build
