"""Run on 2 ranks by test_faults.py: rank 1 hangs or dies, rank 0 must not hang."""

import os
import sys
import time

import pyasc as asc
import pyasc.distributed as dist

mode = sys.argv[1]
# A generous start-up timeout (ranks of a loaded machine start seconds apart), then a group
# with the 2 s timeout under test.
dist.init_process_group(timeout=120)
group = dist.new_group([0, 1], timeout=2.0)
rank = dist.get_rank()
if rank == 1:
    if mode == "exit":
        os._exit(3)  # dies without finalizing MPI
    time.sleep(300)  # hangs (outside any collective)
    sys.exit(0)
x = asc.ones(1 << 10, dtype="float32")
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
