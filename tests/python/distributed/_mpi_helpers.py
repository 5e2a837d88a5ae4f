"""Helpers of the pyasc.distributed tests: run a script on N MPI ranks, bounded in time (a module
with its own name: `from conftest import` would depend on which conftest.py pytest loaded first)."""

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

MPIRUN = shutil.which("mpirun")
try:
    import mpi4py  # noqa: F401
    HAVE_MPI4PY = True
except ImportError:
    HAVE_MPI4PY = False

needs_mpi = pytest.mark.skipif(MPIRUN is None or not HAVE_MPI4PY,
                               reason="mpirun (Debian openmpi-bin) or mpi4py is not installed")


def mpi_env(extra=None):
    env = dict(os.environ)
    for key in ("ASC_LOG_LEVEL", "PYASC_DEBUG", "ASC_MEMORY_LIMIT", "ASC_DISTRIBUTED_CHECK",
                "ASC_DISTRIBUTED_BLOCKING", "RANK", "WORLD_SIZE", "LOCAL_RANK"):
        env.pop(key, None)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               ASC_NUM_CORES="1", PYTHONUNBUFFERED="1")
    # The package under test: the same one this interpreter imports.
    import pyasc
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(pyasc.__file__)) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra or {})
    return env


def mpirun_fixture():
    """mpirun(n, script, *args, env=None, timeout=60) -> (CompletedProcess, seconds). Fails the
    test (instead of hanging) when the job outlives ``timeout``."""

    def run(n, script, *args, env=None, timeout=60):
        cmd = [MPIRUN, "--oversubscribe", "--bind-to", "none", "-n", str(n), sys.executable, script, *args]
        return run_job(cmd, env=mpi_env(env), timeout=timeout)

    return run


def run_job(cmd, env, timeout):
    """Runs ``cmd`` in its own session; on timeout the whole session (mpirun and its ranks) gets
    SIGTERM, then SIGKILL, and the test fails."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/tmp",
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, err = proc.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = "", ""
        pytest.fail(f"{' '.join(cmd[-3:])} timed out after {timeout}s (hang?)\nstdout: {out}\nstderr: {err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), time.monotonic() - t0
