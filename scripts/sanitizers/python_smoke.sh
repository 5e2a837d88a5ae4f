#!/usr/bin/env bash
# The Python smoke run under ASan+UBSan (`make test-sanitize-python`; a
# developer target, not CI):
#   scripts/sanitizers/python_smoke.sh [pytest args...]
# 1. builds pyasc._C and libasc with -fsanitize=address,undefined (-O1 -g1, as
#    the C++ suites in build/asan) in their own scikit-build tree
#    build/asan-py/wheel and installs the package into build/asan-py/site, its
#    .py files replaced by symlinks to python/pyasc (as scripts/dev_install.sh);
#    ccache shares the libasc objects with `make test-sanitize-cpp` when both
#    run with CCACHE_NOHASHDIR (the Makefile sets it: the command lines are
#    the same, only the build directory differs);
# 2. runs a representative subset of tests/python (arrays, lazy graphs and
#    fusion, streams, fork, memory, asc.ops conv/pool/norm/softmax, the ONNX
#    session) in the uninstrumented CPython with libasan preloaded (the ASan
#    runtime must come first in the process) -- or the pytest args given;
# 3. fails if pytest fails or if any sanitizer report was written, by this
#    process or by any subprocess a test starts (reports go to
#    build/asan-py/logs, so a child whose crash a test tolerates is still seen).
# LeakSanitizer is off here: CPython keeps interned objects, module state and
# arenas alive until exit on purpose, so every run "leaks"; the C++ suites
# (make test-sanitize-cpp) run with leak detection on.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=build/asan-py
site="$PWD/$root/site"
logs="$PWD/$root/logs"
py="$PWD/.venv/bin/python"
flags="-O1 -g1 -DNDEBUG"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache -C cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
fi

start=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}" "$py" -m pip install --no-build-isolation --no-deps -q --upgrade \
  --target "$site" -C build-dir="$root/wheel" -C cmake.build-type=RelWithDebInfo "${launcher[@]}" \
  -C cmake.define.ASC_SANITIZE="address,undefined" -C cmake.define.ASC_WERROR="${WERROR:-ON}" \
  -C cmake.define.CMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -C cmake.define.CMAKE_C_FLAGS_RELWITHDEBINFO="$flags" . >&2
find python/pyasc -name '*.py' | while read -r f; do
  mkdir -p "$site/$(dirname "${f#python/}")"
  ln -sf "$PWD/$f" "$site/${f#python/}"
done
echo "== sanitizer build of pyasc._C: $(( $(date +%s) - start )) s" >&2

cxx="${CXX:-c++}"
libasan="$("$cxx" -print-file-name=libasan.so)"
if [[ "$libasan" != /* ]]; then
  echo "python_smoke.sh: $cxx does not know libasan.so (got '$libasan')" >&2
  exit 2
fi

if [[ $# -eq 0 ]]; then
  t=tests/python
  set -- "$PWD/$t/array/test_ndarray.py" "$PWD/$t/array/test_indexing.py" "$PWD/$t/array/test_manipulation.py" \
    "$PWD/$t/array/test_readonly.py" "$PWD/$t/array/test_size_limits.py" "$PWD/$t/array/test_interop.py" \
    "$PWD/$t/array/test_sorting.py" "$PWD/$t/array/test_statistics.py" \
    "$PWD/$t/test_lazy.py" "$PWD/$t/test_lazy_inplace.py" "$PWD/$t/test_fusion.py" \
    "$PWD/$t/test_fusion_reduce.py" "$PWD/$t/test_fusion_epilogue.py" \
    "$PWD/$t/test_stream.py" "$PWD/$t/test_lazy_streams.py" "$PWD/$t/test_fork.py" "$PWD/$t/test_fork_locks.py" \
    "$PWD/$t/test_memory.py" "$PWD/$t/test_host_memory.py" \
    "$PWD/$t/ops/test_conv.py" "$PWD/$t/ops/test_conv_cache.py" "$PWD/$t/ops/test_pool.py" \
    "$PWD/$t/ops/test_norm.py" "$PWD/$t/ops/test_softmax_kernel.py" "$PWD/$t/models/test_session.py"
fi

rm -rf "$logs"
mkdir -p "$logs"
# halt_on_error + UBSan without recovery (-fno-sanitize-recover, CMakeLists.txt):
# the first report ends the process. allocator_may_return_null: the tests of
# huge allocations expect MemoryError, not ASan's abort on a failed malloc.
# The suppression files hold the justified false positives (one comment each).
asan_opts="halt_on_error=1:detect_leaks=0:allocator_may_return_null=1:log_path=$logs/asan"
ubsan_opts="halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan"
if [[ -s scripts/sanitizers/asan.supp ]]; then asan_opts+=":suppressions=$PWD/scripts/sanitizers/asan.supp"; fi
if [[ -s scripts/sanitizers/ubsan.supp ]]; then ubsan_opts+=":suppressions=$PWD/scripts/sanitizers/ubsan.supp"; fi

start=$(date +%s)
status=0
(cd /tmp && LD_PRELOAD="$libasan" ASAN_OPTIONS="$asan_opts" UBSAN_OPTIONS="$ubsan_opts" PYTHONPATH="$site" \
  PYTHONFAULTHANDLER=1 "$py" -m pytest -q -p no:cacheprovider "$@") || status=$?
echo "== sanitizer pytest run: $(( $(date +%s) - start )) s, exit $status" >&2

reports=$(find "$logs" -type f | sort)
if [[ -n "$reports" ]]; then
  for r in $reports; do
    echo "==== $r" >&2
    cat "$r" >&2
  done
  echo "python_smoke.sh: $(echo "$reports" | wc -l) sanitizer report(s) above" >&2
  exit 1
fi
exit "$status"
