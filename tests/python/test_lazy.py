"""Lazy evaluation: pending arrays, materialisation points, ordering hazards,
eager mode, the pending-size bound, threads and graph dumps."""

from __future__ import annotations

import glob
import json
import os
import threading

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from lazy_helpers import lazy_mode  # noqa: F401 - lazy_mode: autouse fixture

ALL = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
       np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def rnd(shape, dtype=np.float32, seed=0, lo=-3, hi=3):
    r = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return r.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return r.integers(max(info.min, -50), min(info.max, 50), size=shape, endpoint=True).astype(dtype)
    return r.uniform(lo, hi, size=shape).astype(dtype)


def test_results_are_pending_until_observed():
    a = asc.array(rnd((100,)))
    b = a * 2 + 1
    assert b.is_pending()
    assert asc.lazy.pending_nodes() >= 2
    assert b.shape == (100,) and b.dtype == np.float32  # metadata without running anything
    assert b.is_pending()
    np.testing.assert_allclose(np.asarray(b), np.asarray(a) * 2 + 1, rtol=1e-6)
    assert not b.is_pending()


@pytest.mark.parametrize("observe", ["numpy", "asarray", "repr", "str", "tolist", "item", "bool", "float", "eval",
                                     "asc_eval", "synchronize", "stream_sync", "len_iter"])
def test_every_observation_materialises(observe):
    x = asc.array(np.array([1.5], np.float32))
    y = x * 4 - 1
    assert y.is_pending()
    got = {
        "numpy": lambda: y.numpy()[0],
        "asarray": lambda: np.asarray(y)[0],
        "repr": lambda: float(repr(y).split("[")[1].split("]")[0]),
        "str": lambda: float(str(y).strip("[]")),
        "tolist": lambda: y.tolist()[0],
        "item": lambda: y.item(),
        "bool": lambda: 5.0 if bool(y) else 0.0,
        "float": lambda: float(y[0]),
        "eval": lambda: y.eval().numpy()[0],
        "asc_eval": lambda: asc.eval(y).numpy()[0],
        "synchronize": lambda: (asc.synchronize(), y.is_pending())[1] or 5.0,
        "stream_sync": lambda: (asc.current_stream().synchronize(), y.is_pending())[1] or 5.0,
        "len_iter": lambda: float(list(y)[0]),
    }[observe]()
    assert got == 5.0
    assert not y.is_pending()


def test_eval_returns_its_arguments():
    a = asc.array(np.arange(4, dtype=np.float32))
    b, c = a + 1, a * 3
    assert asc.eval(b) is b
    r = asc.eval(b, c, 7)
    assert r[0] is b and r[1] is c and r[2] == 7
    assert not c.is_pending()
    # The one-argument fast entry: final arrays, one-node graphs, non-arrays.
    assert asc.eval(a) is a
    d = a - 0.5
    assert d.is_pending() and asc.eval(d) is d and not d.is_pending()
    np.testing.assert_array_equal(d.numpy(), np.arange(4, dtype=np.float32) - 0.5)
    assert asc.eval() == ()
    assert asc.eval(None) is None
    n = np.ones(3)
    assert asc.eval(n) is n
    with pytest.raises(TypeError):
        asc.eval(x=b)  # positional only
    with pytest.raises(TypeError, match="never initialised"):
        asc.eval(asc.ndarray.__new__(asc.ndarray))  # no crash


