"""fork() while another thread holds pyasc's process-wide locks (reliability issue 20).

The runtime re-creates its workers in a forked child (test_fork.py); the other
process-wide mutexes (the graph registry lock, the program cache lock, the
profiler's ring, the log) were left as the fork found them: held by a thread
that does not exist in the child, so the child's first lazy evaluation,
profiled op or log line waited forever. A hammer thread evaluates lazy graphs
(the GIL is released there, so fork() happens while it holds those locks),
records profiler events and logs while the main thread forks repeatedly; every
child must evaluate, profile and log within its alarm().
"""

from __future__ import annotations

_CODE = r"""
import os, signal, sys, threading, time
import numpy as np
import pyasc as asc
asc.set_eager(False)
asc.set_log_level(0)  # debug: log lines (to PYASC_LOG_FILE) from every thread
asc.profiler.start()
stop = threading.Event()

def hammer():
    k = 0
    while not stop.is_set():
        k += 1
        x = asc.arange(1 << 12 | (k % 257), dtype="float32")
        asc.eval(((x * 2 + 1) * 3 - x).sum(), asc.sqrt(x + 1).max())  # graph, program cache (no GIL)
        asc.profiler.record_op("hammer")

threads = [threading.Thread(target=hammer, daemon=True) for _ in range(2)]
for t in threads:
    t.start()
time.sleep(0.3)
bad = []
for i in range(30):
    pid = os.fork()
    if pid == 0:
        signal.alarm(30)  # a lock left held ends the child (SIGALRM) instead of the test's timeout
        try:
            for m in (1 << 12 | 300 + i, 77 + i):
                y = asc.arange(m, dtype="float32")
                s = (y * 4 - 1).sum()
                asc.eval(s)
                got = float(s)
                assert got == float((np.arange(m, dtype=np.float32) * 4 - 1).sum()), got
            asc.profiler.record_op("child")
            asc.set_log_level(0)
            os._exit(0)
        except BaseException as e:
            print("child failed:", repr(e), flush=True)
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        bad.append(code)
    time.sleep(0.01)
stop.set()
for t in threads:
    t.join(30)
print("BAD", bad)
"""


def test_fork_while_threads_hold_process_locks(run_python, tmp_path):
    p = run_python(_CODE, env={"PYASC_LOG_FILE": str(tmp_path / "log.txt")}, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "BAD []" in p.stdout, p.stdout + p.stderr
