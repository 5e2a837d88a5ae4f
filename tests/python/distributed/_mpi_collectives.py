"""Run on N ranks by test_collectives.py: every collective against NumPy's answer computed from
all ranks' inputs (each rank regenerates every rank's input from its seed). Prints one line
'RESULT rank=<r> failures=<k>' and the failures; exit status 1 on any failure."""

import os
import sys
import traceback

if "--launcher-check" in sys.argv:
    # Started by pyasc-run (test_collectives.py, 2 ranks): the launcher's variables, printed
    # before pyasc is imported (ASC_NUM_CORES must be set by then), checked after init.
    _KEYS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "ASC_NUM_CORES")
    sys.stdout.write("ENV " + " ".join(f"{k}={os.environ.get(k)}" for k in _KEYS) + " ARGS="
                     + ",".join(sys.argv[1:]) + "\n")
    sys.stdout.flush()

import ml_dtypes
import numpy as np

import pyasc as asc
import pyasc.distributed as dist

dist.init_process_group(backend="hccl", init_method="env://", timeout=40)
R, N = dist.get_rank(), dist.get_world_size()
if "--launcher-check" in sys.argv:
    assert R == int(os.environ["RANK"]) and N == int(os.environ["WORLD_SIZE"])
    assert dist.get_local_rank() == int(os.environ["LOCAL_RANK"])
    assert asc.get_device_properties(0).num_cores == int(os.environ["ASC_NUM_CORES"]), asc.get_device_properties(0)
    print(f"MAIN {__name__} rank={R}", flush=True)
FAIL = []
BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, BF16, np.float32, np.float64, np.complex64, np.complex128]


def data(rank, dtype, shape, seed, small=False):
    rng = np.random.default_rng(1000 * seed + rank)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        lo, hi = (0, 4) if dt.kind == "u" else (-3, 4)
        if not small:
            lo, hi = (0, 100) if dt.kind == "u" else (-100, 100)
        return rng.integers(lo, hi, shape).astype(dt)
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def check(name, got, want, exact):
    try:
        g = np.asarray(got.numpy() if isinstance(got, asc.ndarray) else got)
        w = np.asarray(want)
        assert g.shape == w.shape, f"shape {g.shape} != {w.shape}"
        assert g.dtype == w.dtype, f"dtype {g.dtype} != {w.dtype}"
        if exact or g.dtype.kind in "biu":
            assert np.array_equal(g, w, equal_nan=g.dtype.kind in "fc") or (
                g.dtype == BF16 and np.array_equal(g.astype(np.float32), w.astype(np.float32), equal_nan=True)), \
                f"got {g.ravel()[:6]} want {w.ravel()[:6]}"
        else:
            tol = {np.dtype(np.float16): 2e-2, BF16: 5e-2}.get(g.dtype, 1e-5)
            wide = np.complex128 if g.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(g.astype(wide), w.astype(wide), rtol=tol, atol=tol, equal_nan=True)
    except Exception as e:  # noqa: BLE001
        FAIL.append(f"{name}: {e}")


def expect_raises(name, exc, fn):
    try:
        fn()
    except exc as e:
        return str(e)
    except Exception as e:  # noqa: BLE001
        FAIL.append(f"{name}: raised {type(e).__name__} {e}, expected {exc.__name__}")
        return None
    FAIL.append(f"{name}: did not raise {exc.__name__}")
    return None