def test_eval_one_argument_raises_failed_work(run_python):
    code = """
        import numpy as np, pyasc as asc
        a = asc.array(np.ones(1 << 20, np.float32))
        asc.set_memory_limit(1 << 20)
        b = a * 2  # one-node graph: fails when run (no memory)
        for i in range(2):  # the error stays with b
            try:
                asc.eval(b)
            except MemoryError as e:
                print("MemoryError", isinstance(e, asc.AscendError), "[allocate]" in str(e))
        asc.set_memory_limit(0)
        print(float(asc.eval(a * 3)[5]))
    """
    r = run_python(code, env={"PYASC_EAGER": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["MemoryError", "True", "True"] * 2 + ["3.0"]


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
def test_lazy_equals_eager_equals_numpy_all_dtypes(dtype):
    xs = rnd((7, 33), dtype, 1)
    ys = rnd((33,), dtype, 2)

    def expr(xp, x, y):
        t = xp.maximum(x + y, y * y)
        return t, (t - x if np.dtype(dtype) != np.bool_ else xp.logical_xor(t, x)), xp.sum(t, axis=0)

    with np.errstate(all="ignore"):
        ref = expr(np, xs, ys)
    lazy = expr(asc, asc.array(xs), asc.array(ys))
    with asc.lazy.eager():
        eager = expr(asc, asc.array(xs), asc.array(ys))
    for r, l, e in zip(ref, lazy, eager):
        assert np.asarray(l).dtype == r.dtype
        np.testing.assert_array_equal(np.asarray(l), np.asarray(e))
        if r.dtype.kind == "f" or r.dtype == np.dtype(ml_dtypes.bfloat16):
            np.testing.assert_allclose(np.asarray(l).astype(np.float64), r.astype(np.float64), rtol=1e-2)
        else:
            np.testing.assert_array_equal(np.asarray(l), r)


def test_special_values_and_empty_and_0d():
    v = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0], np.float32)
    a = asc.array(v)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(np.asarray(asc.sqrt(a * a) - a), np.sqrt(v * v) - v)
        np.testing.assert_array_equal(np.signbit(np.asarray(-a * 1)), np.signbit(-v * 1))
    e = asc.array(np.zeros((0, 3), np.float32))
    assert (e + 1).shape == (0, 3)
    assert np.asarray(asc.sum(e + 1)) == 0
    z = asc.array(np.float64(2.5))
    r = z * z + 1
    assert r.shape == () and r.item() == 7.25


def test_write_after_read_setitem():
    a = asc.array(np.arange(10, dtype=np.float32))
    b = a + 1  # pending reader of a
    a[0] = 100
    a[5:] = -1
    np.testing.assert_array_equal(np.asarray(b), np.arange(10) + 1)
    np.testing.assert_array_equal(np.asarray(a)[:6], [100, 1, 2, 3, 4, -1])


def test_write_after_read_inplace_and_out():
    a = asc.array(np.arange(6, dtype=np.float64))
    b = a * 2
    a += 10
    c = a - 1
    asc.multiply(a, 0.5, out=a)
    np.testing.assert_array_equal(np.asarray(b), np.arange(6) * 2)
    np.testing.assert_array_equal(np.asarray(c), np.arange(6) + 9)
    np.testing.assert_array_equal(np.asarray(a), (np.arange(6) + 10) * 0.5)


def test_read_after_write_into_pending_and_views():
    a = asc.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    p = a * 1  # pending
    p[1] = 0  # writes into the pending result: it is computed first
    q = p[::-1, ::2] + 1  # negative-stride view of it
    v = p.T  # view of a pending... (already computed here)
    np.testing.assert_array_equal(np.asarray(q), np.array([[9, 11], [1, 1], [1, 3]], np.float32))
    np.testing.assert_array_equal(np.asarray(v), np.asarray(p).T)
    s = a * 2
    sv = s[:, 1:3][::-1]  # view of a still pending value
    del s
    r = sv - 1
    np.testing.assert_array_equal(np.asarray(r), (np.arange(12).reshape(3, 4) * 2)[:, 1:3][::-1] - 1)


def test_inplace_chain_on_views_keeps_numpy_order():
    base = np.arange(20, dtype=np.float32)
    x = asc.array(base.copy())
    ref = base.copy()
    for k in range(3):
        y = x[::2] * 2
        x[1::2] += y
        ref_y = ref[::2] * 2
        ref[1::2] += ref_y
        x[:3] = x[-3:]
        ref[:3] = ref[-3:]
    np.testing.assert_array_equal(np.asarray(x), ref)


