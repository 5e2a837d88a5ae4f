#!/usr/bin/env bash
# Runs the array API conformance suite (data-apis/array-api-tests) against pyasc.
#
#   scripts/array_api_tests.sh TESTS_GIT_DIR SPEC_GIT_DIR [pytest args...]
#
# TESTS_GIT_DIR  bare git dir of data-apis/array-api-tests (e.g.
#                /work/.mirror/data-apis+array-api-tests/repo)
# SPEC_GIT_DIR   bare git dir of data-apis/array-api (the suite's `array-api`
#                submodule; the commit the suite pins is exported)
#
# Both are exported (git archive) into a temporary directory, never into this
# repository. pytest runs there with ARRAY_API_TESTS_MODULE=pyasc and
# ARRAY_API_TESTS_VERSION=2024.12. Environment:
#   PYTHON          interpreter (default: <repo>/.venv/bin/python); pyasc must be
#                   importable from it, e.g. through PYTHONPATH (scripts/dev_install.sh)
#   MAX_EXAMPLES    hypothesis examples per test (default 100); `--max-examples N`
#                   among the pytest args overrides it as well
#   SEED            hypothesis seed (default 0; `--hypothesis-seed N` overrides it)
#   DEADLINE=1      keep hypothesis' 800 ms per-example deadline (off by default:
#                   on a shared machine it measures the load, not conformance)
#   KEEP=1          keep the temporary directory (its path is printed)
#   XFAILS          --xfails-file for the suite (default scripts/array_api_xfails.txt:
#                   the cases where the standard and NumPy 2.4 disagree and pyasc
#                   follows NumPy; XFAILS= runs without it)
# Extra arguments go to pytest (test paths relative to the suite, -k, -x, ...); without a
# test path the whole suite, array_api_tests/, runs (not the suite's own meta_tests/).
# The last line printed is the summary:
#   array-api-tests: passed=P failed=F skipped=S xfailed=X errors=E pass=P/(P+F)% strict=P/(P+F+X)%
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
tests_git="$1"; spec_git="$2"; shift 2
python="${PYTHON:-$repo/.venv/bin/python}"
max_examples="${MAX_EXAMPLES:-100}"
seed="${SEED:-0}"

args=()
have_max=0; have_seed=0; have_path=0
for a in "$@"; do
  case "$a" in
    array_api_tests*|meta_tests*|*.py|*.py::*) have_path=1 ;;
    --max-examples|--max-examples=*|--hypothesis-max-examples|--hypothesis-max-examples=*) have_max=1 ;;
    --hypothesis-seed|--hypothesis-seed=*) have_seed=1 ;;
  esac
  args+=("$a")
done
[ $have_max = 1 ] || args+=("--max-examples=$max_examples")
[ $have_seed = 1 ] || args+=("--hypothesis-seed=$seed")
[ "${DEADLINE:-0}" = 1 ] || args+=("--disable-deadline")
xfails="${XFAILS-$repo/scripts/array_api_xfails.txt}"
[ -z "$xfails" ] || args+=("--xfails-file=$xfails")
# The suite proper (its README's `pytest array_api_tests/`), not its own meta_tests.
[ $have_path = 1 ] || args+=("array_api_tests/")

work="$(mktemp -d "${TMPDIR:-/tmp}/array-api-tests.XXXXXX")"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "kept $work" >&2; else rm -rf "$work"; fi; }
trap cleanup EXIT

git --git-dir="$tests_git" archive HEAD | tar -x -C "$work"
# The commit of the `array-api` submodule the suite pins.
spec_commit="$(git --git-dir="$tests_git" ls-tree HEAD array-api | awk '{print $3}')"
if [ -z "$spec_commit" ]; then
  echo "array_api_tests.sh: $tests_git has no array-api submodule entry" >&2
  exit 2
fi
mkdir -p "$work/array-api"
git --git-dir="$spec_git" archive "$spec_commit" | tar -x -C "$work/array-api"
# The suite's conftest needs the pytest-json-report plugin (its `json_metadata`
# fixture) only to annotate JSON reports. Where the interpreter lacks it, a
# stand-in with that fixture is put in the temporary directory.
shim_path=""
if ! "$python" -c "import pytest_jsonreport" 2>/dev/null; then
  mkdir -p "$work/_shim/pytest_jsonreport"
  cat >"$work/_shim/pytest_jsonreport/__init__.py" <<'PY'
"""Stand-in for pytest-json-report: the `json_metadata` fixture only (no JSON report)."""
import pytest


@pytest.fixture
def json_metadata():
    return {}
PY
  shim_path="$work/_shim"
  args=(-p pytest_jsonreport "${args[@]}")
fi
suite_commit="$(git --git-dir="$tests_git" rev-parse --short HEAD)"
echo "array-api-tests $suite_commit, spec ${spec_commit:0:12}, python $python, args: ${args[*]}" >&2

log="$work/pytest.log"
set +e
(
  cd "$work"
  PYTHONPATH="${shim_path:+$shim_path:}${PYTHONPATH:-}" \
  ARRAY_API_TESTS_MODULE=pyasc ARRAY_API_TESTS_VERSION=2024.12 \
    "$python" -m pytest -p no:cacheprovider -rfE --tb=short "${args[@]}"
) 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# pytest's closing line ("=== 3 failed, 9 passed in 1.2s ===", without the = under -q).
summary="$(grep -E '^=* ?[0-9]+ (passed|failed|skipped|xfailed|errors?|deselected)|no tests ran' "$log" | tail -n1 || true)"
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
p=$(count passed); xp=$(count xpassed); p=$((p + xp)); f=$(count failed); s=$(count skipped); x=$(count xfailed); e=$(count 'errors?')
pct="$(awk -v p="$p" -v f="$f" 'BEGIN { if (p + f > 0) printf "%.2f", 100 * p / (p + f); else printf "n/a" }')"
strict="$(awk -v p="$p" -v f="$f" -v x="$x" 'BEGIN { if (p + f + x > 0) printf "%.2f", 100 * p / (p + f + x); else printf "n/a" }')"
echo "array-api-tests: passed=$p failed=$f skipped=$s xfailed=$x errors=$e pass=$pct% strict=$strict%"
# passed includes xpassed (a listed case that passed this run).
# pytest's 1 (some tests failed) is the measurement, not a script failure.
if [ "$rc" -le 1 ]; then exit 0; else exit "$rc"; fi
