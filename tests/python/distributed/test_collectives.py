"""pyasc.distributed collectives on 2 and 4 MPI ranks, against NumPy (see _mpi_collectives.py),
and examples/distributed/train_mlp.py's loss curve on 1, 2 and 4 processes.

One launch per rank count runs every test of the script and then the training example
(process start-up dominates the time). The 2-rank launch goes through pyasc-run and also
checks the variables each rank gets from the launcher (RANK, WORLD_SIZE, LOCAL_RANK, ...,
ASC_NUM_CORES split); it trains with the hand-written backward, the 4-rank launch with
asc.value_and_grad and DataParallel's all-reduce during the backward."""

import importlib.util
import json
import os
import re
import sys

import numpy as np
import pytest

from _mpi_helpers import HERE, REPO, mpi_env, needs_mpi, run_job

SCRIPT = os.path.join(HERE, "_mpi_collectives.py")
EXAMPLE = os.path.join(REPO, "examples", "distributed", "train_mlp.py")
TRAIN_ARGS = ["--samples", "512", "--batch", "64", "--epochs", "2", "--bucket-mb", "0.002"]


@pytest.fixture(scope="module")
def one_process_losses(tmp_path_factory):
    """The example's loss curve on one process: its main() in this interpreter (no MPI)."""
    saved = {k: os.environ.pop(k) for k in ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE") if k in os.environ}
    try:
        spec = importlib.util.spec_from_file_location("train_mlp_example", EXAMPLE)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out = tmp_path_factory.mktemp("train") / "one.json"
        assert mod.main([*TRAIN_ARGS, "--json", str(out)]) == 0
    finally:
        os.environ.update(saved)
    one = json.loads(out.read_text())
    assert one["world_size"] == 1 and one["steps"] == 16
    losses = np.array(one["losses"])
    assert losses[-1] < 0.7 * losses[0], losses  # it trains
    return one


def _check_training(p, n, one, out):
    # rank 0 writes its result to a file: its stdout line may be joined with another rank's
    # output by mpirun's forwarding (a CI run read '{...}RESULT rank=3 failures=0' as one line)
    assert out.exists(), p.stdout + p.stderr[-3000:]
    res = json.loads(out.read_text())
    assert res["world_size"] == n and res["steps"] == one["steps"]
    # same global batches, summation order differs: float32 rounding only
    np.testing.assert_allclose(res["losses"], one["losses"], rtol=2e-4, atol=1e-6)


def _check_results(p, n):
    results = re.findall(r"RESULT rank=(\d+) failures=(\d+)", p.stdout)
    assert sorted(int(r) for r, _ in results) == list(range(n)), p.stdout + p.stderr
    assert p.returncode == 0 and all(f == "0" for _, f in results), p.stdout + p.stderr[-3000:]


@needs_mpi
def test_collectives_match_numpy_2_ranks_via_pyasc_run(one_process_losses, tmp_path):
    env = mpi_env({"ASC_NUM_CORES": "4"})
    out = tmp_path / "train.json"
    cmd = [sys.executable, "-m", "pyasc.tools.run", "-n", "2", SCRIPT, "--launcher-check", "x", "--train-mlp",
           *TRAIN_ARGS, "--json", str(out)]
    p, secs = run_job(cmd, env, timeout=240)
    _check_results(p, 2)
    _check_training(p, 2, one_process_losses, out)
    # ranks' lines may interleave in mpirun's output: match the fields, not lines
    envs = sorted(re.findall(r"RANK=(\d+) WORLD_SIZE=(\d+) LOCAL_RANK=(\d+) LOCAL_WORLD_SIZE=(\d+) "
                             r"MASTER_ADDR=(\S+?) MASTER_PORT=(\d+) ASC_NUM_CORES=(\d+) ARGS=(--launcher-check,x),",
                             p.stdout))
    assert len(envs) == 2, p.stdout
    for r, (rank, size, lrank, lsize, addr, port, cores, _) in enumerate(envs):
        assert (rank, size, lrank, lsize) == (str(r), "2", str(r), "2")
        assert cores == "2"  # 4 cores given to the launcher, 2 local ranks
        assert addr == "127.0.0.1" and int(port) > 0 and port == envs[0][5]
    assert sorted(re.findall(r"MAIN (\S+) rank=(\d)", p.stdout)) == [("__main__", "0"), ("__main__", "1")]


@needs_mpi
@pytest.mark.parametrize("n", [4])
def test_collectives_match_numpy(mpirun, n, one_process_losses, tmp_path):
    out = tmp_path / "train.json"
    p, secs = mpirun(n, SCRIPT, "--train-mlp", *TRAIN_ARGS, "--autograd", "--json", str(out), timeout=240)
    _check_results(p, n)
    _check_training(p, n, one_process_losses, out)
