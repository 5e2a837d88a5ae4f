"""pyasc.memory.SubPool: isolated per-session pools (routing, limits, close, threads)."""

import gc
import threading

import numpy as np
import pytest

import pyasc as asc
from pyasc import memory


def _materialize(x):
    # Forces a lazy array's buffer to exist now (inside the with block).
    return np.asarray(x)


@pytest.fixture(autouse=True)
def _no_sub_pools_left():
    yield
    gc.collect()
    assert memory.sub_pool_count() == 0, "a test left a sub-pool registered"


def test_arrays_made_inside_count_against_the_sub_pool(mode):
    pool = memory.SubPool(name="s-arrays")
    base = asc.memory_allocated()
    a = np.arange(100_000, dtype=np.float32)
    with pool as p:
        assert p is pool
        x = asc.asarray(a)
        y = x * 2 + 1
        got = _materialize(y)
        inside = pool.memory_allocated()
    np.testing.assert_array_equal(got, a * 2 + 1)
    assert inside >= a.nbytes  # y (at least: x may share the NumPy buffer) came from the sub-pool
    assert asc.memory_allocated() - base < a.nbytes  # not from the device pool
    del x, y, got
    gc.collect()
    assert pool.memory_allocated() == 0  # freed outside the with: back to the sub-pool
    s = pool.stats()
    assert s["allocation_count"] == s["free_count"] > 0
    pool.close()
    assert pool.closed and pool.drained
    assert pool.memory_reserved() == 0


def test_limit_raises_out_of_memory_naming_the_pool_and_only_there(mode):
    small = memory.SubPool(1 << 20, name="session-small")
    other = memory.SubPool(name="session-other")
    assert small.limit == 1 << 20
    with small:
        ok = asc.asarray(np.ones(1000, np.float64))
        _materialize(ok)
        with pytest.raises(memory.OutOfMemoryError) as ei:
            _materialize(asc.zeros((2 << 20,), dtype=np.uint8) + 1)
    msg = str(ei.value)
    assert "session-small" in msg and "limit 1048576 bytes" in msg, msg
    assert isinstance(ei.value, MemoryError) and isinstance(ei.value, asc.AscendMemoryError)
    assert small.stats()["oom_count"] >= 1
    # The other session and the default pool still allocate.
    with other:
        big = _materialize(asc.zeros((4 << 20,), dtype=np.uint8) + 1)
    assert big.sum() == 4 << 20
    d = _materialize(asc.zeros((4 << 20,), dtype=np.uint8) + 2)
    assert d[0] == 2
    np.testing.assert_array_equal(_materialize(ok), np.ones(1000))
    del ok, big, d
    small.close()
    other.close()


def test_threads_have_their_own_routing():
    pools = [memory.SubPool(name=f"t{i}") for i in range(3)]
    results = {}
    errors = []
    barrier = threading.Barrier(3)

    def work(i):
        try:
            with pools[i]:
                barrier.wait(timeout=30)
                arr = asc.asarray(np.full(10_000 * (i + 1), i, np.int32)) + 0  # a pool buffer
                _materialize(arr)
                results[i] = (pools[i].memory_allocated(), arr)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not errors, errors
    for i in range(3):
        used, arr = results[i]
        assert used >= 40_000 * (i + 1)
        assert int(np.asarray(arr).sum()) == i * 10_000 * (i + 1)
    del used, arr
    results.clear()
    gc.collect()
    for p in pools:
        assert p.memory_allocated() == 0
        p.close()


def test_close_with_live_arrays_drains_on_last_free(mode):
    pool = memory.SubPool(name="drain")
    with pool:
        keep = _materialize(asc.asarray(np.arange(50_000, dtype=np.float32)) + 1)
        view = asc.asarray(np.arange(20, dtype=np.int64).reshape(4, 5))[:, ::2]  # non-contiguous view
        np.testing.assert_array_equal(np.asarray(view), np.arange(20).reshape(4, 5)[:, ::2])
        empty = asc.zeros((0, 3), dtype=np.float32)  # empty arrays are valid in a sub-pool
        assert np.asarray(empty).shape == (0, 3)
    pool.close()
    assert pool.closed and not pool.drained or pool.memory_allocated() == 0
    assert memory.sub_pool_count() >= 1 or pool.drained
    with pytest.raises(asc.AscendError, match="closed"):
        with pool:
            pass
    np.testing.assert_array_equal(keep, np.arange(50_000, dtype=np.float32) + 1)
    del keep, view, empty
    gc.collect()
    assert pool.drained
    assert pool.memory_reserved() == 0


