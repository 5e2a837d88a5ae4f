#!/bin/bash
# Builds and runs this example like a real Ascend C sample:
#   bash run.sh          # pyasc-cc (the fast path)
#   bash run.sh cmake    # CMake with asc_add_executable
# gen_data.py writes input/*.bin and output/golden.bin, the program writes
# output/output_*.bin (its stdout goes to output/run.log too), and
# verify_result.py compares them (exit status 0 = pass).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
src=$(ls *.asc)
name=${src%.asc}
flags=""
[ -f pyasc-cc.flags ] && flags=$(cat pyasc-cc.flags)
mkdir -p build
if [ "${1:-}" = "cmake" ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$($PYTHON -c 'import pyasc; print(pyasc.cmake_prefix_path)')" >/dev/null
  cmake --build build
else
  # shellcheck disable=SC2086
  $PYTHON -m pyasc.tools.cc $flags "$src" -o "build/$name"
fi
$PYTHON gen_data.py
"./build/$name" | tee output/run.log
$PYTHON verify_result.py