def run(name, fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        FAIL.append(f"{name}: {traceback.format_exc()}")


REDUCE = {"SUM": np.add, "PRODUCT": np.multiply, "MAX": np.maximum, "MIN": np.minimum}


def want_reduce(op, xs):
    dt = xs[0].dtype
    if dt.kind == "b":
        f = np.logical_or if op in ("SUM", "MAX") else np.logical_and
        return f.reduce(np.stack(xs), axis=0)
    if op == "AVG":
        return (np.add.reduce(np.stack(xs).astype(np.complex128 if dt.kind == "c" else np.float64), axis=0)
                / len(xs)).astype(dt)
    st = np.stack(xs)
    if dt in (np.dtype(np.float16), BF16):
        st = st.astype(np.float32)
    return REDUCE[op].reduce(st, axis=0).astype(dt)


def t_all_reduce():
    shape = (3, 5)
    for dt in DTYPES:
        dt = np.dtype(dt)
        ops = ["SUM", "PRODUCT", "MAX", "MIN", "AVG"]
        if dt.kind == "c":
            ops = ["SUM", "PRODUCT", "AVG"]
        if dt.kind in "biu":
            ops.remove("AVG")
        for op in ops:
            xs = [data(r, dt, shape, 1, small=(op == "PRODUCT")) for r in range(N)]
            if dt.kind == "f" and op in ("MAX", "MIN"):
                for x in xs[:1]:
                    x[0, 0] = np.nan  # NumPy's maximum/minimum propagate NaN
            x = asc.asarray(xs[R].copy())
            dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
            exact = dt.kind in "biu" or op in ("MAX", "MIN") or (N == 2 and op in ("SUM", "PRODUCT"))
            check(f"all_reduce {dt} {op}", x, want_reduce(op, xs), exact)
    # integer AVG, complex MAX, float BAND: TypeErrors on every rank before any traffic
    expect_raises("AVG int", TypeError, lambda: dist.all_reduce(asc.ones(3, dtype="int32"), op=dist.ReduceOp.AVG))
    expect_raises("MAX complex", TypeError,
                  lambda: dist.all_reduce(asc.ones(3, dtype="complex64"), op=dist.ReduceOp.MAX))
    expect_raises("BAND float", TypeError, lambda: dist.all_reduce(asc.ones(3), op=dist.ReduceOp.BAND))
    expect_raises("bad op", ValueError, lambda: dist.all_reduce(asc.ones(3), op="median"))
    expect_raises("not an array", TypeError, lambda: dist.all_reduce([1.0, 2.0]))
    # bitwise ops on integers
    xs = [data(r, np.int32, (7,), 2) for r in range(N)]
    for op, f in (("BAND", np.bitwise_and), ("BOR", np.bitwise_or), ("BXOR", np.bitwise_xor)):
        x = asc.asarray(xs[R].copy())
        dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
        check(f"all_reduce {op}", x, f.reduce(np.stack(xs), axis=0), True)
    # empty, 0-d, non-contiguous view, pending lazy input, large
    e = asc.zeros((0, 4), dtype="float32")
    dist.all_reduce(e)
    check("all_reduce empty", e, np.zeros((0, 4), np.float32), True)
    s = asc.asarray(np.float64(R + 1))
    dist.all_reduce(s)
    check("all_reduce 0-d", s, np.float64(N * (N + 1) / 2), True)
    base = [data(r, np.float32, (6, 8), 3) for r in range(N)]
    full = asc.asarray(base[R].copy())
    view = full[::2, 1::3]
    dist.all_reduce(view, op=dist.ReduceOp.MAX)
    want = base[R].copy()
    want[::2, 1::3] = np.maximum.reduce(np.stack([b[::2, 1::3] for b in base]), axis=0)
    check("all_reduce strided view", full, want, True)
    a = asc.asarray(base[R])
    lazy = a * 2 + 1  # pending lazy work: finished before the collective reads it
    dist.all_reduce(lazy)
    check("all_reduce lazy input", lazy, np.add.reduce(np.stack([b * 2 + 1 for b in base]), axis=0), N == 2)
    y = lazy + 1  # reads the reduced values
    check("all_reduce then lazy op", y, np.add.reduce(np.stack([b * 2 + 1 for b in base]), axis=0) + 1, N == 2)
    big = [data(r, np.float32, (1 << 18,), 4) for r in range(N)]
    b = asc.asarray(big[R].copy())
    dist.all_reduce(b, op=dist.ReduceOp.AVG)
    check("all_reduce 1 MiB AVG", b, np.mean(np.stack(big).astype(np.float64), axis=0).astype(np.float32), False)
    ro = asc.asarray(np.ones(3, np.float32))
    ro_np = np.ones(3, np.float32)
    ro_np.flags.writeable = False
    expect_raises("read-only", ValueError, lambda: dist.all_reduce(asc.asarray(ro_np)))
    del ro


def t_async():
    xs = [data(r, np.float64, (1000,), 5) for r in range(N)]
    x = asc.asarray(xs[R].copy())
    w = dist.all_reduce(x, async_op=True)
    assert isinstance(w, dist.Work)
    assert w.wait() is True and w.is_completed() and w.is_success() and w.exception() is None
    check("async all_reduce", x, np.add.reduce(np.stack(xs), axis=0), N == 2)
    ws = [dist.all_reduce(asc.asarray(xs[R].copy()), op=dist.ReduceOp.MAX, async_op=True) for _ in range(3)]
    while not all(w.is_completed() for w in ws):
        pass
    for w in ws:
        check("async MAX result()", w.result()[0], np.maximum.reduce(np.stack(xs), axis=0), True)


def t_broadcast_reduce():
    for dt in (np.float32, np.int16, BF16, np.complex64, np.bool_):
        src = N - 1
        xs = [data(r, dt, (4, 3), 6) for r in range(N)]
        x = asc.asarray(xs[R].copy())
        dist.broadcast(x, src=src)
        check(f"broadcast {np.dtype(dt)}", x, xs[src], True)
    xs = [data(r, np.int64, (5,), 7) for r in range(N)]
    x = asc.asarray(xs[R].copy())
    dist.reduce(x, dst=1, op=dist.ReduceOp.SUM)
    check("reduce dst", x, np.add.reduce(np.stack(xs), axis=0) if R == 1 else xs[R], True)
    expect_raises("broadcast bad src", ValueError, lambda: dist.broadcast(asc.ones(2), src=N))


def t_gathers():
    xs = [data(r, np.float32, (2, 3), 8) for r in range(N)]
    x = asc.asarray(xs[R])
    outs = [asc.zeros((2, 3), dtype="float32") for _ in range(N)]
    dist.all_gather(outs, x)
    for i in range(N):
        check(f"all_gather[{i}]", outs[i], xs[i], True)
    out = asc.zeros((N * 2, 3), dtype="float32")
    dist.all_gather_into_tensor(out, x)
    check("all_gather_into_tensor", out, np.concatenate(xs), True)
    out3 = asc.zeros((N, 2, 3), dtype="float32")
    dist.all_gather_into_tensor(out3, x)
    check("all_gather_into_tensor stacked", out3, np.stack(xs), True)
    expect_raises("all_gather_into_tensor size", ValueError,
                  lambda: dist.all_gather_into_tensor(asc.zeros((N * 2 + 1, 3), dtype="float32"), x))
    expect_raises("all_gather list len", ValueError, lambda: dist.all_gather(outs[:-1], x))
    # gather / scatter
    g = [asc.zeros((2, 3), dtype="float32") for _ in range(N)] if R == 0 else None
    dist.gather(x, g, dst=0)
    if R == 0:
        for i in range(N):
            check(f"gather[{i}]", g[i], xs[i], True)
    parts = [data(i, np.int32, (4,), 9) for i in range(N)]
    y = asc.zeros(4, dtype="int32")
    dist.scatter(y, [asc.asarray(p) for p in parts] if R == N - 1 else None, src=N - 1)
    check("scatter", y, parts[R], True)


def t_reduce_scatter_alltoall():
    ins = {r: [data(100 * r + i, np.float64, (3,), 10) for i in range(N)] for r in range(N)}
    out = asc.zeros(3, dtype="float64")
    dist.reduce_scatter(out, [asc.asarray(a) for a in ins[R]], op=dist.ReduceOp.SUM)
    check("reduce_scatter", out, np.add.reduce(np.stack([ins[r][R] for r in range(N)]), axis=0), N == 2)
    flat = {r: np.concatenate(ins[r]) for r in range(N)}
    out = asc.zeros(3, dtype="float64")
    dist.reduce_scatter_tensor(out, asc.asarray(flat[R]), op=dist.ReduceOp.AVG)
    want = np.add.reduce(np.stack([flat[r] for r in range(N)]), axis=0)[3 * R:3 * R + 3] / N
    check("reduce_scatter_tensor AVG", out, want, False)
    # all_to_all_single, equal splits: rank r sends rows [2i, 2i+2) to rank i
    xs = {r: data(r, np.int32, (2 * N, 3), 11) for r in range(N)}
    out = asc.zeros((2 * N, 3), dtype="int32")
    dist.all_to_all_single(out, asc.asarray(xs[R]))
    check("all_to_all_single", out, np.concatenate([xs[r][2 * R:2 * R + 2] for r in range(N)]), True)
    # uneven: rank r sends (r + i) % 3 + 1 rows to rank i
    sizes = {r: [(r + i) % 3 + 1 for i in range(N)] for r in range(N)}
    rows = {r: data(r, np.float32, (sum(sizes[r]), 2), 12) for r in range(N)}
    recv = [sizes[r][R] for r in range(N)]
    out = asc.zeros((sum(recv), 2), dtype="float32")
    dist.all_to_all_single(out, asc.asarray(rows[R]), recv, sizes[R])
    pieces = []
    for r in range(N):
        start = sum(sizes[r][:R])
        pieces.append(rows[r][start:start + sizes[r][R]])
    check("all_to_all_single uneven", out, np.concatenate(pieces), True)
    # wrong receive counts on one rank: CollectiveMismatchError on every rank
    bad = list(recv)
    if R == 0:
        bad[0] += 1
    out_bad = asc.zeros((sum(bad), 2), dtype="float32")
    expect_raises("all_to_all_single split mismatch", dist.CollectiveMismatchError,
                  lambda: dist.all_to_all_single(out_bad, asc.asarray(rows[R]), bad, sizes[R]))
    # all_to_all of lists
    ins = [asc.asarray(data(10 * R + i, np.float32, (i + 1,), 13)) for i in range(N)]
    outs = [asc.zeros((R + 1,), dtype="float32") for _ in range(N)]
    dist.all_to_all(outs, ins)
    for r in range(N):
        check(f"all_to_all[{r}]", outs[r], data(10 * r + R, np.float32, (R + 1,), 13), True)


def t_p2p():
    x = data(R, np.float64, (5,), 14)
    if R == 0:
        for peer in range(1, N):
            y = asc.zeros(5, dtype="float64")
            src = dist.recv(y, src=peer)
            assert src == peer
            check(f"recv from {peer}", y, data(peer, np.float64, (5,), 14), True)
        y = asc.zeros(5, dtype="float64")
        src = dist.recv(y)  # any source
        check("recv any", y, data(src, np.float64, (5,), 14) * 2, True)
        small = asc.zeros(4, dtype="float64")
        expect_raises("recv too small", ValueError, lambda: dist.recv(small, src=1, tag=7))
    else:
        dist.send(asc.asarray(x), dst=0)
        if R == 1:
            w = dist.isend(asc.asarray(x * 2), dst=0)
            w.wait()
            dist.send(asc.asarray(x), dst=0, tag=7)
    dist.barrier()
    # ring with isend/irecv
    nxt, prv = (R + 1) % N, (R - 1) % N
    y = asc.zeros(5, dtype="float64")
    rw = dist.irecv(y, src=prv, tag=3)
    sw = dist.isend(asc.asarray(x), dst=nxt, tag=3)
    sw.wait()
    rw.wait()
    check("ring", y, data(prv, np.float64, (5,), 14), True)
    assert rw.value == prv


def t_groups():
    members = list(range(0, N, 2))
    g = dist.new_group(members)
    if R in members:
        assert dist.get_rank(g) == members.index(R) and dist.get_world_size(g) == len(members)
        assert dist.get_process_group_ranks(g) == members
        x = asc.asarray(np.full(3, R, np.int64))
        dist.all_reduce(x, group=g)
        check("group all_reduce", x, np.full(3, sum(members), np.int64), True)
        y = asc.asarray(np.full(2, R, np.int32))
        dist.broadcast(y, src=members[-1], group=g)
        check("group broadcast", y, np.full(2, members[-1], np.int32), True)
        if N > 2:
            expect_raises("src not in group", ValueError, lambda: dist.broadcast(y, src=1, group=g))
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(g) == -1
        expect_raises("non-member", ValueError, lambda: dist.all_reduce(asc.ones(2), group=g))
    expect_raises("bad group type", ValueError, lambda: dist.all_reduce(asc.ones(2), group="world"))
    expect_raises("ranks out of range", ValueError, lambda: dist.new_group([0, N]))
    expect_raises("duplicate ranks", ValueError, lambda: dist.new_group([0, 0]))
    if g is not dist.GroupMember.NON_GROUP_MEMBER:
        dist.destroy_process_group(g)
        expect_raises("destroyed group", ValueError, lambda: dist.all_reduce(asc.ones(2), group=g))


def _mismatch_cases(level):
    from pyasc.distributed import _engine
    _engine.set_mode(check=level)
    try:
        # shapes differ on the last rank: every rank raises, nobody hangs
        shape = (4,) if R < N - 1 else (5,)
        msg = expect_raises(f"shape mismatch {level}", dist.CollectiveMismatchError,
                            lambda: dist.all_reduce(asc.ones(shape, dtype="float32")))
        want = "(5,)" if level == _engine.DETAIL else "float32 5 SUM"
        if msg is not None and want not in msg:
            FAIL.append(f"shape mismatch message does not name the shapes: {msg}")
        if level == _engine.DETAIL:  # same element count, other shape
            shape = (2, 3) if R < N - 1 else (3, 2)
            msg = expect_raises("same-size shape mismatch DETAIL", dist.CollectiveMismatchError,
                                lambda: dist.all_reduce(asc.ones(shape, dtype="float32")))
            if msg is not None and "(3, 2)" not in msg:
                FAIL.append(f"same-size shape mismatch message does not name the shapes: {msg}")
        dt = "float32" if R else "float64"
        expect_raises(f"dtype mismatch {level}", dist.CollectiveMismatchError,
                      lambda: dist.all_reduce(asc.ones(3, dtype=dt)))
        dt = "float32" if R else "int32"  # same bytes, other dtype
        expect_raises(f"dtype mismatch same size {level}", dist.CollectiveMismatchError,
                      lambda: dist.all_reduce(asc.ones(3, dtype=dt)))
        op = dist.ReduceOp.SUM if R else dist.ReduceOp.MAX
        expect_raises(f"op mismatch {level}", dist.CollectiveMismatchError, lambda: dist.all_reduce(asc.ones(3), op=op))
        # a small all_reduce (check in the message) against a large one (fingerprint all-reduce)
        n = 4 if R < N - 1 else (1 << 18)
        expect_raises(f"small vs large {level}", dist.CollectiveMismatchError,
                      lambda: dist.all_reduce(asc.ones(n, dtype="float32")))
        # all_reduce on some ranks, broadcast on others
        if R == 0:
            expect_raises(f"all_reduce vs broadcast {level}", dist.CollectiveMismatchError,
                          lambda: dist.all_reduce(asc.ones(3, dtype="int64")))
        else:
            expect_raises(f"broadcast vs all_reduce {level}", dist.CollectiveMismatchError,
                          lambda: dist.broadcast(asc.ones(3, dtype="int64"), src=0))
        # the group still works afterwards, in every path
        for size in (3, 1 << 18):
            x = asc.ones(size, dtype="float32")
            dist.all_reduce(x)
            check(f"after mismatch {level} {size}", x, np.full(size, N, np.float32), True)
        x = asc.ones(3, dtype="float64")
        dist.all_reduce(x, op=dist.ReduceOp.AVG)
        check(f"after mismatch AVG {level}", x, np.ones(3), True)
    finally:
        _engine.reload_settings()


def t_mismatch():
    from pyasc.distributed import _engine
    _mismatch_cases(_engine.INFO)
    _mismatch_cases(_engine.DETAIL)
    _engine.set_mode(blocking=False)  # the polled mode's paths (reload_settings restores the default)
    _mismatch_cases(_engine.INFO)


def t_modes():
    """The same results with the check in the message (INFO), per call (DETAIL), off, and in the
    polled mode (nonblocking MPI): every path of all_reduce."""
    from pyasc.distributed import _engine
    cases = [(np.float32, (3, 5)), (np.float64, (1 << 15,)), (np.int32, (7,)), (np.int64, (2, 2)), (np.float32, (1 << 17,))]
    native = _engine.NATIVE
    try:
        for level, blocking, c_path in [(lv, b, True) for lv in (_engine.OFF, _engine.INFO, _engine.DETAIL)
                                        for b in (True, False)] + [(_engine.OFF, True, False),
                                                                   (_engine.INFO, True, False)]:
            _engine.NATIVE = native if c_path else None  # False: the Python path (a build without MPI's C library)
            _engine.set_mode(level, blocking)
            for dt, shape in cases:
                for op in ("SUM", "MAX", "MIN"):
                    xs = [data(r, dt, shape, 60) for r in range(N)]
                    x = asc.asarray(xs[R].copy())
                    dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
                    exact = np.dtype(dt).kind == "i" or op != "SUM" or N == 2
                    check(f"mode {level}/{blocking}/{c_path} {np.dtype(dt)} {shape} {op}", x, want_reduce(op, xs),
                          exact)
                xn = data(R, dt, shape, 61)  # a NumPy array, in place
                dist.all_reduce(xn, op=dist.ReduceOp.MAX)
                check(f"mode {level}/{blocking}/{c_path} numpy {np.dtype(dt)}", xn,
                      want_reduce("MAX", [data(r, dt, shape, 61) for r in range(N)]), True)
                xa = data(R, dt, shape, 62)  # AVG / non-contiguous through both paths
                if np.dtype(dt).kind == "f":
                    full = asc.asarray(np.stack([xa, xa], axis=-1))  # [..., 0]: a strided view
                    dist.all_reduce(full[..., 0], op=dist.ReduceOp.AVG)
                    others = np.stack([data(r, dt, shape, 62) for r in range(N)])
                    check(f"mode {level}/{blocking}/{c_path} AVG strided {np.dtype(dt)}", full.numpy()[..., 0],
                          (np.add.reduce(others, axis=0) / N).astype(dt), N == 2)
                    check(f"mode {level}/{blocking}/{c_path} AVG strided untouched", full.numpy()[..., 1], xa, True)
    finally:
        _engine.NATIVE = native
        _engine.reload_settings()


def t_objects():
    objs = [{"rank": r, "name": f"r{r}", "arr": np.arange(r + 1, dtype=np.float32), "t": (r, None, 1.5),
             "set": {r, -r}, 2: b"\x00" * r, "pa": asc.full(2, r, dtype="int64")} for r in range(N)]

    def same(name, got, want):
        try:
            assert set(got) == set(want), (set(got), set(want))
            for k in want:
                g, w = got[k], want[k]
                if isinstance(w, (np.ndarray, asc.ndarray)):
                    assert type(g) is type(w) and g.dtype == w.dtype and np.array_equal(np.asarray(g), np.asarray(w))
                else:
                    assert g == w and type(g) is type(w), (k, g, w)
        except AssertionError as e:
            FAIL.append(f"{name}: {e}")

    out = [None] * N
    dist.all_gather_object(out, objs[R])
    for r in range(N):
        same(f"all_gather_object[{r}]", out[r], objs[r])
    lst = [objs[N - 1], "x", 3] if R == N - 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=N - 1)
    same("broadcast_object_list", lst[0], objs[N - 1])
    assert lst[1:] == ["x", 3], lst
    g = [None] * N if R == 1 else None
    dist.gather_object(objs[R], g, dst=1)
    if R == 1:
        for r in range(N):
            same(f"gather_object[{r}]", g[r], objs[r])
    o = [None]
    dist.scatter_object_list(o, [objs[r] for r in range(N)] if R == 0 else None, src=0)
    same("scatter_object_list", o[0], objs[R])
    # an unsupported object: TypeError on the sending rank before any traffic
    expect_raises("all_gather_object lambda", TypeError, lambda: dist.all_gather_object([None] * N, lambda: 1))
    expect_raises("all_gather_object list size", ValueError, lambda: dist.all_gather_object([None], 1))
    # list lengths that differ from the source's: every other rank raises
    mine = [0] * (2 if R == 0 else 3)
    if R == 0:
        dist.broadcast_object_list(mine, src=0)
    else:
        expect_raises("broadcast_object_list length", ValueError, lambda: dist.broadcast_object_list(mine, src=0))


