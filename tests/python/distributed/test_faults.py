"""A rank that hangs or dies: the others raise (or the job ends) within the timeout, never hang."""

import os
import re

from _mpi_helpers import HERE, needs_mpi

SCRIPT = os.path.join(HERE, "_mpi_faults.py")


@needs_mpi
def test_polled_mode_hung_rank_raises_timeout_then_job_ends(mpirun):
    p, secs = mpirun(2, SCRIPT, "hang", env={"ASC_DISTRIBUTED_BLOCKING": "0"}, timeout=200)
    m = re.search(r"CAUGHT DistTimeoutError after ([\d.]+) s: (.*)", p.stdout)
    assert m, p.stdout + p.stderr[-2000:]
    assert 1.9 <= float(m.group(1)) < 6.0, m.group(0)  # group timeout 2 s (+ load slack)
    assert "timed out after 2 s" in m.group(2) and "[all_reduce]" in m.group(2)
    assert "UNUSABLE" in p.stdout and "unusable after an earlier failure" in p.stdout
    # rank 0 aborts the job at exit (MPI_Finalize would wait for the hung rank): rank 1's
    # 300 s sleep is cut short (the bound leaves room for a loaded machine's start-up).
    assert p.returncode != 0 and secs < 150, (p.returncode, secs)


@needs_mpi
def test_dead_rank_does_not_hang(mpirun):
    p, secs = mpirun(2, SCRIPT, "exit", timeout=200)
    out = p.stdout + p.stderr
    # Either rank 0 raised within its 2 s timeout, or mpirun ended the job when rank 1 died.
    assert "CAUGHT DistTimeoutError" in out or re.search(r"exit(ed)? .*(code|status)|without calling", out), out
    assert "NO ERROR" not in out
    assert p.returncode != 0 and secs < 150


@needs_mpi
def test_default_watchdog_tears_down_with_an_error_on_every_rank(mpirun):
    p, secs = mpirun(2, SCRIPT, "hang", timeout=200)
    out = p.stdout + p.stderr
    # rank 0 (in the blocking all_reduce) names the operation, the group and the timeout ...
    m = re.search(r"\[all_reduce\] rank 0 timed out after 2 s in a blocking MPI call \(group 'group1', "
                  r"ranks \[0, 1\]\)", out)
    assert m, out[-4000:]
    # ... and rank 1 (hung outside any collective) prints the notice with its Python stack,
    # which shows where it hangs
    assert re.search(r"rank 1: the job is being torn down by another rank's watchdog: \[all_reduce\] rank 0 "
                     r"timed out.*this rank is not in a blocking collective", out), out[-4000:]
    assert re.search(r'_mpi_faults\.py", line \d+ in <module>', out)
    assert "NO ERROR" not in out and p.returncode != 0 and secs < 150
