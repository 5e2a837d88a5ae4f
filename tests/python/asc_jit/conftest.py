"""Shared set-up of the @asc.jit tests: one kernel cache directory per test session.

Compiling a kernel takes seconds on the 2-core machines; every test of the
session (and the subprocesses they start) shares the compiled kernels through
this directory, so each distinct kernel compiles once.
"""

import os
import shutil
import tempfile

import pytest

_CACHE = tempfile.mkdtemp(prefix="asc-jit-test-cache-")
os.environ["PYASC_CACHE_DIR"] = _CACHE


@pytest.fixture(scope="session", autouse=True)
def _jit_cache_dir():
    yield _CACHE
    shutil.rmtree(_CACHE, ignore_errors=True)


@pytest.fixture
def jit_cache_dir():
    return _CACHE