def t_data_parallel():
    shapes = [(5, 3), (3,), (4, 4), (7,)]
    params = [asc.asarray(data(0, np.float32, s, 20 + i)) for i, s in enumerate(shapes)]
    params.append(asc.asarray(data(0, np.float64, (6,), 30)))
    # replicas start different: DataParallel broadcasts rank 0's parameters
    local = [asc.asarray(data(R, np.dtype(p.dtype), p.shape, 40 + i)) for i, p in enumerate(params)]
    dp = dist.DataParallel(local, bucket_cap_mb=40 / (1 << 20))  # 40-byte buckets: several per dtype
    assert len(dp.buckets) >= 4, len(dp.buckets)
    for i, p in enumerate(local):
        check(f"DataParallel broadcast {i}", p, data(0, np.dtype(p.dtype), p.shape, 40 + i), True)
    grads = {r: [data(r, np.dtype(p.dtype), p.shape, 50 + i) for i, p in enumerate(local)] for r in range(N)}
    mine = [asc.asarray(g.copy()) for g in grads[R]]
    dp.reduce_gradients(list(zip(local, mine)))
    for i in range(len(local)):
        want = (np.add.reduce(np.stack([grads[r][i] for r in range(N)]).astype(np.float64), axis=0) / N)
        check(f"DataParallel grad {i}", mine[i], want.astype(mine[i].dtype), False)
    # a second step through the in-order list form
    mine = [asc.asarray(g.copy() * 3) for g in grads[R]]
    dp.reduce_gradients(mine)
    for i in range(len(local)):
        want = np.add.reduce(np.stack([grads[r][i] * 3 for r in range(N)]).astype(np.float64), axis=0) / N
        check(f"DataParallel step 2 grad {i}", mine[i], want.astype(mine[i].dtype), False)
    expect_raises("DataParallel missing grad", ValueError, lambda: dp.finish())


def t_dp_overlap():
    """DataParallel.value_and_grad (buckets all-reduced during the backward) gives the same
    averaged gradients as value_and_grad followed by reduce_gradients, and as NumPy's."""
    rng = np.random.default_rng(70)
    shapes = [(6, 5), (5,), (5, 3), (3,), (4,)]  # the last one is not used by the loss: zero gradient
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    xs = {r: data(r, np.float32, (8, 6), 71) for r in range(N)}

    def loss(w1, b1, w2, b2, unused, x):
        h = asc.tanh(asc.matmul(x, w1) + b1)
        return asc.sum(asc.matmul(h, w2) + b2)

    def numpy_grads(x):
        w1, b1, w2, b2, _ = init
        h = np.tanh(x @ w1 + b1)
        dh = np.ones((x.shape[0], 3), np.float32) @ w2.T * (1 - h * h)
        return [x.T @ dh, dh.sum(0), h.T @ np.ones((x.shape[0], 3), np.float32),
                np.full(3, x.shape[0], np.float32), np.zeros(4, np.float32)]

    want = [np.mean(np.stack([numpy_grads(xs[r])[i] for r in range(N)]), axis=0) for i in range(len(shapes))]
    results = []
    for overlap in (True, False):
        params = [asc.asarray(a.copy()) for a in init]
        dp = dist.DataParallel(params, bucket_cap_mb=64 / (1 << 20))  # small buckets: several in flight
        x = asc.asarray(xs[R])
        for _ in range(2):  # twice: the buckets reset between steps
            if overlap:
                value, grads = dp.value_and_grad(loss, argnums=(0, 1, 2, 3, 4))(*params, x)
            else:
                value, grads = asc.value_and_grad(loss, argnums=(0, 1, 2, 3, 4))(*params, x)
                dp.reduce_gradients(list(zip(params, grads)))
        results.append([np.asarray(g.numpy()).copy() for g in grads])
        for i, g in enumerate(grads):
            check(f"dp overlap={overlap} grad {i}", g, want[i], False)
    for i in range(len(shapes)):
        check(f"dp overlap == no overlap {i}", results[0][i], results[1][i], True)
    expect_raises("dp value_and_grad argnums", ValueError, lambda: dp.value_and_grad(loss, argnums=(0, 1)))


def t_object_p2p():
    """send_object_list / recv_object_list around a ring, with src given, by group rank and any."""
    nxt, prv = (R + 1) % N, (R - 1) % N
    mine = [{"from": R, "arr": np.arange(R + 2, dtype=np.float32)}, (R, "x" * R), asc.full(3, R, dtype="int64")]

    def same(name, got, want):
        try:
            assert got[0]["from"] == want[0]["from"], got
            np.testing.assert_array_equal(got[0]["arr"], want[0]["arr"])
            assert got[1] == want[1] and isinstance(got[2], asc.ndarray)
            np.testing.assert_array_equal(got[2].numpy(), want[2].numpy())
        except Exception as e:  # noqa: BLE001
            FAIL.append(f"{name}: {e!r}")

    want = [{"from": prv, "arr": np.arange(prv + 2, dtype=np.float32)}, (prv, "x" * prv), asc.full(3, prv, dtype="int64")]
    for how in ("src", "group_src", "any"):
        out = [None, None, None]
        if R % 2 == 0:
            dist.send_object_list(mine, dst=nxt) if how != "group_src" else dist.send_object_list(mine, group_dst=nxt)
        kw = {"src": prv} if how == "src" else ({"group_src": prv} if how == "group_src" else {})
        sender = dist.recv_object_list(out, **kw)
        if R % 2 == 1:
            dist.send_object_list(mine, dst=nxt) if how != "group_src" else dist.send_object_list(mine, group_dst=nxt)
        if sender != prv:
            FAIL.append(f"recv_object_list {how}: sender {sender} != {prv}")
        same(f"recv_object_list {how}", out, want)
    # a list of the wrong length raises after the whole message arrived: the channel stays usable
    if R % 2 == 0:
        dist.send_object_list([1, 2], dst=nxt)
    expect_raises("recv_object_list length", ValueError, lambda: dist.recv_object_list([None], src=prv))
    if R % 2 == 1:
        dist.send_object_list([1, 2], dst=nxt)
    out = [None]
    if R % 2 == 0:
        dist.send_object_list(["ok"], dst=nxt)
    dist.recv_object_list(out, src=prv)
    if R % 2 == 1:
        dist.send_object_list(["ok"], dst=nxt)
    if out != ["ok"]:
        FAIL.append(f"recv_object_list after a length error: {out}")
    expect_raises("send_object_list lambda", TypeError, lambda: dist.send_object_list([lambda: 1], dst=nxt))
    expect_raises("send_object_list no dst", ValueError, lambda: dist.send_object_list([1]))
    expect_raises("send_object_list both", ValueError, lambda: dist.send_object_list([1], dst=nxt, group_dst=nxt))
    expect_raises("send_object_list bad group_dst", ValueError, lambda: dist.send_object_list([1], group_dst=N))
    expect_raises("recv_object_list not a list", TypeError, lambda: dist.recv_object_list((None,), src=prv))


