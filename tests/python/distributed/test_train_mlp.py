"""examples/distributed/train_mlp.py: the same loss curve on 1, 2 and 4 processes."""

import importlib.util
import json
import os
import sys

import numpy as np

from _mpi_helpers import REPO, mpi_env, needs_mpi, run_job

EXAMPLE = os.path.join(REPO, "examples", "distributed", "train_mlp.py")
ARGS = ["--samples", "512", "--batch", "64", "--epochs", "2", "--bucket-mb", "0.002"]


def _losses(p):
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    lines = [line for line in p.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stdout
    return json.loads(lines[0])


@needs_mpi
def test_same_loss_curve_on_1_2_4_processes(tmp_path, monkeypatch):
    for k in ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE"):
        monkeypatch.delenv(k, raising=False)
    env = mpi_env()
    # one process: the example's main() in this interpreter (no MPI, no process start)
    spec = importlib.util.spec_from_file_location("train_mlp_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "one.json"
    assert mod.main([*ARGS, "--json", str(out)]) == 0
    one = json.loads(out.read_text())
    assert one["world_size"] == 1 and one["steps"] == 16
    losses = np.array(one["losses"])
    assert losses[-1] < 0.7 * losses[0], losses  # it trains
    # 2 ranks: the hand-written backward; 4 ranks: asc.value_and_grad with DataParallel's
    # all-reduce during the backward (the same loss: the autograd backward computes the same ops)
    for n, extra in ((2, []), (4, ["--autograd"])):
        cmd = [sys.executable, "-m", "pyasc.tools.run", "-n", str(n), EXAMPLE, *ARGS, *extra]
        res = _losses(run_job(cmd, env, timeout=240)[0])
        assert res["world_size"] == n and res["steps"] == one["steps"]
        # same global batches, summation order differs: float32 rounding only
        np.testing.assert_allclose(res["losses"], losses, rtol=2e-4, atol=1e-6)
