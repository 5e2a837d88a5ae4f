#!/usr/bin/env bash
# Installs the benchmark peers (requirements/bench.txt, exact pins) into
# build/bench/site, outside the runtime environment; benchmarks/bench_nn*.py add
# that folder to sys.path. Usage: scripts/bench_setup.sh   (or: make bench-setup)
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pip install -q --target build/bench/site -r requirements/bench.txt
echo "benchmark peers in build/bench/site"