def t_stream_order():
    """async_op all_reduce is a task on the current stream: the stream's later work reads the
    reduced values without a host wait, while the collective cannot have completed yet (the
    last rank joins only after rank 0 has queued that later work and told it so)."""
    xs = [data(r, np.float64, (257,), 70) for r in range(N)]
    want = np.add.reduce(np.stack(xs), axis=0)
    s = asc.Stream()
    with s:
        # pyasc memory (a computed array): an array over NumPy's memory (asarray) is read by
        # lazy ops at their call (NumPy may write it), so it needs w.wait() first (documented)
        x = asc.asarray(xs[R]) + 0.0
        x.numpy()
        if R == N - 1:
            dist.recv(asc.zeros(1), src=0)  # rank 0 has queued its later work
        w = dist.all_reduce(x, async_op=True)
        y = x * 2 + 1  # lazy, on s: flushed behind the collective
        if R == 0:
            if w.is_completed():
                FAIL.append("stream order: the collective completed before the last rank joined")
            dist.send(asc.ones(1), dst=N - 1)
        got = y.numpy()  # waits for y's work on s, hence for the collective: no w.wait() first
    check("async all_reduce then later stream op", got, want * 2 + 1, N == 2)
    if not w.is_completed():
        FAIL.append("stream order: work not complete after the later op finished")
    w.wait()
    check("async all_reduce result", x, want, N == 2)
    # a blocking collective after async ones keeps the issue order on every rank
    a = [asc.asarray(xs[R].copy()) for _ in range(3)]
    ws = [dist.all_reduce(v, async_op=True) for v in a[:2]]
    b = asc.full(4, R, dtype="int32")
    dist.all_reduce(b, op=dist.ReduceOp.MAX)
    check("blocking after async", b, np.full(4, N - 1, np.int32), True)
    for i, wk in enumerate(ws):
        wk.wait()
        check(f"async chain {i}", a[i], want, N == 2)
    # non-contiguous and AVG through the stream task
    full = asc.asarray(np.tile(xs[R], (2, 1)))
    view = full[:, ::2]
    wk = dist.all_reduce(view, op=dist.ReduceOp.AVG, async_op=True)
    wk.wait()
    check("async AVG strided", full.numpy()[:, ::2], np.tile(want[::2] / N, (2, 1)), False)
    check("async AVG strided untouched", full.numpy()[:, 1::2], np.tile(xs[R][1::2], (2, 1)), True)
    # destroying a group waits for its async collectives still queued on a stream
    g = dist.new_group(list(range(N)))
    z = asc.asarray(xs[R]) + 0.0
    wk = dist.all_reduce(z, group=g, async_op=True)
    dist.destroy_process_group(g)
    if not wk.is_completed():
        FAIL.append("destroy_process_group(g) returned before g's async all_reduce ran")
    check("async all_reduce on a destroyed group", z, want, N == 2)
    # an invalid call raises at the call (nothing is queued)
    expect_raises("async BAND float", TypeError,
                  lambda: dist.all_reduce(asc.ones(3), op=dist.ReduceOp.BAND, async_op=True))


# ------------------------------------------------------------------ every collective, both modes

CDTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16, BF16, np.float32, np.float64, np.complex64]


