"""Fixtures of the pyasc.distributed tests (helpers in _mpi_helpers.py)."""

import pytest

from _mpi_helpers import mpirun_fixture


@pytest.fixture
def mpirun():
    """mpirun(n, script, *args, env=None, timeout=60) -> (CompletedProcess, seconds)."""
    return mpirun_fixture()
