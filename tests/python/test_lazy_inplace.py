"""In-place operators and out= on pending values are recorded in the graph
(they fuse with their neighbours) with NumPy's semantics: read-after-write,
write-after-read, overlapping operands, views taken before the write."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pyasc as asc

from lazy_helpers import groups_of, lazy_mode  # noqa: F401 - lazy_mode: autouse fixture


def data(n=10007, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.float16])
def test_inplace_chain_is_one_group(dtype):
    na, nb, nd = data(seed=1, dtype=dtype), data(seed=2, dtype=dtype), data(seed=3, dtype=dtype)
    a, b, d = asc.array(na), asc.array(nb), asc.array(nd)

    def run():
        c = a + b
        c *= 2
        c += d
        c -= a
        r = c + 1
        asc.eval(c, r)
        return c, r

    (c, r), n = groups_of(run)
    assert n == 1
    ref = na + nb
    ref *= 2
    ref += nd
    ref -= na
    np.testing.assert_array_equal(np.asarray(c), ref)
    np.testing.assert_array_equal(np.asarray(r), ref + 1)


def test_out_argument_on_pending_values_is_recorded():
    na, nb = data(seed=4), data(seed=5)
    a, b = asc.array(na), asc.array(nb)

    def run():
        c = a * b
        asc.multiply(c, 3.0, out=c)
        asc.add(a, c, out=c)
        return asc.sqrt(asc.absolute(c)).eval(), c

    (r, c), n = groups_of(run)
    assert n == 1
    ref = na + na * nb * 3.0
    np.testing.assert_array_equal(np.asarray(c), ref)
    np.testing.assert_array_equal(np.asarray(r), np.sqrt(np.abs(ref)))


def test_write_after_read_keeps_old_values():
    na = data(seed=6)
    a = asc.array(na)
    c = a + 1
    e = c * 2          # reads c before the update
    s = asc.sum(c)     # a reduction of the old value too
    c += 5
    f = c * 2          # reads the new value
    np.testing.assert_array_equal(np.asarray(e), (na + 1) * 2)
    np.testing.assert_allclose(float(s), np.sum(na + 1), rtol=1e-12)
    np.testing.assert_array_equal(np.asarray(c), na + 6)
    np.testing.assert_array_equal(np.asarray(f), (na + 6) * 2)


@pytest.mark.parametrize("n", [1, 2, 17, 4096, 4097, 70001])
def test_overlapping_operands_are_buffered_like_numpy(n):
    na = data(n, seed=7)
    a = asc.array(na)
    c = a * 1
    c += c[::-1]
    ref = na * 1
    ref += ref[::-1]
    np.testing.assert_array_equal(np.asarray(c), ref)
    c = a * 1
    c *= c[::-1] + c
    ref = na * 1
    ref *= ref[::-1] + ref
    np.testing.assert_array_equal(np.asarray(c), ref)


def test_transposed_self_update():
    m = data(64 * 64, seed=8).reshape(64, 64)
    x = asc.array(m)
    c = x + 0
    c += c.T
    ref = m + 0
    ref += ref.T
    np.testing.assert_array_equal(np.asarray(c), ref)


def test_views_taken_before_the_write_see_it():
    na = data(1000, seed=9)
    a = asc.array(na)
    c = a + 1
    v = c[::2]
    w = c.reshape(10, 100)[3]
    c *= 3
    np.testing.assert_array_equal(np.asarray(v), ((na + 1) * 3)[::2])
    np.testing.assert_array_equal(np.asarray(w), ((na + 1) * 3).reshape(10, 100)[3])


def test_writes_through_views_and_leaves_stay_correct():
    na = data(1000, seed=10)
    a = asc.array(na.copy())
    c = a + 1
    c[::2] += 1        # a view: runs eagerly (materialises c first)
    c[1:3] = 7
    a += 2             # a materialised leaf: eager
    ref = na + 1
    ref[::2] += 1
    ref[1:3] = 7
    np.testing.assert_array_equal(np.asarray(c), ref)
    np.testing.assert_array_equal(np.asarray(a), na + 2)


def test_dtype_changing_updates():
    a = asc.array(np.arange(300, dtype=np.int8))
    c = a + 1
    c += asc.array(np.arange(300, dtype=np.int16))  # computed in int16, cast back (same_kind)
    ref = np.arange(300, dtype=np.int8) + 1
    ref += np.arange(300, dtype=np.int16).astype(np.int16)
    np.testing.assert_array_equal(np.asarray(c), ref)
    c = a + 1
    with pytest.raises(TypeError):
        c += 1.5
    np.testing.assert_array_equal(np.asarray(c), np.arange(300, dtype=np.int8) + 1)


def test_broadcast_operand_and_0d():
    m = data(30 * 40, seed=11).reshape(30, 40)
    row = data(40, seed=12)
    x, r = asc.array(m), asc.array(row)
    c = x * 2
    c -= r
    c /= 2
    np.testing.assert_array_equal(np.asarray(c), (m * 2 - row) / 2)
    z = asc.array(np.float64(3)) + 1
    z *= 2
    assert float(z) == 8.0
    with pytest.raises(ValueError):
        y = x[:, :1] + 0
        y += x  # the result would need a larger shape


def test_long_inplace_loop_respects_the_size_bound():
    na = data(5000, seed=13)
    a = asc.array(na)
    before = asc.lazy.graph_stats()["auto_flushes"]
    c = a + 0
    for _ in range(2500):
        c += 1
    # recorded; the bound materialises c every max_pending_nodes() updates,
    # and updates of the materialised (never exposed) c stay recorded
    assert asc.lazy.max_pending_nodes() == 1024
    assert asc.lazy.graph_stats()["auto_flushes"] - before >= 2
    assert c.is_pending()
    np.testing.assert_allclose(np.asarray(c), na + 2500, rtol=1e-12)


def test_pending_value_of_another_thread():
    na = data(2000, seed=14)
    a = asc.array(na)
    box = {}

    def make():
        box["c"] = a + 1

    t = threading.Thread(target=make)
    t.start()
    t.join()
    c = box["c"]
    c *= 2
    np.testing.assert_array_equal(np.asarray(c), (na + 1) * 2)


def test_eager_mode_agrees():
    na, nb = data(seed=15), data(seed=16)
    with asc.lazy.eager():
        a, b = asc.array(na), asc.array(nb)
        c = a + b
        c *= 2
        c += c[::-1]
        eager = np.asarray(c)
    a, b = asc.array(na), asc.array(nb)
    c = a + b
    c *= 2
    c += c[::-1]
    np.testing.assert_array_equal(np.asarray(c), eager)


# ---------------------------------------------------------------- random programs

STEP = st.tuples(st.sampled_from(["iadd", "isub", "imul", "new", "observe", "out_add", "view_iadd"]),
                 st.integers(0, 2), st.integers(0, 2), st.sampled_from(["full", "rev", "scalar", "half"]))


def replay(xp, steps, arrays):
    observed = []
    for kind, t, s, form in steps:
        src = arrays[s]
        if form == "rev":
            src = src[::-1]
        elif form == "scalar":
            src = 0.5
        elif form == "half":
            src = src * 0.5
        if kind == "iadd":
            arrays[t] += src
        elif kind == "isub":
            arrays[t] -= src
        elif kind == "imul":
            arrays[t] *= 0.5
            arrays[t] += src
        elif kind == "new":
            arrays[t] = arrays[s] * 0.75 + 0.25
        elif kind == "out_add":
            xp.add(arrays[t], src, out=arrays[t])
        elif kind == "view_iadd":
            v = arrays[t][::3]
            v += 1
        else:
            observed.append(np.array(np.asarray(arrays[t]), copy=True))
    return observed + [np.asarray(x) for x in arrays]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(STEP, min_size=1, max_size=12), n=st.sampled_from([1, 5, 64, 4097]))
def test_random_update_programs(steps, n):
    base = [data(n, seed=20 + i) for i in range(3)]
    ref = replay(np, steps, [b.copy() for b in base])
    # pending starting values (x * 1) so that updates are recorded, and leaves
    got = replay(asc, steps, [asc.array(b.copy()) * 1 for b in base])
    leaves = replay(asc, steps, [asc.asarray(b.copy()) for b in base])
    with asc.lazy.eager():
        eager = replay(asc, steps, [asc.array(b.copy()) for b in base])
    for r, g, l, e in zip(ref, got, leaves, eager):
        np.testing.assert_allclose(np.asarray(g), r, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.asarray(l), r, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.asarray(e), r, rtol=1e-12, atol=1e-12)


# ------------------------------------------------- materialised, never exposed

def computed(na, nb):
    """a + b computed by the graph (materialised, no pointer handed out)."""
    c = asc.array(na) + asc.array(nb)
    asc.eval(c)
    assert not c.is_pending()
    return c


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.uint16, np.float16])
def test_updates_of_computed_arrays_are_recorded(dtype):
    na, nb, nd = data(seed=30, dtype=dtype), data(seed=31, dtype=dtype), data(seed=32, dtype=dtype)
    c = computed(na, nb)
    d = asc.array(nd)

    def run():
        nonlocal c
        c *= 2            # recorded: c's bytes are only known to the graph
        assert c.is_pending()
        c += d
        asc.add(c, d, out=c)
        r = c - 1         # read after write: an edge to the update
        asc.eval(c, r)
        return r

    r, groups = groups_of(run)
    assert groups == 1
    ref = na + nb
    ref *= 2
    ref += nd
    ref += nd
    np.testing.assert_array_equal(np.asarray(c), ref)
    np.testing.assert_array_equal(np.asarray(r), ref - 1)


def test_views_before_and_after_a_recorded_update():
    na, nb = data(1000, seed=33), data(1000, seed=34)
    c = computed(na, nb)
    v = c[::2]                  # a view taken before (no pointer handed out)
    w = c.reshape(10, 100)[3]
    c += 1
    assert c.is_pending() and v.is_pending()
    after = c[1:5]
    ref = na + nb + 1
    np.testing.assert_array_equal(np.asarray(after), ref[1:5])
    np.testing.assert_array_equal(np.asarray(v), ref[::2])
    np.testing.assert_array_equal(np.asarray(w), ref.reshape(10, 100)[3])
    # after v's pointer went to NumPy the storage is exposed: eager from now on
    c += 1
    assert not c.is_pending()
    np.testing.assert_array_equal(np.asarray(c), ref + 1)


def test_write_after_read_of_a_computed_array():
    na, nb = data(seed=35), data(seed=36)
    c = computed(na, nb)
    r = c * 3          # pending reader of c's bytes
    c += 1             # runs after r's work (eagerly: a reader is pending)
    r2 = c * 3
    np.testing.assert_array_equal(np.asarray(r), (na + nb) * 3)
    np.testing.assert_array_equal(np.asarray(r2), (na + nb + 1) * 3)
    np.testing.assert_array_equal(np.asarray(c), na + nb + 1)


def test_overlapping_operands_of_a_computed_array():
    na, nb = data(4097, seed=37), data(4097, seed=38)
    c = computed(na, nb)
    c += c[::-1]       # not the same view: NumPy buffers it (runs eagerly)
    c2 = computed(na, nb)
    c2 *= c2           # the same view: recorded, in place
    assert c2.is_pending()
    ref = na + nb
    ref += ref[::-1].copy()
    np.testing.assert_array_equal(np.asarray(c), ref)
    np.testing.assert_array_equal(np.asarray(c2), (na + nb) * (na + nb))


class _Interface:
    """Exports only through __array_interface__."""

    def __init__(self, c):
        self.__array_interface__ = c.__array_interface__
        self.keep = c


EXPORTS = {
    "np.asarray": lambda c: np.asarray(c),
    "numpy()": lambda c: c.numpy(),
    "memoryview": lambda c: np.asarray(memoryview(c)),
    "__array_interface__": lambda c: np.asarray(_Interface(c)),
    "dlpack": lambda c: np.from_dlpack(c),
}


@pytest.mark.parametrize("how", list(EXPORTS))
def test_exported_buffers_stay_eager(how):
    """A NumPy array sharing the memory must see an update at once."""
    na, nb = data(seed=39), data(seed=40)
    c = computed(na, nb)
    shared = EXPORTS[how](c)
    np.testing.assert_array_equal(shared, na + nb)
    c += 1
    assert not c.is_pending()
    np.testing.assert_array_equal(shared, na + nb + 1)  # seen without observing c
    asc.multiply(c, 2.0, out=c)
    np.testing.assert_array_equal(shared, (na + nb + 1) * 2)


def test_leaves_from_numpy_stay_eager():
    na = data(seed=41)
    a = asc.asarray(na)  # shares NumPy's memory
    a += 1
    assert not a.is_pending()
    np.testing.assert_array_equal(na, data(seed=41) + 1)


def test_recorded_update_with_a_reader_on_another_stream():
    na, nb = data(200000, seed=42), data(200000, seed=43)
    c = computed(na, nb)
    s = asc.Stream()
    with s:
        r = c * 2      # c is read by work pending on another stream
    c += 1             # eager: waits for that reader first
    np.testing.assert_array_equal(np.asarray(r), (na + nb) * 2)
    np.testing.assert_array_equal(np.asarray(c), na + nb + 1)
    c2 = computed(na, nb)
    c2 += 1            # recorded on this stream
    with s:
        r2 = c2 * 2    # reads the pending update across streams
    np.testing.assert_array_equal(np.asarray(r2), (na + nb + 1) * 2)