def _ops_of(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return ["SUM", "MAX", "MIN"]
    if dt.kind == "c":
        return ["SUM", "PRODUCT", "AVG"]
    if dt.kind in "iu":
        return ["SUM", "PRODUCT", "MAX", "MIN"]
    return ["SUM", "PRODUCT", "MAX", "MIN", "AVG"]


def _tol_exact(dt, op):
    dt = np.dtype(dt)
    # complex PRODUCT: NumPy's multiply loop may round differently by operand order/alignment
    return dt.kind in "biu" or op in ("MAX", "MIN", None) or (
        N == 2 and (op == "SUM" or (op == "PRODUCT" and dt.kind != "c")))


def _done(w, async_op, name):
    """async_op: a Work that is complete after wait() (else None from a blocking call)."""
    if async_op:
        if not isinstance(w, dist.Work):
            FAIL.append(f"{name}: async_op returned {type(w).__name__}, not a Work")
            return
        assert w.wait() is True and w.is_completed() and w.is_success(), name
    elif w is not None:
        FAIL.append(f"{name}: blocking call returned {w!r}")


def _every_collective(async_op):
    tag = "async " if async_op else ""
    for dt in CDTYPES:
        dt = np.dtype(dt)
        sh = (3, 2)
        # broadcast from the last rank
        xs = [data(r, dt, sh, 20) for r in range(N)]
        x = asc.asarray(xs[R].copy())
        _done(dist.broadcast(x, src=N - 1, async_op=async_op), async_op, "broadcast")
        check(f"{tag}broadcast {dt}", x, xs[N - 1], True)
        for op in _ops_of(dt):
            small = op == "PRODUCT"
            xs = [data(r, dt, sh, 21, small) for r in range(N)]
            want = want_reduce(op, xs)
            # reduce to rank 1: the others keep their input
            x = asc.asarray(xs[R].copy())
            _done(dist.reduce(x, dst=1, op=getattr(dist.ReduceOp, op), async_op=async_op), async_op, "reduce")
            check(f"{tag}reduce {dt} {op}", x, want if R == 1 else xs[R], _tol_exact(dt, op))
            # reduce_scatter_tensor: chunk i of every rank's input reduced into rank i
            ins = [data(r, dt, (N * 2, 3), 22, small) for r in range(N)]
            out = asc.zeros((2, 3), dtype=dt)
            _done(dist.reduce_scatter_tensor(out, asc.asarray(ins[R]), op=getattr(dist.ReduceOp, op),
                                             async_op=async_op), async_op, "reduce_scatter_tensor")
            check(f"{tag}reduce_scatter_tensor {dt} {op}", out, want_reduce(op, [a[2 * R:2 * R + 2] for a in ins]),
                  _tol_exact(dt, op))
            if op != "SUM":
                continue
            # reduce_scatter of lists (a non-contiguous output)
            full = asc.zeros((2, 6), dtype=dt)
            _done(dist.reduce_scatter(full[:, ::2], [asc.asarray(ins[R][2 * i:2 * i + 2]) for i in range(N)],
                                      op=getattr(dist.ReduceOp, op), async_op=async_op), async_op, "reduce_scatter")
            w = np.zeros((2, 6), dt)
            w[:, ::2] = want_reduce(op, [a[2 * R:2 * R + 2] for a in ins])
            check(f"{tag}reduce_scatter strided {dt} {op}", full, w, _tol_exact(dt, op))
        # all_gather into a list (one output strided) and into a tensor
        xs = [data(r, dt, sh, 23) for r in range(N)]
        x = asc.asarray(xs[R])
        big = asc.zeros((3, 4), dtype=dt)
        outs = [asc.zeros(sh, dtype=dt) for _ in range(N - 1)] + [big[:, ::2]]
        _done(dist.all_gather(outs, x, async_op=async_op), async_op, "all_gather")
        for i in range(N):
            check(f"{tag}all_gather[{i}] {dt}", outs[i], xs[i], True)
        out = asc.zeros((N * 3, 2), dtype=dt)
        _done(dist.all_gather_into_tensor(out, x, async_op=async_op), async_op, "all_gather_into_tensor")
        check(f"{tag}all_gather_into_tensor {dt}", out, np.concatenate(xs), True)
        # gather to rank 0, scatter from the last rank
        g = [asc.zeros(sh, dtype=dt) for _ in range(N)] if R == 0 else None
        _done(dist.gather(x, g, dst=0, async_op=async_op), async_op, "gather")
        if R == 0:
            for i in range(N):
                check(f"{tag}gather[{i}] {dt}", g[i], xs[i], True)
        parts = [data(50 + i, dt, sh, 24) for i in range(N)]
        y = asc.zeros(sh, dtype=dt)
        _done(dist.scatter(y, [asc.asarray(p) for p in parts] if R == N - 1 else None, src=N - 1,
                           async_op=async_op), async_op, "scatter")
        check(f"{tag}scatter {dt}", y, parts[R], True)
        # all_to_all_single, uneven: rank r sends (r + i) % 3 rows to rank i (0 rows too)
        sizes = {r: [(r + i) % 3 for i in range(N)] for r in range(N)}
        rows = {r: data(r, dt, (sum(sizes[r]), 2), 25) for r in range(N)}
        recv_sizes = [sizes[r][R] for r in range(N)]
        out = asc.zeros((sum(recv_sizes), 2), dtype=dt)
        _done(dist.all_to_all_single(out, asc.asarray(rows[R]), recv_sizes, sizes[R], async_op=async_op),
              async_op, "all_to_all_single")
        want = np.concatenate([rows[r][sum(sizes[r][:R]):sum(sizes[r][:R]) + sizes[r][R]] for r in range(N)])
        check(f"{tag}all_to_all_single {dt}", out, want, True)
        ins = [asc.asarray(data(10 * R + i, dt, (i + 1,), 26)) for i in range(N)]
        outs = [asc.zeros((R + 1,), dtype=dt) for _ in range(N)]
        _done(dist.all_to_all(outs, ins, async_op=async_op), async_op, "all_to_all")
        for r in range(N):
            check(f"{tag}all_to_all[{r}] {dt}", outs[r], data(10 * r + R, dt, (R + 1,), 26), True)
        # point to point: a ring
        nxt, prv = (R + 1) % N, (R - 1) % N
        y = asc.zeros(sh, dtype=dt)
        if async_op:
            rw = dist.irecv(y, src=prv, tag=5)
            sw = dist.isend(asc.asarray(data(R, dt, sh, 27)), dst=nxt, tag=5)
            _done(sw, True, "isend")
            _done(rw, True, "irecv")
            assert rw.value == prv, rw.value
        else:
            if R % 2 == 0:
                dist.send(asc.asarray(data(R, dt, sh, 27)), dst=nxt, tag=5)
                dist.recv(y, src=prv, tag=5)
            else:
                dist.recv(y, src=prv, tag=5)
                dist.send(asc.asarray(data(R, dt, sh, 27)), dst=nxt, tag=5)
        check(f"{tag}ring {dt}", y, data(prv, dt, sh, 27), True)
    # 8-bit integer sums wrap as NumPy's (OpenMPI 4.1.4's op/avx saturated them from 64
    # elements blocking and always nonblocking: _engine turns that component off)
    for dt in (np.int8, np.uint8):
        xs = [np.full(200, 100 + r, dt) for r in range(N)]
        x = asc.asarray(xs[R].copy())
        w = dist.all_reduce(x, async_op=async_op)
        _done(w, async_op, "all_reduce 8-bit")
        check(f"{tag}all_reduce {np.dtype(dt)} wraps", x, np.add.reduce(np.stack(xs), axis=0, dtype=dt), True)
        ins = [np.full(N * 100, 100 + r, dt) for r in range(N)]
        out = asc.zeros(100, dtype=dt)
        _done(dist.reduce_scatter_tensor(out, asc.asarray(ins[R]), async_op=async_op), async_op, "rs 8-bit")
        check(f"{tag}reduce_scatter_tensor {np.dtype(dt)} wraps", out, np.add.reduce(np.stack(ins), axis=0, dtype=dt)[:100],
              True)
    # 4 MiB (the fingerprint all-reduce before the data); a mismatch there raises on every rank
    big = [data(r, np.float32, (1 << 20,), 28) for r in range(N)]
    x = asc.asarray(big[R].copy())
    _done(dist.all_reduce(x, op=dist.ReduceOp.MAX, async_op=async_op), async_op, "all_reduce 4 MiB")
    check(f"{tag}all_reduce 4 MiB MAX", x, np.maximum.reduce(np.stack(big), axis=0), True)
    x = asc.asarray(big[R].copy())
    _done(dist.all_reduce(x, async_op=async_op), async_op, "all_reduce 4 MiB SUM")
    check(f"{tag}all_reduce 4 MiB SUM", x, np.add.reduce(np.stack(big), axis=0), N == 2)
    if not async_op:
        bad = asc.zeros((1 << 20) + (1 if R == 0 else 0), dtype="float32")
        expect_raises("all_reduce 4 MiB count mismatch", dist.CollectiveMismatchError, lambda: dist.all_reduce(bad))
    # empty arrays
    e = asc.zeros((0, 3), dtype="float32")
    _done(dist.broadcast(e, src=0, async_op=async_op), async_op, "broadcast empty")
    oute = asc.zeros((0, 3), dtype="float32")
    _done(dist.all_gather_into_tensor(oute, e, async_op=async_op), async_op, "all_gather_into_tensor empty")
    check(f"{tag}empty", oute, np.zeros((0, 3), np.float32), True)
    _done(dist.barrier(async_op=async_op), async_op, "barrier")


def t_every_collective():
    _every_collective(False)


def t_every_collective_async():
    _every_collective(True)


def _late_join(name, start, later, want, exact=True):
    """``start()`` issues an async collective on a stream whose completion needs the last rank;
    the last rank joins only after rank 0 has queued ``later(out)`` (lazy work on the stream
    reading the output), checked that unrelated work on another stream finishes meanwhile (no
    host sync of it), and that ``wait(timeout)`` raises DistTimeoutError naming the operation."""
    s = asc.Stream()
    other = asc.Stream()
    with s:
        if R == N - 1:
            dist.recv(asc.zeros(1), src=0)  # rank 0 has queued its later work
        w, out = start()
        # the call's temporary input is kept alive by the task: new arrays (host copies into
        # pool memory) must not land in its memory before the collective ran
        junk = [asc.array(np.full((5, 4), 9.0, np.float32)) for _ in range(4)]
        y = later(out)  # lazy, on s: flushed behind the collective
        if R == 0:
            with other:  # unrelated work completes while the collective waits
                u = (asc.arange(1000, dtype="float64") * 2).sum()
                uv = float(u.numpy())
            if uv != 999000.0:
                FAIL.append(f"{name}: unrelated work gave {uv}")
            if w.is_completed():
                FAIL.append(f"{name}: the collective completed before the last rank joined")
            msg = expect_raises(f"{name} wait(timeout)", dist.DistTimeoutError, lambda: w.wait(timeout=0.05))
            if msg is not None and f"[{name}]" not in msg:
                FAIL.append(f"{name}: wait(timeout) error does not name it: {msg}")
            dist.send(asc.ones(1), dst=N - 1)
        got = y.numpy()  # waits for y's work on s, hence for the collective: no w.wait() first
    del junk
    check(f"{name} then later stream op", got, want, exact)
    if not w.is_completed():
        FAIL.append(f"{name}: work not complete after the later op finished")
    w.wait()


def t_stream_order_all():
    """Every async collective is a task + event on the current stream (see _late_join)."""
    xs = [data(r, np.float32, (5, 4), 71) for r in range(N)]

    def fresh():
        x = asc.asarray(xs[R]) + 0.0  # pyasc memory, computed
        x.numpy()
        return x

    def bc():
        x = fresh()
        return dist.broadcast(x, src=N - 1, async_op=True), x
    _late_join("broadcast", bc, lambda o: o * 2 + 1, xs[N - 1] * 2 + 1)

    def rd():
        x = fresh()
        return dist.reduce(x, dst=0, async_op=True), x
    _late_join("reduce", rd, lambda o: o + 1, (np.add.reduce(np.stack(xs), axis=0) if R == 0 else xs[R]) + 1,
               N == 2 or R != 0)

    def ag():
        o = asc.zeros((N * 5, 4), dtype="float32")
        return dist.all_gather_into_tensor(o, fresh(), async_op=True), o
    _late_join("all_gather_into_tensor", ag, lambda o: o - 1, np.concatenate(xs) - 1)

    def agl():
        outs = [asc.zeros((5, 4), dtype="float32") for _ in range(N)]
        return dist.all_gather(outs, fresh(), async_op=True), outs[N - 1]
    _late_join("all_gather", agl, lambda o: o * 3, xs[N - 1] * 3)

    def rs():
        o = asc.zeros((1, 4), dtype="float32")
        inp = asc.asarray(np.concatenate([xs[R][:N]])) + 0.0
        return dist.reduce_scatter_tensor(o, inp, async_op=True), o
    _late_join("reduce_scatter_tensor", rs, lambda o: o + 0.5,
               np.add.reduce(np.stack([a[:N] for a in xs]), axis=0)[R:R + 1] + 0.5, N == 2)

    def a2a():
        o = asc.zeros((N, 4), dtype="float32")
        inp = asc.asarray(xs[R][:N]) + 0.0
        return dist.all_to_all_single(o, inp, async_op=True), o
    _late_join("all_to_all_single", a2a, lambda o: o * 2, np.stack([xs[r][R] for r in range(N)]) * 2)

    def ga():
        g = [asc.zeros((5, 4), dtype="float32") for _ in range(N)] if R == 0 else None
        x = fresh()
        return dist.gather(x, g, dst=0, async_op=True), (g[N - 1] if R == 0 else x)
    _late_join("gather", ga, lambda o: o + 2, xs[N - 1 if R == 0 else R] + 2)

    def sc():
        y = asc.zeros((5, 4), dtype="float32")
        lst = [asc.asarray(xs[i]) for i in range(N)] if R == N - 1 else None
        return dist.scatter(y, lst, src=N - 1, async_op=True), y
    _late_join("scatter", sc, lambda o: o * 4, xs[R] * 4)

    sends = []

    def ring():
        # a ring: rank 0's receive needs the last rank, which joins late
        y = asc.zeros((5, 4), dtype="float32")
        w = dist.irecv(y, src=(R - 1) % N, tag=9)
        sends.append(dist.isend(fresh(), dst=(R + 1) % N, tag=9))
        return w, y
    _late_join("irecv", ring, lambda o: o + 1, xs[(R - 1) % N] + 1)
    for w in sends:
        w.wait()
    dist.barrier()


def t_async_errors():
    """Errors from inside an async operation surface at wait(), naming it, on every rank."""
    # mismatched shapes: CollectiveMismatchError from the stream task on every rank
    x = asc.zeros(3 if R == 0 else 4, dtype="float32")
    w = dist.broadcast(x, src=0, async_op=True)
    msg = expect_raises("async broadcast mismatch", dist.CollectiveMismatchError, w.wait)
    if msg is not None and "[broadcast]" not in msg:
        FAIL.append(f"async broadcast mismatch: the error does not name it: {msg}")
    if not w.is_completed() or w.is_success() or not isinstance(w.exception(), dist.CollectiveMismatchError):
        FAIL.append("async broadcast mismatch: Work state after the error")
    # wrong split sizes in an async all_to_all_single
    sizes = [1] * N
    recv = [1] * N
    if R == 0:
        recv = [2] + [1] * (N - 1)
    out = asc.zeros((sum(recv), 2), dtype="float32")
    w = dist.all_to_all_single(out, asc.ones((N, 2), dtype="float32"), recv, sizes, async_op=True)
    msg = expect_raises("async all_to_all_single splits", dist.CollectiveMismatchError, w.wait)
    if msg is not None and "[all_to_all_single]" not in msg:
        FAIL.append(f"async all_to_all_single: the error does not name it: {msg}")
    # a message larger than the irecv buffer, then a shorter one: ValueError at wait(), naming irecv
    for n_sent, tag, text in ((3, 11, "larger than"), (1, 12, "received 1 elements")):
        if R == 0:
            w = dist.irecv(asc.zeros(2), src=1, tag=tag)
            msg = expect_raises(f"async irecv {n_sent} into 2", ValueError, w.wait)
            if msg is not None and ("[irecv]" not in msg or text not in msg):
                FAIL.append(f"async irecv {n_sent} into 2: the error does not name it: {msg}")
        elif R == 1:
            dist.send(asc.ones(n_sent), dst=0, tag=tag)
        dist.barrier()
    # invalid calls raise at the call (nothing queued)
    expect_raises("async reduce BAND float", TypeError,
                  lambda: dist.reduce(asc.ones(3), dst=0, op=dist.ReduceOp.BAND, async_op=True))
    expect_raises("async gather bad dst", ValueError, lambda: dist.gather(asc.ones(3), None, dst=N, async_op=True))


# ------------------------------------------------------------------ the C paths of the other collectives

C_DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float32, np.float64]


def _c_path_cases(tag, as_numpy=False):
    """broadcast / reduce / all_gather_into_tensor / reduce_scatter_tensor through the C path
    (pyasc.distributed._native.coll), small (the check inside one all-reduce on 2 ranks) and
    large (> 16 KiB: the fingerprint all-reduce, then the MPI collective in place)."""
    wrap = (lambda a: a) if as_numpy else asc.asarray
    for dt in C_DTYPES:
        dt = np.dtype(dt)
        for rows in (3, 9000):  # 3 x 4 elements, 9000 x 4 (>= 72 KiB for 2-byte types)
            sh = (rows, 4)
            xs = [data(r, dt, sh, 80) for r in range(N)]
            x = wrap(xs[R].copy())
            dist.broadcast(x, src=N - 1)
            check(f"{tag} C broadcast {dt} {sh}", x, xs[N - 1], True)
            ops = ["SUM", "MAX", "MIN"] if dt.kind == "b" else ["SUM", "PRODUCT", "MAX", "MIN"]
            if dt.kind == "f":
                ops.append("AVG")
            if dt.kind == "b":  # bool reductions: the Python path (no C datatype); checked elsewhere
                ops = []
            for op in ops:
                ys = [data(r, dt, sh, 81, small=op == "PRODUCT") for r in range(N)]
                y = wrap(ys[R].copy())
                dist.reduce(y, dst=0, op=getattr(dist.ReduceOp, op))
                check(f"{tag} C reduce {dt} {sh} {op}", y, want_reduce(op, ys) if R == 0 else ys[R],
                      _tol_exact(dt, op))
                ins = [data(r, dt, (N * rows, 4), 82, small=op == "PRODUCT") for r in range(N)]
                out = wrap(np.zeros(sh, dt))
                dist.reduce_scatter_tensor(out, wrap(ins[R]), op=getattr(dist.ReduceOp, op))
                check(f"{tag} C reduce_scatter_tensor {dt} {sh} {op}", out,
                      want_reduce(op, [a[R * rows:(R + 1) * rows] for a in ins]), _tol_exact(dt, op))
            if dt.kind in "iu":  # the bitwise ops (2 ranks, small: reduced in C after the XOR exchange)
                for op, fn in (("BAND", np.bitwise_and), ("BOR", np.bitwise_or), ("BXOR", np.bitwise_xor)):
                    ins = [data(r, dt, (N * rows, 4), 91) for r in range(N)]
                    out = wrap(np.zeros(sh, dt))
                    dist.reduce_scatter_tensor(out, wrap(ins[R]), op=getattr(dist.ReduceOp, op))
                    check(f"{tag} C reduce_scatter_tensor {dt} {sh} {op}", out,
                          fn.reduce([a[R * rows:(R + 1) * rows] for a in ins]), True)
            out = wrap(np.zeros((N * rows, 4), dt))
            dist.all_gather_into_tensor(out, wrap(xs[R]))
            check(f"{tag} C all_gather_into_tensor {dt} {sh}", out, np.concatenate(xs), True)
        # odd byte counts (not a multiple of the 8-byte exchange words) and one element
        for rows in (1, 7):
            xs = [data(r, np.int8, (rows,), 92) for r in range(N)]
            out = wrap(np.zeros(N * rows, np.int8))
            dist.all_gather_into_tensor(out, wrap(xs[R]))
            check(f"{tag} C all_gather_into_tensor int8 ({rows},)", out, np.concatenate(xs), True)
            ins = [data(r, np.uint16, (N * rows,), 93) for r in range(N)]
            out = wrap(np.zeros(rows, np.uint16))
            dist.reduce_scatter_tensor(out, wrap(ins[R]))
            check(f"{tag} C reduce_scatter_tensor uint16 ({rows},)", out,
                  np.add.reduce([a[R * rows:(R + 1) * rows] for a in ins], dtype=np.uint16), True)