def test_shared_subgraphs_and_dropped_references():
    a = asc.array(rnd((50,), np.float64))
    t = asc.exp(a)
    u, w = t + 1, t * 2
    del t
    before = asc.lazy.graph_stats()
    junk = asc.sin(a)
    del junk
    res = asc.eval(u, w)
    na = np.asarray(a)
    np.testing.assert_allclose(np.asarray(res[0]), np.exp(na) + 1, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(res[1]), np.exp(na) * 2, rtol=1e-12)
    after = asc.lazy.graph_stats()
    assert after["nodes_dead"] - before["nodes_dead"] >= 1  # sin never ran
    assert after["groups_run"] - before["groups_run"] == 1  # u and w: one program, two outputs


def test_pending_size_bound():
    old = asc.lazy.max_pending_nodes()
    asc.lazy.set_max_pending_nodes(64)
    try:
        before = asc.lazy.graph_stats()
        x = asc.array(np.ones(8))
        for _ in range(1000):
            x = x * 0.5 + 0.5
            assert asc.lazy.pending_nodes() < 64
        assert asc.lazy.graph_stats()["auto_flushes"] - before["auto_flushes"] >= 1000 * 2 // 64 - 1
        np.testing.assert_allclose(np.asarray(x), np.ones(8))
    finally:
        asc.lazy.set_max_pending_nodes(old)
    with pytest.raises(ValueError):
        asc.lazy.set_max_pending_nodes(0)


def test_errors_raise_at_the_call_with_op_name():
    a = asc.array(np.ones(3))
    with pytest.raises(ValueError, match=r"\[add\].*\(3,\).*\(4,\)"):
        a + asc.array(np.ones(4))
    with pytest.raises(TypeError, match=r"subtract"):
        asc.array(np.ones(3, bool)) - asc.array(np.ones(3, bool))
    with pytest.raises(ValueError, match=r"axis 2 is out of bounds"):
        asc.sum(a, axis=2)


