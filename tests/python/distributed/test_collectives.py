"""pyasc.distributed collectives on 2 and 4 MPI ranks, against NumPy (see _mpi_collectives.py)."""

import os
import re

import pytest

from _mpi_helpers import HERE, needs_mpi


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_collectives_match_numpy(mpirun, n):
    p, secs = mpirun(n, os.path.join(HERE, "_mpi_collectives.py"), timeout=240)
    results = re.findall(r"RESULT rank=(\d+) failures=(\d+)", p.stdout)
    assert sorted(int(r) for r, _ in results) == list(range(n)), p.stdout + p.stderr
    assert p.returncode == 0 and all(f == "0" for _, f in results), p.stdout + p.stderr[-3000:]