def t_c_paths():
    from pyasc.distributed import _engine
    if _engine.NATIVE is None:
        FAIL.append("the C module pyasc.distributed._native is not built")
        return
    world = dist.GroupMember.WORLD
    dist.barrier()  # drains async collectives an earlier test left queued (the C path waits for none)
    # the C path takes these calls itself (None: done; NotImplemented would mean the Python path)
    x = asc.full(8, R, dtype="float32")
    if _engine.NATIVE.coll_entry(1, x, None, 0, None, world) is not None:
        FAIL.append("broadcast of a float32 pyasc array did not take the C path")
    check("coll_entry broadcast", x, np.zeros(8, np.float32), True)
    out = asc.zeros((N, 8), dtype="float32")
    if _engine.NATIVE.coll_entry(3, out, x, None, None, world) is not None:
        FAIL.append("all_gather_into_tensor did not take the C path")
    # bfloat16 has no buffer format: the Python path, on every rank alike; float16 and complex
    # go through C (bytes for broadcast; the module's float16 MPI ops, MPI's complex SUM)
    if _engine.NATIVE.coll_entry(1, asc.ones(3, dtype="bfloat16"), None, 0, None, world) is not NotImplemented:
        FAIL.append("broadcast bfloat16 should be the Python path's")
    for dtype in ("float16", "complex64", "complex128"):
        x = asc.full(3, R + 1, dtype=dtype)
        if _engine.NATIVE.coll_entry(1, x, None, 0, None, world) is not None:
            FAIL.append(f"broadcast {dtype} did not take the C path")
        check(f"coll_entry broadcast {dtype}", x, np.ones(3, dtype), True)
        for op, code in (("SUM", 0), ("AVG", 1)) + ((("PRODUCT", 2),) if dtype == "float16" else ()):
            xs = [data(r, dtype, (5,), 94, small=op == "PRODUCT") for r in range(N)]
            x = asc.asarray(xs[R].copy())
            if _engine.NATIVE.entry(0, x, None, None, getattr(dist.ReduceOp, op), None) is not None:
                FAIL.append(f"all_reduce {dtype} {op} did not take the C path")
            check(f"C all_reduce {dtype} {op}", x, want_reduce(op, xs), _tol_exact(dtype, op))
    # float16 rounding as NumPy's float16 loops at the edges: subnormals, overflow to inf, ties, NaN
    edge = np.array([6e-8, -6e-8, 3e-5, 65504, 60000, 1.0009765625, 0.1, -2.5, np.inf, np.nan, 0.0, -0.0],
                    np.float16)
    xs = [edge if r % 2 == 0 else edge[::-1].copy() for r in range(N)]
    x = asc.asarray(xs[R].copy())
    dist.all_reduce(x)
    want = xs[0]
    for r in range(1, N):
        want = want + xs[r]  # NumPy's float16 add, in MPI's order for 2 ranks
    check("C all_reduce float16 edge values", x, want, N == 2)
    x = asc.asarray(xs[R].copy())
    dist.all_reduce(x, op=dist.ReduceOp.PRODUCT)
    want = xs[0]
    for r in range(1, N):
        want = want * xs[r]
    check("C all_reduce float16 PRODUCT edge values", x, want, N == 2)
    _c_path_cases("pyasc")
    _c_path_cases("numpy", as_numpy=True)
    for level in (_engine.OFF, _engine.DETAIL):
        _engine.set_mode(check=level)
        try:
            for rows in (2, 5000):
                xs = [data(r, np.float64, (rows, 2), 83) for r in range(N)]
                x = asc.asarray(xs[R].copy())
                dist.broadcast(x, src=0)
                check(f"C broadcast level {level} {rows}", x, xs[0], True)
                out = asc.zeros((N * rows, 2), dtype="float64")
                dist.all_gather_into_tensor(out, asc.asarray(xs[R]))
                check(f"C all_gather level {level} {rows}", out, np.concatenate(xs), True)
                y = asc.asarray(xs[R].copy())
                dist.reduce(y, dst=N - 1, op=dist.ReduceOp.AVG)
                check(f"C reduce AVG level {level} {rows}", y,
                      np.mean(np.stack(xs), axis=0) if R == N - 1 else xs[R], False)
        finally:
            _engine.reload_settings()
    # a read-only array on broadcast's root and reduce's non-roots, inputs of the gathers
    ro = data(R, np.int32, (6,), 84)
    ro.flags.writeable = False
    if R == 0:
        dist.broadcast(asc.asarray(ro), src=0)
    else:
        y = asc.zeros(6, dtype="int32")
        dist.broadcast(y, src=0)
        check("C broadcast from a read-only root", y, data(0, np.int32, (6,), 84), True)
    # strided arrays: staged, then the same C call (same check words as the other ranks')
    for rows in (3, 6000):
        base = [data(r, np.float32, (rows, 6), 85) for r in range(N)]
        full = asc.asarray(base[R].copy())
        dist.broadcast(full[:, ::2], src=N - 1)
        want = base[R].copy()
        want[:, ::2] = base[N - 1][:, ::2]
        check(f"C broadcast strided {rows}", full, want, True)
        out = asc.zeros((N * rows, 6), dtype="float32")
        dist.all_gather_into_tensor(out[:, ::2], asc.asarray(base[R])[:, 1::2])
        w = np.zeros((N * rows, 6), np.float32)
        w[:, ::2] = np.concatenate([b[:, 1::2] for b in base])
        check(f"C all_gather_into_tensor strided {rows}", out, w, True)
    # in-place all_gather_into_tensor: the input is this rank's slot of the output
    for rows in (2, 5000):
        xs = [data(r, np.int64, (rows, 3), 86) for r in range(N)]
        out = asc.zeros((N * rows, 3), dtype="int64")
        out[R * rows:(R + 1) * rows] = asc.asarray(xs[R])
        dist.all_gather_into_tensor(out, out[R * rows:(R + 1) * rows])
        check(f"C all_gather_into_tensor in place {rows}", out, np.concatenate(xs), True)
    # subgroups: the root's group rank through the group's index (a group whose ranks are not 0..n-1)
    for members in (list(range(1, N)), [0, N - 1]):
        g = dist.new_group(members)
        if g is not dist.GroupMember.NON_GROUP_MEMBER:
            src = members[-1]
            xs = {r: data(r, np.float32, (5,), 87) for r in members}
            x = asc.asarray(xs[R].copy())
            dist.broadcast(x, src=src, group=g)
            check(f"C broadcast group {members}", x, xs[src], True)
            y = asc.asarray(xs[R].copy())
            dist.reduce(y, dst=src, op=dist.ReduceOp.MAX, group=g)
            check(f"C reduce group {members}", y,
                  np.maximum.reduce([xs[r] for r in members]) if R == src else xs[R], True)
            expect_raises(f"broadcast src outside group {members}", ValueError,
                          lambda: dist.broadcast(asc.ones(2), src=[r for r in range(N) if r not in members][0]
                                                 if len(members) < N else N, group=g))
            dist.destroy_process_group(g)
    # async_op on every rank: the stream task takes the same C call (small ones blocking, with the
    # check in the message; larger ones nonblocking, waited for with sleeps). MPI does not match
    # a nonblocking collective with a blocking one: every rank passes the same async_op.
    for rows in (2, 5000):
        xs = [data(r, np.float32, (rows, 4), 88) for r in range(N)]
        x = asc.asarray(xs[R].copy())
        dist.broadcast(x, src=1, async_op=True).wait()
        check(f"async C broadcast {rows}", x, xs[1], True)
        y = asc.asarray(xs[R].copy())
        dist.reduce(y, dst=0, op=dist.ReduceOp.AVG, async_op=True).wait()
        check(f"async C reduce AVG {rows}", y, np.mean(np.stack(xs), axis=0) if R == 0 else xs[R], False)
        out = asc.zeros((N * rows, 4), dtype="float32")
        dist.all_gather_into_tensor(out, asc.asarray(xs[R]), async_op=True).wait()
        check(f"async C all_gather_into_tensor {rows}", out, np.concatenate(xs), True)
        ins = [data(r, np.float32, (N * rows, 4), 89) for r in range(N)]
        out = asc.zeros((rows, 4), dtype="float32")
        dist.reduce_scatter_tensor(out, asc.asarray(ins[R]), op=dist.ReduceOp.AVG, async_op=True).wait()
        check(f"async C reduce_scatter_tensor AVG {rows}", out,
              (np.add.reduce(np.stack([a[R * rows:(R + 1) * rows] for a in ins]), axis=0) / N).astype(np.float32),
              False)
    # the polled mode (nonblocking MPI, DistTimeoutError in the caller) through the C path
    _engine.set_mode(blocking=False)
    try:
        for rows in (2, 5000):
            xs = [data(r, np.int32, (rows, 2), 90) for r in range(N)]
            for async_op in (False, True):
                x = asc.asarray(xs[R].copy())
                w = dist.broadcast(x, src=0, async_op=async_op)
                if async_op:
                    w.wait()
                check(f"polled broadcast {rows} async={async_op}", x, xs[0], True)
            out = asc.zeros((rows, 2), dtype="int32")
            dist.reduce_scatter_tensor(out, asc.asarray(np.concatenate([xs[R]] * N)), op=dist.ReduceOp.SUM)
            check(f"polled reduce_scatter_tensor {rows}", out, np.add.reduce(np.stack(xs), axis=0, dtype=np.int32),
                  True)
    finally:
        _engine.reload_settings()
    # mismatches on every rank, small and large, then the group still works
    for rows in (3, 3000, 20000):  # in-message check, 12-24 KiB (either side of 16 KiB), fingerprint
        n = rows if R < N - 1 else rows + 1
        expect_raises(f"C broadcast count mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.broadcast(asc.ones(n, dtype="float32"), src=0))
        src = 0 if R < N - 1 else 1
        msg = expect_raises(f"C broadcast src mismatch {rows}", dist.CollectiveMismatchError,
                            lambda: dist.broadcast(asc.ones(rows, dtype="float32"), src=src))
        if msg is not None and "src=1" not in msg:
            FAIL.append(f"broadcast src mismatch message does not name the roots: {msg}")
        dt = "float32" if R else "int32"
        expect_raises(f"C reduce dtype mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.reduce(asc.ones(rows, dtype=dt), dst=0))
        op = dist.ReduceOp.SUM if R else dist.ReduceOp.PRODUCT
        expect_raises(f"C reduce_scatter_tensor op mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.reduce_scatter_tensor(asc.zeros(rows, dtype="float64"),
                                                         asc.ones(N * rows, dtype="float64"), op=op))
        if R == 0:
            expect_raises(f"C broadcast vs all_reduce {rows}", dist.CollectiveMismatchError,
                          lambda: dist.broadcast(asc.ones(rows, dtype="int64"), src=0))
        else:
            expect_raises(f"C all_reduce vs broadcast {rows}", dist.CollectiveMismatchError,
                          lambda: dist.all_reduce(asc.ones(rows, dtype="int64")))
        # the gathers' message (2 ranks, small: the XOR form of the check) against other collectives
        # of the same byte size and against each other: every rank raises
        if R == 0:
            expect_raises(f"C all_gather_into_tensor vs all_reduce {rows}", dist.CollectiveMismatchError,
                          lambda: dist.all_gather_into_tensor(asc.zeros(N * rows, dtype="int64"),
                                                              asc.ones(rows, dtype="int64")))
        else:
            expect_raises(f"C all_reduce vs all_gather_into_tensor {rows}", dist.CollectiveMismatchError,
                          lambda: dist.all_reduce(asc.ones(rows, dtype="int64")))
        if R == 0:
            expect_raises(f"C reduce_scatter_tensor vs broadcast {rows}", dist.CollectiveMismatchError,
                          lambda: dist.reduce_scatter_tensor(asc.zeros(rows, dtype="float64"),
                                                             asc.ones(N * rows, dtype="float64")))
        else:
            expect_raises(f"C broadcast vs reduce_scatter_tensor {rows}", dist.CollectiveMismatchError,
                          lambda: dist.broadcast(asc.ones(rows, dtype="float64"), src=0))
        if R == 0:
            expect_raises(f"C all_gather_into_tensor vs reduce_scatter_tensor {rows}",
                          dist.CollectiveMismatchError,
                          lambda: dist.all_gather_into_tensor(asc.zeros(N * rows, dtype="int32"),
                                                              asc.ones(rows, dtype="int32")))
        else:
            expect_raises(f"C reduce_scatter_tensor vs all_gather_into_tensor {rows}",
                          dist.CollectiveMismatchError,
                          lambda: dist.reduce_scatter_tensor(asc.zeros(rows, dtype="int32"),
                                                             asc.ones(N * rows, dtype="int32")))
        n = rows if R < N - 1 else rows + 1
        expect_raises(f"C all_gather_into_tensor count mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.all_gather_into_tensor(asc.zeros(N * n, dtype="float32"),
                                                          asc.ones(n, dtype="float32")))
        expect_raises(f"C reduce_scatter_tensor count mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.reduce_scatter_tensor(asc.zeros(n, dtype="float32"),
                                                         asc.ones(N * n, dtype="float32")))
        # gather / scatter (C path: the XOR form on 2 ranks when small, else the fingerprint)
        n = rows if R < N - 1 else rows + 1
        expect_raises(f"C gather count mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.gather(asc.ones(n, dtype="float32"),
                                          [asc.zeros(n, dtype="float32") for _ in range(N)] if R == 0 else None, dst=0))
        src = 0 if R < N - 1 else 1
        expect_raises(f"C scatter src mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.scatter(asc.zeros(rows, dtype="int16"),
                                           [asc.ones(rows, dtype="int16") for _ in range(N)] if R == src else None,
                                           src=src))
        if R == 0:
            expect_raises(f"C gather vs all_reduce {rows}", dist.CollectiveMismatchError,
                          lambda: dist.gather(asc.ones(rows, dtype="int64"),
                                              [asc.zeros(rows, dtype="int64") for _ in range(N)], dst=0))
        else:
            expect_raises(f"C all_reduce vs gather {rows}", dist.CollectiveMismatchError,
                          lambda: dist.all_reduce(asc.ones(rows, dtype="int64")))
        if R == 0:
            expect_raises(f"C scatter vs gather {rows}", dist.CollectiveMismatchError,
                          lambda: dist.scatter(asc.zeros(rows, dtype="float64"),
                                               [asc.ones(rows, dtype="float64") for _ in range(N)], src=0))
        else:
            expect_raises(f"C gather vs scatter {rows}", dist.CollectiveMismatchError,
                          lambda: dist.gather(asc.ones(rows, dtype="float64"), None, dst=0))
        # the list forms (all_gather, reduce_scatter: the tensor forms' C path on staged buffers)
        n = rows if R < N - 1 else rows + 1
        expect_raises(f"C all_gather (list) count mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.all_gather([asc.zeros(n, dtype="int32") for _ in range(N)],
                                              asc.ones(n, dtype="int32")))
        op = dist.ReduceOp.SUM if R else dist.ReduceOp.MAX
        expect_raises(f"C reduce_scatter (list) op mismatch {rows}", dist.CollectiveMismatchError,
                      lambda: dist.reduce_scatter(asc.zeros(rows, dtype="int64"),
                                                  [asc.ones(rows, dtype="int64") for _ in range(N)], op=op))
        xs = [data(r, np.float32, (rows,), 95) for r in range(N)]
        lst = [asc.zeros(rows, dtype="float32") for _ in range(N)]
        dist.all_gather(lst, asc.asarray(xs[R]))
        for i in range(N):
            check(f"C all_gather (list) after mismatches {rows} [{i}]", lst[i], xs[i], True)
        y = asc.zeros(rows, dtype="float32")
        dist.reduce_scatter(y, [asc.asarray(xs[R] * (i + 1)) for i in range(N)], op=dist.ReduceOp.AVG)
        check(f"C reduce_scatter (list) AVG after mismatches {rows}", y,
              np.mean(np.stack([x * np.float32(R + 1) for x in xs]).astype(np.float64), axis=0).astype(np.float32),
              False)
        outs = [asc.zeros(rows, dtype="float32") for _ in range(N)] if R == N - 1 else None
        dist.gather(asc.asarray(xs[R]), outs, dst=N - 1)
        if R == N - 1:
            for i in range(N):
                check(f"C gather after mismatches {rows} [{i}]", outs[i], xs[i], True)
        y = asc.zeros(rows, dtype="float32")
        dist.scatter(y, [asc.asarray(v) for v in xs] if R == 0 else None, src=0)
        check(f"C scatter after mismatches {rows}", y, xs[R], True)
        x = asc.full(rows, R, dtype="int64")
        dist.broadcast(x, src=N - 1)
        check(f"C broadcast after mismatches {rows}", x, np.full(rows, N - 1, np.int64), True)
        out = asc.zeros(N * rows, dtype="int64")
        dist.all_gather_into_tensor(out, asc.full(rows, R, dtype="int64"))
        check(f"C all_gather_into_tensor after mismatches {rows}", out, np.repeat(np.arange(N), rows), True)
    # counts on both sides of 4 MiB (an earlier version waited for the check of >= 4 MiB calls
    # with a nonblocking all-reduce, which OpenMPI does not match with a peer's blocking one: hang)
    n = (3 << 18) if R < N - 1 else (5 << 18)
    expect_raises("all_reduce 3 MiB vs 5 MiB", dist.CollectiveMismatchError,
                  lambda: dist.all_reduce(asc.ones(n, dtype="float32")))
    expect_raises("broadcast 3 MiB vs 5 MiB", dist.CollectiveMismatchError,
                  lambda: dist.broadcast(asc.ones(n, dtype="float32"), src=0))
    x = asc.ones(5 << 18, dtype="float32")
    dist.all_reduce(x)
    check("all_reduce 5 MiB after mismatches", x, np.full(5 << 18, N, np.float32), True)