def test_failed_work_raises_when_read(run_python):
    code = """
        import numpy as np, pyasc as asc
        a = asc.array(np.ones(1 << 20, np.float32))
        asc.set_memory_limit(1 << 20)
        b = a * 2            # recorded: no memory yet
        try:
            b.numpy()
        except MemoryError as e:
            print("MemoryError", "[allocate]" in str(e))
        try:
            (b + 1).numpy()
        except MemoryError:
            print("again")
        asc.set_memory_limit(0)
        print(float(asc.sum(a * 3)))
    """
    r = run_python(code, env={"PYASC_EAGER": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["MemoryError", "True", "again", "3145728.0"]


def test_eager_mode_from_environment(run_python):
    r = run_python("import numpy as np, pyasc as asc\n"
                   "a = asc.array(np.ones(3)); b = a + 1\n"
                   "print(asc.is_eager(), b.is_pending(), b.tolist())",
                   env={"PYASC_EAGER": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "False", "[2.0,", "2.0,", "2.0]"]


def test_threads_and_streams():
    a = asc.array(rnd((20000,), np.float32))
    results = {}

    def work(k):
        s = asc.Stream()
        with s:
            x = a
            for _ in range(10):
                x = x * 1.0 + k
            results[k] = x  # may stay pending in this thread's graph
            s.synchronize()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    na = np.asarray(a)
    for k in range(4):
        np.testing.assert_allclose(np.asarray(results[k]), na + 10 * k, rtol=1e-5, atol=1e-4)
    # A tensor pending in another thread's graph used here.
    box = []
    t = threading.Thread(target=lambda: box.append(a * 3))
    t.start()
    t.join()
    np.testing.assert_allclose(np.asarray(box[0] + 1), na * 3 + 1, rtol=1e-6)


def test_numpy_view_writes_after_eval():
    n = np.arange(5, dtype=np.float64)
    a = asc.asarray(n)  # shares n's memory
    b = a + 1
    asc.eval(b)  # the documented rule: evaluate before writing through NumPy
    n[0] = 100
    assert np.asarray(b)[0] == 1
    c = a + 1
    assert np.asarray(c)[0] == 101


def test_graph_dump_files(tmp_path):
    asc.lazy.set_graph_dump(True, str(tmp_path))
    try:
        x = asc.array(rnd((16, 40), np.float32))
        e = asc.exp(x - x.max(axis=1, keepdims=True))
        r = e / e.sum(axis=1, keepdims=True)
        unused = x * 7
        del e, unused
        r.eval()
    finally:
        asc.lazy.set_graph_dump(False)
    before = sorted(glob.glob(str(tmp_path / "*.before.json")))
    after = sorted(glob.glob(str(tmp_path / "*.after.json")))
    assert len(before) == 1 and len(after) == 1
    assert os.path.exists(before[0][:-5] + ".dot") and os.path.exists(after[0][:-5] + ".dot")
    b = json.load(open(before[0]))
    a = json.load(open(after[0]))
    ops = [n["op"] for n in b["nodes"]]
    assert ops == ["max", "subtract", "exp", "sum", "true_divide", "multiply"]
    assert b["stage"] == "before" and a["stage"] == "after"
    mx = b["nodes"][0]
    assert mx["kind"] == "reduce" and mx["params"] == {"axes": [1], "keepdims": True}
    assert mx["shape"] == [16, 1] and mx["dtype"] == "float32"
    assert [n["live"] for n in b["nodes"]] == [False, False, False, False, True, False]
    assert [n["needed"] for n in b["nodes"]] == [True] * 5 + [False]
    assert len(a["groups"]) == 1 and a["groups"][0]["mode"] == "row_fused"
    assert a["groups"][0]["time_ms"] >= 0 and a["groups"][0]["tile"] % 40 == 0
    assert sorted(n["id"] for n in a["nodes"]) == [0, 1, 2, 3, 4]
    by_id = {n["id"]: n for n in a["nodes"]}
    assert by_id[4]["buffer"] == {"kind": "pool:output", "bytes": 16 * 40 * 4}
    assert all(by_id[i]["buffer"]["bytes"] == 0 for i in range(4))  # intermediates: no memory
    assert all(n["group"] == 0 for n in a["nodes"])
    dot = open(after[0][:-5] + ".dot").read()
    assert dot.startswith("digraph") and "cluster_0" in dot and "row_fused" in dot


def test_dump_from_environment(run_python, tmp_path):
    r = run_python("import numpy as np, pyasc as asc\n"
                   "a = asc.array(np.ones(8, np.float32)); print(float(asc.sum(a * 2 + 1)))",
                   env={"ASCEND_DUMP_GRAPH": "1", "ASCEND_DUMP_GRAPH_PATH": str(tmp_path / "d"), "PYASC_EAGER": "0"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["24.0"]
    files = sorted(os.listdir(tmp_path / "d"))
    assert len(files) == 4 and {f.split(".", 1)[1] for f in files} == {"before.json", "before.dot", "after.json",
                                                                        "after.dot"}
    g = json.load(open(tmp_path / "d" / [f for f in files if f.endswith("after.json")][0]))
    assert g["groups"][0]["mode"] == "reduce_all" and [n["op"] for n in g["nodes"]] == ["multiply", "add", "sum"]


def test_profiler_records_graph_kernels():
    from pyasc.profiler import Profiler

    x = asc.array(rnd((300,), np.float32))
    with Profiler() as prof:
        (x * 2 + 1).eval()
    names = [e["name"] for e in prof.events() if e["kind"] == "graph" and e["name"].startswith("fused[")]
    assert names == ["fused[multiply+add]"]
