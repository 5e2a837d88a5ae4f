"""A rank that hangs or dies: the others raise or the job ends with a clear error within the
timeout, never hang (both modes of a hang in one launch: see _mpi_faults.py)."""

import os
import re

from _mpi_helpers import HERE, needs_mpi

SCRIPT = os.path.join(HERE, "_mpi_faults.py")


@needs_mpi
def test_hung_rank_polled_raises_then_default_watchdog_tears_down(mpirun):
    p, secs = mpirun(2, SCRIPT, "hang", timeout=200)
    out = p.stdout + p.stderr
    # polled mode: DistTimeoutError in the caller within the timeout, the group unusable after
    m = re.search(r"CAUGHT DistTimeoutError after ([\d.]+) s: (.*)", p.stdout)
    assert m, out[-4000:]
    assert 1.9 <= float(m.group(1)) < 6.0, m.group(0)  # group timeout 2 s (+ load slack)
    assert "timed out after 2 s" in m.group(2) and "[all_reduce]" in m.group(2)
    assert "UNUSABLE" in p.stdout and "unusable after an earlier failure" in p.stdout
    # polled mode, async_op: the stream task times out and Work.wait() raises
    m = re.search(r"ASYNC CAUGHT DistTimeoutError after ([\d.]+) s: (.*)", p.stdout)
    assert m, out[-4000:]
    assert 1.9 <= float(m.group(1)) < 6.0 and "[all_reduce]" in m.group(2), m.group(0)
    m = re.search(r"ASYNC BROADCAST CAUGHT DistTimeoutError after ([\d.]+) s: (.*)", p.stdout)
    assert m, out[-4000:]
    assert 1.9 <= float(m.group(1)) < 6.0 and "[broadcast]" in m.group(2), m.group(0)
    # default mode: rank 0 (in the blocking all_reduce) names the operation, group and timeout ...
    assert re.search(r"\[all_reduce\] rank 0 timed out after 2 s in a blocking MPI call \(group 'group2', "
                     r"ranks \[0, 1\]\)", out), out[-4000:]
    # ... and rank 1 (hung outside any collective) prints the notice and its Python stack,
    # which shows where it hangs
    assert re.search(r"rank 1: the job is being torn down by another rank's watchdog: \[all_reduce\] rank 0 "
                     r"timed out.*this rank is not in a blocking collective", out), out[-4000:]
    assert re.search(r'_mpi_faults\.py", line \d+ in <module>', out)
    # the job ends (rank 1's 300 s sleep is cut short; the bound leaves room for a loaded machine)
    assert "NO ERROR" not in out and p.returncode != 0 and secs < 150, (p.returncode, secs)


@needs_mpi
def test_hung_rank_async_op_watchdog_covers_the_stream_task(mpirun):
    p, secs = mpirun(2, SCRIPT, "hang-async", timeout=200)
    out = p.stdout + p.stderr
    # the all_reduce blocked in the stream worker's C call: the watchdog reads that thread's slot
    assert re.search(r"\[all_reduce\] rank 0 timed out after 2 s in a blocking MPI call \(group 'group2', "
                     r"ranks \[0, 1\]\)", out), out[-4000:]
    assert re.search(r"rank 1: the job is being torn down by another rank's watchdog", out), out[-4000:]
    assert "NO ERROR" not in out and p.returncode != 0 and secs < 150, (p.returncode, secs)


@needs_mpi
def test_dead_rank_does_not_hang(mpirun):
    p, secs = mpirun(2, SCRIPT, "exit", timeout=200)
    out = p.stdout + p.stderr
    # Either rank 0's watchdog fired within its 2 s timeout, or mpirun ended the job when rank 1 died.
    assert "timed out after 2 s" in out or re.search(r"exit(ed)? .*(code|status)|without calling", out), out
    assert "NO ERROR" not in out
    assert p.returncode != 0 and secs < 150