def t_c_bf16():
    """bfloat16 all_reduce in C: SUM/AVG/PRODUCT as ml_dtypes' loops round (bit-exact with NumPy
    on 2 ranks), blocking and async_op, and a bfloat16 call never agrees with a uint16 one."""
    from pyasc.distributed import _engine
    if _engine.NATIVE is None:
        FAIL.append("the C module pyasc.distributed._native is not built")
        return
    world = dist.GroupMember.WORLD
    dist.barrier()

    def bits(name, got, want):  # bit-exact on 2 ranks (NaN's sign and payload, signed zeros too)
        g = np.asarray(got.numpy() if isinstance(got, asc.ndarray) else got)
        if N == 2 and not np.array_equal(g.view(np.uint16), np.asarray(want).view(np.uint16)):
            FAIL.append(f"{name}: bits {g.view(np.uint16)[:8]} want {np.asarray(want).view(np.uint16)[:8]}")

    # the edges of ml_dtypes' float32 -> bfloat16 rounding: subnormals, the largest finite value
    # (overflow to inf), ties to even, values whose sum needs rounding, inf, NaN, signed zeros
    edge = np.array([1e-40, -1e-40, 9.2e-41, 3.3895e38, 3.0e38, 1.0078125, 1.00390625, 0.1, -2.5, 255.0, 257.0,
                     np.inf, np.nan, 0.0, -0.0, 1e-3], np.float32).astype(BF16)
    xs = [edge if r % 2 == 0 else edge[::-1].copy() for r in range(N)]
    for op, fn in (("SUM", np.add), ("PRODUCT", np.multiply), ("AVG", np.add)):
        want = xs[0]
        for r in range(1, N):
            want = fn(want, xs[r])  # NumPy's (ml_dtypes') bfloat16 loop, in MPI's order for 2 ranks
        if op == "AVG":
            want = want / N
        code = {"SUM": 0, "AVG": 1, "PRODUCT": 2}[op]
        h = xs[R].copy()
        r = _engine.NATIVE.allreduce(h.view(np.uint16), world.handle, code, world._size, _engine.CHECK,
                                     world.timeout, world, 0, True)
        if r is not None:
            FAIL.append(f"bfloat16 {op}: the C call returned {r!r}")
        check(f"C all_reduce bfloat16 {op} edge values (direct)", h, want, N == 2)
        bits(f"C all_reduce bfloat16 {op} edge values (direct)", h, want)
        for async_op in (False, True):
            x = asc.asarray(xs[R].copy())
            w = dist.all_reduce(x, op=getattr(dist.ReduceOp, op), async_op=async_op)
            if async_op:
                w.wait()
            check(f"all_reduce bfloat16 {op} edge values async={async_op}", x, want, N == 2)
            bits(f"all_reduce bfloat16 {op} edge values async={async_op}", x, want)
    # sizes on both sides of the in-message limit, random values; strided (staged) array
    for n in (0, 1, 3, 5000, 70000):
        ys = [data(r, BF16, (n,), 61 + n) for r in range(N)]
        want = ys[0]
        for r in range(1, N):
            want = want + ys[r]
        x = asc.asarray(ys[R].copy())
        dist.all_reduce(x)
        check(f"all_reduce bfloat16 SUM n={n}", x, want, N == 2)
        bits(f"all_reduce bfloat16 SUM n={n}", x, want)
    big = np.zeros(20, BF16)
    big[::2] = xs[R][:10]
    x = asc.asarray(big)[::2]
    dist.all_reduce(x)
    want = xs[0][:10]
    for r in range(1, N):
        want = want + xs[r][:10]
    check("all_reduce bfloat16 strided view", x, want, N == 2)
    # MAX in C with ml_dtypes' NaN rule (the C module's user op: None, done there)
    h = xs[R].copy()
    if _engine.NATIVE.allreduce(h.view(np.uint16), world.handle, 4, world._size, _engine.CHECK, world.timeout,
                                world, 0, True) is not None:
        FAIL.append("bfloat16 MAX should be the C path's")
    x = asc.asarray(xs[R].copy())
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    want = xs[0]
    for r in range(1, N):
        want = np.maximum(want, xs[r])
    check("all_reduce bfloat16 MAX", x, want, True)
    # bfloat16 on one rank, uint16 of the same count on the others: both raise
    if N > 1:
        x = asc.ones(6, dtype="bfloat16") if R == 0 else asc.ones(6, dtype="uint16")
        expect_raises("all_reduce bfloat16 vs uint16", dist.CollectiveMismatchError, lambda: dist.all_reduce(x))
    x = asc.ones(7, dtype="bfloat16")
    dist.all_reduce(x)
    check("all_reduce bfloat16 after the mismatch", x, np.full(7, N, BF16), True)


