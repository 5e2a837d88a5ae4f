"""float16/bfloat16 through every collective (bit-exact with NumPy's and ml_dtypes' loops on 2
ranks, the reductions in the C path) and async_op collectives run inline by wait() when their
stream was idle at the call (see _mpi_half_async.py): one 2-rank launch."""

import os
import re

from _mpi_helpers import HERE, needs_mpi

SCRIPT = os.path.join(HERE, "_mpi_half_async.py")


@needs_mpi
def test_half_precision_and_inline_async_2_ranks(mpirun):
    p, secs = mpirun(2, SCRIPT, timeout=180)
    results = re.findall(r"RESULT rank=(\d+) failures=(\d+)", p.stdout)
    assert sorted(int(r) for r, _ in results) == [0, 1], p.stdout + p.stderr[-3000:]
    assert p.returncode == 0 and all(f == "0" for _, f in results), p.stdout + p.stderr[-3000:]
