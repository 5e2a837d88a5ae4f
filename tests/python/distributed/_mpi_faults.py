"""Run on 2 ranks by test_faults.py: rank 1 hangs or dies, rank 0 must not hang.

``hang``: rank 1 sleeps outside any collective. Rank 0 first runs an all_reduce in the
polled mode (ASC_DISTRIBUTED_BLOCKING=0 semantics: DistTimeoutError in the caller, the
group unusable afterwards), then one in the default blocking mode on a second group: the
watchdog tears the job down, with a notice and Python stacks on both ranks (one launch
covers both modes). ``hang-async``: the same blocking all_reduce with async_op=True, run by
the stream's worker thread (its own watchdog slot) while rank 0 waits in Work.wait().
An async broadcast in the polled mode raises DistTimeoutError naming it at ``wait()``.
``exit``: rank 1 dies without finalizing MPI."""

import os
import sys
import time

import pyasc as asc
import pyasc.distributed as dist
from pyasc.distributed import _engine

mode = sys.argv[1]
# A generous start-up timeout (ranks of a loaded machine start seconds apart), then groups
# with the 2 s timeout under test.
dist.init_process_group(timeout=120)
group = dist.new_group([0, 1], timeout=2.0)
group2 = dist.new_group([0, 1], timeout=2.0)
group3 = dist.new_group([0, 1], timeout=2.0)
group4 = dist.new_group([0, 1], timeout=2.0)
rank = dist.get_rank()
if rank == 1:
    if mode == "exit":
        os._exit(3)  # dies without finalizing MPI
    time.sleep(300)  # hangs (outside any collective)
    sys.exit(0)
x = asc.ones(1 << 10, dtype="float32")
if mode == "hang":
    _engine.set_mode(blocking=False)  # the polled mode first
    t0 = time.monotonic()
    try:
        dist.all_reduce(x, group=group)
        print("NO ERROR", flush=True)
    except dist.DistTimeoutError as e:
        print(f"CAUGHT DistTimeoutError after {time.monotonic() - t0:.2f} s: {e}", flush=True)
    try:
        dist.all_reduce(x, group=group)
    except dist.DistBackendError as e:
        print(f"UNUSABLE {e}", flush=True)
    # async_op in the polled mode: the stream task's C wait returns at the deadline, wait() raises
    t0 = time.monotonic()
    w = dist.all_reduce(asc.ones(256, dtype="float32"), group=group3, async_op=True)
    try:
        w.wait()
        print("NO ERROR", flush=True)
    except dist.DistTimeoutError as e:
        print(f"ASYNC CAUGHT DistTimeoutError after {time.monotonic() - t0:.2f} s: {e}", flush=True)
    # any other async collective: the same, through the one stream-task mechanism
    t0 = time.monotonic()
    w = dist.broadcast(asc.ones(256, dtype="float32"), src=1, group=group4, async_op=True)
    try:
        w.wait()
        print("NO ERROR", flush=True)
    except dist.DistTimeoutError as e:
        print(f"ASYNC BROADCAST CAUGHT DistTimeoutError after {time.monotonic() - t0:.2f} s: {e}", flush=True)
    _engine.set_mode(blocking=True)  # then the default: the watchdog ends the job
t0 = time.monotonic()
if mode == "hang-async":
    dist.all_reduce(x, group=group2, async_op=True).wait()
else:
    dist.all_reduce(x, group=group2)
print("NO ERROR", flush=True)