def t_c_alltoall_barrier():
    """all_to_all_single / all_to_all / barrier in C: the C call takes them (None), ranks mixing
    the default (equal) split form with explicit lists agree, bfloat16 and strided arrays, 0-row
    pieces, the split and dtype mismatches raise on every rank, and the check OFF."""
    from pyasc.distributed import _engine
    if _engine.NATIVE is None:
        FAIL.append("the C module pyasc.distributed._native is not built")
        return
    world = dist.GroupMember.WORLD
    dist.barrier()
    if _engine.NATIVE.barrier(world.handle, float(world.timeout), world) is not None:
        FAIL.append("the C barrier did not return None")
    send = np.arange(2 * N, dtype=np.int64) + 100 * R
    recv = np.zeros(2 * N, np.int64)
    r = _engine.NATIVE.alltoall(7, send, recv, [2] * N, [2] * N, world.handle, N, R, _engine.CHECK,
                                float(world.timeout), (world, 1))
    if r is not None:
        FAIL.append(f"all_to_all_single did not take the C path: {r!r}")
    check("C alltoall direct", recv, np.concatenate([np.arange(2 * R, 2 * R + 2) + 100 * r for r in range(N)]), True)
    for dt in (np.float32, BF16, np.float16, np.complex128, np.bool_, np.int8):
        xs = {r: data(r, dt, (2 * N, 3), 71) for r in range(N)}
        want = np.concatenate([xs[r][2 * R:2 * R + 2] for r in range(N)])
        # even ranks the default split form, odd ranks the same splits as lists (legal: torch)
        for form in ("mixed", "lists"):
            out = asc.zeros((2 * N, 3), dtype=np.dtype(dt).name if dt is not BF16 else "bfloat16")
            lists = form == "lists" or R % 2 == 1
            sp = [2] * N if lists else None
            dist.all_to_all_single(out, asc.asarray(xs[R]), sp, sp)
            check(f"C all_to_all_single {np.dtype(dt)} {form}", out, want, True)
    # no mpi4py Alltoallv/Barrier of the Python path in the blocking calls (the C path took them)
    seen, real_call = [], _engine.call
    _engine.call = lambda comm, name, *a, **k: (seen.append(name), real_call(comm, name, *a, **k))[1]
    try:
        dist.all_to_all_single(asc.zeros(N, dtype="int64"), asc.zeros(N, dtype="int64"), [1] * N, None)
        dist.all_to_all([asc.zeros(1) for _ in range(N)], [asc.ones(1) for _ in range(N)])
        dist.barrier()
    finally:
        _engine.call = real_call
    if seen:
        FAIL.append(f"blocking all_to_all(_single)/barrier ran the Python path's MPI calls {seen}")
    # a strided input, 0-row pieces (nothing to itself)
    sizes = {r: [0 if i == r else (r + i) % 3 + 1 for i in range(N)] for r in range(N)}
    rows = {r: data(r, np.float64, (2 * sum(sizes[r]), 2), 72) for r in range(N)}
    recv_sizes = [sizes[r][R] for r in range(N)]
    out = asc.zeros((sum(recv_sizes), 2), dtype="float64")
    dist.all_to_all_single(out, asc.asarray(rows[R])[::2], recv_sizes, sizes[R])
    want = np.concatenate([rows[r][::2][sum(sizes[r][:R]):sum(sizes[r][:R]) + sizes[r][R]] for r in range(N)])
    check("C all_to_all_single strided, 0-row pieces", out, want, True)
    # all_to_all of lists, bfloat16
    ins = [asc.asarray(data(10 * R + i, BF16, (i + 2,), 73)) for i in range(N)]
    outs = [asc.zeros((R + 2,), dtype="bfloat16") for _ in range(N)]
    dist.all_to_all(outs, ins)
    for r in range(N):
        check(f"C all_to_all bfloat16[{r}]", outs[r], data(10 * r + R, BF16, (R + 2,), 73), True)
    if N > 1:
        # the last rank expects one row more from rank 0 than rank 0 sends: every rank raises,
        # naming the last rank
        rs = [2] * N
        if R == N - 1:
            rs[0] = 3
        out = asc.zeros((sum(rs), 3), dtype="float32")
        msg = expect_raises("C all_to_all_single split mismatch", dist.CollectiveMismatchError,
                            lambda: dist.all_to_all_single(out, asc.zeros((2 * N, 3), dtype="float32"), rs, [2] * N))
        if msg is not None and f"rank {N - 1} expects" not in msg:
            FAIL.append(f"C all_to_all_single split mismatch: the message does not name rank {N - 1}: {msg}")
        # dtype mismatch (float32 vs int32, same bytes), and all_to_all_single vs all_reduce
        dt = "float32" if R == 0 else "int32"
        expect_raises("C all_to_all_single dtype mismatch", dist.CollectiveMismatchError,
                      lambda: dist.all_to_all_single(asc.zeros(N, dtype=dt), asc.zeros(N, dtype=dt)))
        x = asc.zeros(N, dtype="float32")
        expect_raises("C all_to_all_single vs all_reduce", dist.CollectiveMismatchError,
                      lambda: dist.all_to_all_single(x, asc.zeros(N, dtype="float32")) if R == 0
                      else dist.all_reduce(x))
    _engine.set_mode(check=_engine.OFF)
    try:
        xs = {r: data(r, np.int32, (N, 2), 74) for r in range(N)}
        out = asc.zeros((N, 2), dtype="int32")
        dist.all_to_all_single(out, asc.asarray(xs[R]))
        check("C all_to_all_single check OFF", out, np.stack([xs[r][R] for r in range(N)]), True)
        dist.barrier()
    finally:
        _engine.reload_settings()
    out = asc.zeros((N, 2), dtype="int32")
    dist.all_to_all_single(out, asc.full((N, 2), R, dtype="int32"))
    check("C all_to_all_single after the mismatches", out, np.repeat(np.arange(N, dtype=np.int32), 2).reshape(N, 2),
          True)


def t_state():
    expect_raises("init twice", ValueError, lambda: dist.init_process_group("mpi"))
    assert dist.is_initialized() and dist.get_backend() == "hccl"
    assert 0 <= dist.get_local_rank() < dist.get_local_world_size() == N


# arguments naming tests (all_reduce, objects, ...) select them; other arguments are ignored;
# arguments after --train-mlp go to examples/distributed/train_mlp.py, run after the tests
# in the same job (test_collectives.py compares its loss curve with one process's)
TRAIN = sys.argv[sys.argv.index("--train-mlp") + 1:] if "--train-mlp" in sys.argv else None
if TRAIN is not None:
    sys.argv = sys.argv[:sys.argv.index("--train-mlp")]
SELECTED = [a for a in sys.argv[1:] if callable(globals().get("t_" + a))]
for name, fn in list(globals().items()):
    if name.startswith("t_") and callable(fn) and (not SELECTED or name[2:] in SELECTED):
        run(name, fn)

dist.barrier()
dist.destroy_process_group()
try:
    dist.all_reduce(asc.ones(2))
    FAIL.append("collective after destroy did not raise")
except dist.DistStateError:
    pass
if TRAIN is not None:
    # the example initialises the default group again (allowed after destroy, as in torch)
    import importlib.util
    ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "distributed",
                      "train_mlp.py")
    spec = importlib.util.spec_from_file_location("train_mlp_example", ex)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    try:
        mod.main(TRAIN)  # rank 0 prints the result as one JSON line
    except Exception:  # noqa: BLE001
        FAIL.append("train_mlp: " + traceback.format_exc())
print(f"RESULT rank={R} failures={len(FAIL)}", flush=True)
for f in FAIL:
    print(f"FAIL rank={R} {f}", flush=True)
sys.exit(1 if FAIL else 0)
