"""fork() and host-callback synchronisation never hang (reliability issue 20, items 4 and 5).

Before the fix, a child forked after the parent had run an op waited forever
for the parent's core and stream worker threads (which do not exist in a
child) on any op over ~2**16 elements, so a default multiprocessing Pool hung;
and synchronize() inside a stream's own host callback waited for itself. Each
scenario runs in a subprocess with a timeout (``run_python``), so a hang fails
the test instead of blocking pytest.
"""

from __future__ import annotations

import pytest

_FORK_CHILD = r"""
import os, signal, sys
import numpy as np
import pyasc as asc
asc.set_eager({eager})
n = 1 << 18
x = asc.arange(n, dtype="int64")
assert int((x * 2).sum()) == int((np.arange(n) * 2).sum())  # the parent's workers exist now
pending = x * 3 - 7  # lazy mode: recorded before fork(), evaluated first in the child
pid = os.fork()
if pid == 0:
    signal.alarm(60)  # a hang in the child ends it (SIGALRM) rather than the test's timeout
    try:
        np.testing.assert_array_equal(np.asarray(pending), np.arange(n) * 3 - 7)
        for m in (1 << 16, 1 << 18, (1 << 20) + 3):
            y = asc.arange(m, dtype="int64")
            ny = np.arange(m, dtype=np.int64)
            assert int((y * 3 + 1).sum()) == int((ny * 3 + 1).sum())
            f = asc.linspace(0, 1, m, dtype="float32")
            np.testing.assert_array_equal(np.asarray(asc.sqrt(f) * 2), np.sqrt(np.linspace(0, 1, m, dtype=np.float32)) * 2)
            s = asc.sort(asc.asarray(ny[::-1].copy()))
            np.testing.assert_array_equal(np.asarray(s), ny)
        st = asc.Stream()
        seen = []
        st.add_callback(lambda: seen.append(1))
        st.synchronize()
        assert seen == [1]
        asc.synchronize()
        os._exit(0)
    except BaseException as e:
        print("child failed:", repr(e), flush=True)
        os._exit(3)
_, status = os.waitpid(pid, 0)
print("CHILD", os.waitstatus_to_exitcode(status))
np.testing.assert_array_equal(np.asarray(pending), np.arange(n) * 3 - 7)
z = asc.arange(n, dtype="int64")  # the parent is unaffected
assert int((z + 1).sum()) == int((np.arange(n) + 1).sum())
print("PARENT OK")
"""


@pytest.mark.parametrize("eager", [False, True])
def test_forked_child_runs_large_ops(run_python, eager):
    p = run_python(_FORK_CHILD.format(eager=eager), timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "CHILD 0" in p.stdout, p.stdout + p.stderr
    assert "PARENT OK" in p.stdout


_POOL = r"""
import multiprocessing as mp
import numpy as np
import pyasc as asc
asc.set_eager({eager})

def work(k):
    x = asc.arange(1 << 18, dtype="float64") + k
    return np.asarray(asc.exp(-x / 1e5) * 2 + x)

if __name__ == "__main__":
    warm = asc.arange(1 << 18, dtype="float64")
    float((warm * 2).sum())  # ops before forking: the workers exist in the parent
    with mp.get_context("fork").Pool(2) as pool:
        got = pool.map(work, range(4))
    for k, g in enumerate(got):
        x = np.arange(1 << 18, dtype=np.float64) + k
        np.testing.assert_allclose(g, np.exp(-x / 1e5) * 2 + x, rtol=1e-13)
    print("POOL OK")
"""


@pytest.mark.parametrize("eager", [False, True])
def test_multiprocessing_fork_pool(run_python, eager):
    p = run_python(_POOL.format(eager=eager), timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "POOL OK" in p.stdout


def test_fork_with_work_in_flight_reports_it(run_python):
    """Work still queued in the parent at fork() is not run by the child: the child's synchronize() says so."""
    code = r"""
    import os, signal, threading
    import pyasc as asc
    s = asc.Stream()
    gate, started = threading.Event(), threading.Event()
    s.add_callback(lambda: (started.set(), gate.wait(30)))
    started.wait(10)
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)
        try:
            s.synchronize()
            os._exit(2)  # no error: the lost callback went unreported
        except asc.AscendRuntimeError as e:
            if "forked" not in str(e):
                os._exit(3)
        s.add_callback(lambda: None)
        s.synchronize()  # reported once; the stream stays usable
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    gate.set()
    s.synchronize()
    print("CHILD", os.waitstatus_to_exitcode(status))
    """
    p = run_python(code, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "CHILD 0" in p.stdout, p.stdout + p.stderr


def test_synchronize_inside_own_callback_raises(run_python):
    code = r"""
    import pyasc as asc
    s = asc.Stream()
    results = []
    for label, fn in [("device", lambda: asc.synchronize()), ("own", lambda: s.synchronize()),
                      ("event", lambda: s.record_event().synchronize())]:
        s.add_callback(fn)
        try:
            s.synchronize()
            results.append((label, "no error"))
        except asc.AscendRuntimeError as e:
            results.append((label, "AscendRuntimeError" if "host callback" in str(e) else str(e)))
        s.synchronize()  # the error was reported once and cleared
    # A callback that catches the error keeps going; other streams can be waited for.
    other = asc.Stream()
    seen = []
    def careful():
        try:
            s.synchronize()
        except asc.AscendRuntimeError:
            seen.append("caught")
        other.synchronize()
        seen.append("other ok")
    s.add_callback(careful)
    s.synchronize()
    print("RESULTS", results, seen)
    """
    p = run_python(code, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    expected = [("device", "AscendRuntimeError"), ("own", "AscendRuntimeError"), ("event", "AscendRuntimeError")]
    assert f"RESULTS {expected} ['caught', 'other ok']" in p.stdout, p.stdout + p.stderr