def test_nested_pools_innermost_wins():
    outer = memory.SubPool(name="outer")
    inner = memory.SubPool(name="inner")
    with outer:
        a = asc.asarray(np.ones(4096, np.float32)) + 1  # results live in pool buffers
        _materialize(a)
        with inner:
            b = asc.asarray(np.ones(8192, np.float32)) + 1
            _materialize(b)
        c = asc.asarray(np.ones(2048, np.float32)) + 1
        _materialize(c)
    assert inner.memory_allocated() >= 8192 * 4
    assert outer.memory_allocated() >= (4096 + 2048) * 4
    assert outer.memory_allocated() < 8192 * 4 + (4096 + 2048) * 4
    del a, b, c
    gc.collect()
    outer.close()
    inner.close()


def test_bad_arguments_and_misuse():
    with pytest.raises(asc.AscendValueError, match="limit_bytes must be >= 0"):
        memory.SubPool(-1)
    with pytest.raises(asc.AscendValueError, match="limit_bytes must be an int"):
        memory.SubPool(1.5)
    with pytest.raises(asc.AscendValueError, match="name must be"):
        memory.SubPool(name="")
    with pytest.raises(asc.AscendValueError, match="name must be"):
        memory.SubPool(name="a\nb")
    pool = memory.SubPool(None, name="misuse")
    assert pool.limit is None
    with pytest.raises(asc.AscendError, match="was not entered on this thread"):
        pool.__exit__(None, None, None)
    pool.limit = 1 << 30
    assert pool.stats()["limit_bytes"] == 1 << 30
    pool.limit = None
    assert pool.limit is None
    assert "misuse" in repr(pool)
    pool.close()
    pool.close()  # idempotent


def test_collected_handle_closes_the_pool():
    pool = memory.SubPool(name="collected")
    with pool:
        keep = _materialize(asc.asarray(np.ones(1000)) + 1)
    assert memory.sub_pool_count() >= 1
    del keep
    del pool
    gc.collect()
    assert memory.sub_pool_count() == 0


def test_many_session_lifetimes_do_not_grow_the_device_pool(mode):
    gc.collect()
    before = asc.memory_stats()["reserved_bytes"]
    for i in range(30):
        pool = memory.SubPool(8 << 20, name=f"life-{i}")
        with pool:
            out = _materialize(asc.asarray(np.full(100_000, i, np.float32)) * 3)
        assert out[0] == 3 * i
        del out
        pool.close()
        gc.collect()
        assert pool.drained
    assert asc.memory_stats()["reserved_bytes"] <= before + (4 << 20)


def test_stream_callbacks_inherit_the_sub_pool_they_were_enqueued_in():
    """A host callback enqueued inside ``with pool:`` runs on the stream's worker thread, and
    the device memory it allocates there comes from that pool; one enqueued outside, from the
    device pool."""
    pool = memory.SubPool(name="s-stream")
    s = asc.Stream()
    a = np.arange(50_000, dtype=np.float32)
    got = {}

    def work(key):
        def cb():
            got[key + "_current"] = memory.SubPool.current()  # the Python stack is per thread
            got[key] = np.asarray(asc.asarray(a) * 3)
            got[key + "_sub"] = pool.stats()["allocation_count"]
        return cb

    with pool:
        assert memory.SubPool.current() is pool
        s.add_callback(work("in"))
    assert memory.SubPool.current() is None
    s.synchronize()
    np.testing.assert_array_equal(got["in"], a * 3)
    assert got["in_sub"] > 0  # allocated on the worker, counted by the session's pool
    assert got["in_current"] is None  # routing is native; the Python ``with`` stack stays per thread
    n = pool.stats()["allocation_count"]
    s.add_callback(work("out"))
    s.synchronize()
    np.testing.assert_array_equal(got["out"], a * 3)
    assert pool.stats()["allocation_count"] == n  # outside the with: not the session's pool
    del got
    gc.collect()
    pool.close()
    assert pool.drained


def test_current_gives_threads_the_pool_to_enter():
    pool = memory.SubPool(name="s-current")
    a = np.ones(40_000, np.float64)
    seen = {}

    def thread_body(cur):
        seen["before"] = memory.SubPool.current()
        with cur:
            seen["inside"] = memory.SubPool.current()
            seen["arr"] = np.asarray(asc.asarray(a) + 1)

    with pool:
        n = pool.stats()["allocation_count"]
        t = threading.Thread(target=thread_body, args=(memory.SubPool.current(),))
        t.start()
        t.join()
    assert seen["before"] is None and seen["inside"] is pool
    np.testing.assert_array_equal(seen["arr"], a + 1)
    assert pool.stats()["allocation_count"] > n
    del seen
    gc.collect()
    pool.close()
