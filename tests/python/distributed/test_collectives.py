"""pyasc.distributed collectives on 2 and 4 MPI ranks, against NumPy (see _mpi_collectives.py).

One launch per rank count runs every test of the script (process start-up dominates the
time). The 2-rank launch goes through pyasc-run and also checks the variables each rank
gets from the launcher (RANK, WORLD_SIZE, LOCAL_RANK, ..., ASC_NUM_CORES split)."""

import os
import re
import sys

import pytest

from _mpi_helpers import HERE, mpi_env, needs_mpi, run_job

SCRIPT = os.path.join(HERE, "_mpi_collectives.py")


def _check_results(p, n):
    results = re.findall(r"RESULT rank=(\d+) failures=(\d+)", p.stdout)
    assert sorted(int(r) for r, _ in results) == list(range(n)), p.stdout + p.stderr
    assert p.returncode == 0 and all(f == "0" for _, f in results), p.stdout + p.stderr[-3000:]


@needs_mpi
def test_collectives_match_numpy_2_ranks_via_pyasc_run():
    env = mpi_env({"ASC_NUM_CORES": "4"})
    cmd = [sys.executable, "-m", "pyasc.tools.run", "-n", "2", SCRIPT, "--launcher-check", "x"]
    p, secs = run_job(cmd, env, timeout=240)
    _check_results(p, 2)
    # ranks' lines may interleave in mpirun's output: match the fields, not lines
    envs = sorted(re.findall(r"RANK=(\d+) WORLD_SIZE=(\d+) LOCAL_RANK=(\d+) LOCAL_WORLD_SIZE=(\d+) "
                             r"MASTER_ADDR=(\S+?) MASTER_PORT=(\d+) ASC_NUM_CORES=(\d+) ARGS=(--launcher-check,x)",
                             p.stdout))
    assert len(envs) == 2, p.stdout
    for r, (rank, size, lrank, lsize, addr, port, cores, _) in enumerate(envs):
        assert (rank, size, lrank, lsize) == (str(r), "2", str(r), "2")
        assert cores == "2"  # 4 cores given to the launcher, 2 local ranks
        assert addr == "127.0.0.1" and int(port) > 0 and port == envs[0][5]
    assert sorted(re.findall(r"MAIN (\S+) rank=(\d)", p.stdout)) == [("__main__", "0"), ("__main__", "1")]


@needs_mpi
@pytest.mark.parametrize("n", [4])
def test_collectives_match_numpy(mpirun, n):
    p, secs = mpirun(n, SCRIPT, timeout=240)
    _check_results(p, n)
