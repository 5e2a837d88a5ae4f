"""Shared set-up of the @asc.jit tests: one kernel cache directory for the tests.

Compiling a kernel takes seconds on the 2-core machines; every test (and the
subprocesses they start) shares the compiled kernels through this directory, so
each distinct kernel compiles once. The directory persists across runs
(``$PYASC_TEST_JIT_CACHE``, default ``~/.cache/pyasc/jit-tests``): entries are
keyed by the generated C++, the compiler, the pyasc version and the installed
headers, so a later run reuses only kernels that are still exactly right and a
changed kernel or header compiles anew. Set ``PYASC_TEST_JIT_CACHE=fresh`` for a
cold cache in a temporary directory (removed at the end).
"""

import os
import shutil
import tempfile

import pytest

_WANT = os.environ.get("PYASC_TEST_JIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "pyasc",
                                                               "jit-tests")
_FRESH = _WANT == "fresh"
_CACHE = tempfile.mkdtemp(prefix="asc-jit-test-cache-") if _FRESH else _WANT
os.makedirs(_CACHE, exist_ok=True)
os.environ["PYASC_CACHE_DIR"] = _CACHE


@pytest.fixture(scope="session", autouse=True)
def _jit_cache_dir():
    yield _CACHE
    if _FRESH:
        shutil.rmtree(_CACHE, ignore_errors=True)


@pytest.fixture
def jit_cache_dir():
    return _CACHE
