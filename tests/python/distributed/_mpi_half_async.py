"""Run on 2 MPI ranks by test_half_async.py: float16 and bfloat16 through every collective (the
reducing ones bit-exact with NumPy's float16 and ml_dtypes' bfloat16 loops, in the C path), and
async_op collectives whose wait() runs the body inline when the stream was idle at the call.

Prints "RESULT rank=R failures=K", then one "FAIL ..." line per failed check."""

import os
import sys
import threading
import time
import traceback

import ml_dtypes
import numpy as np

import pyasc as asc
import pyasc.distributed as dist
from pyasc.distributed import _collectives, _engine

dist.init_process_group(backend="mpi", timeout=40)
R, N = dist.get_rank(), dist.get_world_size()
FAIL = []
BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
OPS = {"SUM": np.add, "PRODUCT": np.multiply, "MAX": np.maximum, "MIN": np.minimum, "AVG": np.add}


def values(rank, dt, n, seed):
    """Random values with the edges of 16-bit rounding: subnormals, the largest finite value
    (overflow to inf), ties to even, inf, and NaN at positions where only this rank has one (so
    NumPy's result is that NaN whatever the operand order)."""
    rng = np.random.default_rng(100 * seed + rank)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    edges = np.array([1e-40, -9.2e-41, 3.3895e38, 3.0e38, 65504.0, 6e-8, 1.0078125, 1.00390625, 0.1, -2.5, np.inf,
                      -np.inf], np.float32)
    k = min(n, len(edges))
    x[:k] = edges[:k] if rank % 2 == 0 else edges[:k][::-1]
    if n > 20:
        x[13 + rank] = np.nan
    return x.astype(dt)


def bits(a):
    return np.asarray(a.numpy() if isinstance(a, asc.ndarray) else a).view(np.uint16)


def same_bits(name, got, want):
    g, w = bits(got), bits(want)
    if g.shape != w.shape or not np.array_equal(g, w):
        bad = np.flatnonzero(g.ravel() != w.ravel())[:5] if g.shape == w.shape else []
        FAIL.append(f"{name}: bits differ at {list(bad)}: got {g.ravel()[bad]} want {w.ravel()[bad]}"
                    if len(bad) else f"{name}: shape {g.shape} != {w.shape}")


def want_of(op, xs):
    """NumPy's result in the dtype's own loop (2 ranks: one rounding, as the C ops)."""
    want = OPS[op](xs[0], xs[1])
    for x in xs[2:]:
        want = OPS[op](want, x)
    return want / xs[0].dtype.type(N) if op == "AVG" else want


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


def asc_of(x):
    return asc.asarray(x.copy())


# ------------------------------------------------------------------ reductions

def t_reductions():
    """all_reduce / reduce / reduce_scatter_tensor / reduce_scatter of float16 and bfloat16 with
    SUM, PRODUCT, MAX, MIN, AVG: bit-exact with NumPy, small (the check inside the message) and
    over 16 KiB (the fingerprint all-reduce first), blocking and async_op."""
    for dt in (F16, BF16):
        for n in (24, 9000):
            for op in OPS:
                rop = getattr(dist.ReduceOp, op)
                xs = [values(r, dt, n, 1) for r in range(N)]
                want = want_of(op, xs)
                tag = f"{dt} n={n} {op}"
                for async_op in (False, True):
                    x = asc_of(xs[R])
                    w = dist.all_reduce(x, op=rop, async_op=async_op)
                    if async_op:
                        w.wait()
                    same_bits(f"all_reduce {tag} async={async_op}", x, want)
                y = asc_of(xs[R])
                dist.reduce(y, dst=0, op=rop)
                same_bits(f"reduce {tag}", y, want if R == 0 else xs[R])
                ins = [values(r, dt, N * n, 2) for r in range(N)]
                parts = [want_of(op, [a[i * n:(i + 1) * n] for a in ins]) for i in range(N)]
                for async_op in (False, True):
                    out = asc.zeros(n, dtype=dt.name)
                    w = dist.reduce_scatter_tensor(out, asc_of(ins[R]), op=rop, async_op=async_op)
                    if async_op:
                        w.wait()
                    same_bits(f"reduce_scatter_tensor {tag} async={async_op}", out, parts[R])
                out = asc.zeros(n, dtype=dt.name)
                dist.reduce_scatter(out, [asc_of(ins[R][i * n:(i + 1) * n]) for i in range(N)], op=rop)
                same_bits(f"reduce_scatter {tag}", out, parts[R])
    # strided (staged) bfloat16 views reduce alike
    xs = [values(r, BF16, 40, 3) for r in range(N)]
    full = asc.asarray(np.stack([xs[R], xs[R]], axis=1))
    view = full[:, 0]
    dist.all_reduce(view, op=dist.ReduceOp.MAX)
    same_bits("all_reduce bfloat16 MAX strided", full.numpy()[:, 0], want_of("MAX", xs))
    same_bits("all_reduce bfloat16 MAX strided untouched", full.numpy()[:, 1], xs[R])
    # empty arrays
    for dt in (F16, BF16):
        e = asc.zeros(0, dtype=dt.name)
        dist.all_reduce(e, op=dist.ReduceOp.MIN)
        dist.reduce(e, dst=0, op=dist.ReduceOp.MAX)
        dist.reduce_scatter_tensor(asc.zeros(0, dtype=dt.name), asc.zeros(0, dtype=dt.name))


def t_c_path_taken():
    """The C module reduces the 16-bit floats itself (None: done there; NotImplemented would
    mean the Python path's NumPy user ops)."""
    world = dist.GroupMember.WORLD
    if _engine.NATIVE is None:
        FAIL.append("the C module pyasc.distributed._native is not built")
        return
    for dt in (F16, BF16):
        for op, code in (("MAX", 4), ("MIN", 3), ("PRODUCT", 2)):
            xs = [values(r, dt, 64, 4) for r in range(N)]
            h = xs[R].copy()
            view = h.view(np.uint16) if dt == BF16 else h
            r = _engine.NATIVE.allreduce(view, world.handle, code, N, _engine.CHECK, world.timeout, world, 0,
                                         dt == BF16)
            if r is not None:
                FAIL.append(f"C allreduce {dt} {op} returned {r!r}")
            same_bits(f"C allreduce {dt} {op}", h, want_of(op, xs))
            out = np.zeros(64, dt)
            ins = [values(r, dt, N * 64, 5) for r in range(N)]
            args = (out.view(np.uint16), ins[R].view(np.uint16)) if dt == BF16 else (out, ins[R])
            r = _engine.NATIVE.coll(4, *args, -1, code, world.handle, N, R, _engine.CHECK, float(world.timeout), world,
                                    0, dt == BF16)
            if r is not None:
                FAIL.append(f"C reduce_scatter_tensor {dt} {op} returned {r!r}")
            same_bits(f"C reduce_scatter_tensor {dt} {op}", out, want_of(op, [a[R * 64:(R + 1) * 64] for a in ins]))


def t_mismatch():
    """bfloat16 on one rank, uint16 (same bytes) on the other: both raise, in every C collective."""
    dt = "bfloat16" if R == 0 else "uint16"
    for name, fn in (("broadcast", lambda: dist.broadcast(asc.ones(6, dtype=dt), src=0)),
                     ("reduce", lambda: dist.reduce(asc.ones(6, dtype=dt), dst=0)),
                     ("all_gather_into_tensor",
                      lambda: dist.all_gather_into_tensor(asc.zeros(6 * N, dtype=dt), asc.ones(6, dtype=dt))),
                     ("reduce_scatter_tensor",
                      lambda: dist.reduce_scatter_tensor(asc.zeros(6, dtype=dt), asc.ones(6 * N, dtype=dt)))):
        msg = expect_raises(f"{name} bfloat16 vs uint16", dist.CollectiveMismatchError, fn)
        if msg is not None and f"[{name}]" not in msg:
            FAIL.append(f"{name} bfloat16 vs uint16: the error does not name it: {msg}")
    x = asc.ones(5, dtype="bfloat16")
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    same_bits("all_reduce after the mismatches", x, np.ones(5, BF16))
    expect_raises("bfloat16 BAND", TypeError, lambda: dist.reduce(asc.ones(3, dtype="bfloat16"), dst=0,
                                                                     op=dist.ReduceOp.BAND))


# ------------------------------------------------------------------ the copy collectives carry the bits

def t_copies():
    """broadcast, all_gather(_into_tensor), gather, scatter, all_to_all(_single), send/recv and
    isend/irecv move float16/bfloat16 bits unchanged (NaN payloads, signed zeros, subnormals)."""
    for dt in (F16, BF16):
        xs = [values(r, dt, 30, 6) for r in range(N)]
        for r in range(N):
            xs[r][20] = np.array([0x7FC1 + r if dt == BF16 else 0x7E01 + r], np.uint16).view(dt)[0]  # NaN payloads
            xs[r][21] = -0.0
        for async_op in (False, True):
            tag = f"{dt} async={async_op}"

            def done(w):
                if async_op:
                    w.wait()

            x = asc_of(xs[R])
            done(dist.broadcast(x, src=N - 1, async_op=async_op))
            same_bits(f"broadcast {tag}", x, xs[N - 1])
            outs = [asc.zeros(30, dtype=dt.name) for _ in range(N)]
            done(dist.all_gather(outs, asc_of(xs[R]), async_op=async_op))
            for r in range(N):
                same_bits(f"all_gather[{r}] {tag}", outs[r], xs[r])
            o = asc.zeros(30 * N, dtype=dt.name)
            done(dist.all_gather_into_tensor(o, asc_of(xs[R]), async_op=async_op))
            same_bits(f"all_gather_into_tensor {tag}", o, np.concatenate(xs))
            g = [asc.zeros(30, dtype=dt.name) for _ in range(N)] if R == 0 else None
            done(dist.gather(asc_of(xs[R]), g, dst=0, async_op=async_op))
            if R == 0:
                for r in range(N):
                    same_bits(f"gather[{r}] {tag}", g[r], xs[r])
            y = asc.zeros(30, dtype=dt.name)
            done(dist.scatter(y, [asc_of(xs[i]) for i in range(N)] if R == 0 else None, src=0, async_op=async_op))
            same_bits(f"scatter {tag}", y, xs[R] if R == 0 else xs[R])  # root sends xs[i] to rank i
            rows = [values(10 * R + r, dt, 6, 7).reshape(2, 3) for r in range(N)]
            out = asc.zeros((2 * N, 3), dtype=dt.name)
            done(dist.all_to_all_single(out, asc.asarray(np.concatenate(rows)), async_op=async_op))
            same_bits(f"all_to_all_single {tag}", out,
                      np.concatenate([values(10 * r + R, dt, 6, 7).reshape(2, 3) for r in range(N)]))
        peer = 1 - R if N == 2 else (R + 1) % N
        src = (R - 1) % N
        buf = asc.zeros(30, dtype=dt.name)
        if R % 2 == 0:
            dist.send(asc_of(xs[R]), dst=peer)
            dist.recv(buf, src=src)
        else:
            dist.recv(buf, src=src)
            dist.send(asc_of(xs[R]), dst=peer)
        same_bits(f"send/recv {dt}", buf, xs[src])
        buf = asc.zeros(30, dtype=dt.name)
        wr = dist.irecv(buf, src=src, tag=3)
        ws = dist.isend(asc_of(xs[R]), dst=peer, tag=3)
        wr.wait()
        ws.wait()
        same_bits(f"isend/irecv {dt}", buf, xs[src])


# ------------------------------------------------------------------ async_op run inline by wait()

def t_async_inline():
    """An async_op collective issued on an idle stream is run by wait() itself (the caller's
    thread), with the results, ordering and errors of the stream task; with the C module's gate
    (a C stream callback) and the Python one."""
    for c_gate in (True, False):
        _collectives._GATE_C = c_gate
        try:
            _async_inline(c_gate)
        finally:
            _collectives._GATE_C = True


def _async_inline(c_gate):
    xs = [values(r, np.dtype(np.float32), 1024, 8) for r in range(N)]
    want = want_of("SUM", xs)
    s = asc.Stream()
    # the stream's worker needs the GIL to start the task, and this thread keeps it from the call
    # to wait() (a long switch interval: a descheduled caller does not hand it over meanwhile)
    interval, grace = sys.getswitchinterval(), _collectives._GRACE_S
    sys.setswitchinterval(30.0)
    _collectives._GRACE_S = 30.0  # (the C gate's callback claims without the GIL: after its grace)
    with s:
        x = asc.asarray(xs[R]) + 0.0
        x.numpy()
        w = dist.all_reduce(x, async_op=True)
        if not w._steal:
            FAIL.append("async all_reduce on an idle stream: not run by wait()")
        if (type(w._gate).__name__ == "Gate") != c_gate:
            FAIL.append(f"the gate is {type(w._gate).__name__} (C gate wanted: {c_gate})")
        body = w._body
        ran = []
        w._body = lambda: (ran.append(threading.get_ident()), body())[1]
    assert w.wait() is True and w.is_completed() and w.is_success()
    sys.setswitchinterval(interval)
    _collectives._GRACE_S = grace
    if ran != [threading.get_ident()]:
        FAIL.append(f"async all_reduce on an idle stream: the body ran on {ran}, not the caller's thread")
    same_bits("async inline all_reduce", x.numpy().view(np.uint32), want.view(np.uint32))
    # several in flight: each waits for the group's previous one (issue order), any wait order
    with s:
        a = [asc.asarray(xs[R] * (i + 1)) + 0.0 for i in range(3)]
        for v in a:
            v.numpy()
        ws = [dist.all_reduce(v, async_op=True) for v in a]
    for wk in reversed(ws):
        wk.wait()
    for i, v in enumerate(a):
        same_bits(f"async chain {i}", v.numpy().view(np.uint32),
                  want_of("SUM", [x_ * np.float32(i + 1) for x_ in xs]).view(np.uint32))
    # a busy stream: the task runs after the stream's earlier work (a host callback writing x)
    z = asc.zeros(16, dtype="float32")
    zn = z.numpy()
    with s:
        s.add_callback(lambda: (time.sleep(0.05), zn.__setitem__(slice(None), R + 1)))
        w = dist.all_reduce(z, async_op=True)
    w.wait()  # (inline only after the callback ran: its write is reduced)
    same_bits("async all_reduce after the stream's callback", z.numpy().view(np.uint32),
              np.full(16, N * (N + 1) / 2, np.float32).view(np.uint32))
    # later work on the stream reads the result; a blocking collective after the inline one
    with s:
        u = asc.asarray(xs[R]) + 0.0
        u.numpy()
        w = dist.all_reduce(u, async_op=True)
        w.wait()
        v = (u * 2).numpy()
    same_bits("later stream op after inline all_reduce", v.view(np.uint32), (want * 2).view(np.uint32))
    b = asc.full(4, R, dtype="int32")
    dist.all_reduce(b, op=dist.ReduceOp.MAX)
    same_bits("blocking after inline async", b.numpy().view(np.uint16), np.full(4, N - 1, np.int32).view(np.uint16))
    # is_completed() and wait(timeout) never run it: a peer that joins late leaves them False / raising
    with s:
        u = asc.asarray(xs[R]) + 0.0
        u.numpy()
        if R == 1:
            dist.recv(asc.zeros(1), src=0)
        w = dist.all_reduce(u, async_op=True)
        if R == 0:
            time.sleep(0.05)
            if w.is_completed():
                FAIL.append("async all_reduce completed before the peer joined")
            expect_raises("wait(timeout) before the peer joined", dist.DistTimeoutError, lambda: w.wait(timeout=0.05))
            dist.send(asc.ones(1), dst=1)
    w.wait()
    same_bits("async all_reduce, late peer", u.numpy().view(np.uint32), want.view(np.uint32))
    # errors raised by the inline run at wait(), on every rank
    e = asc.zeros(3 if R == 0 else 4, dtype="float32")
    e.numpy()
    w = dist.broadcast(e, src=0, async_op=True)
    msg = expect_raises("inline async broadcast mismatch", dist.CollectiveMismatchError, w.wait)
    if msg is not None and "[broadcast]" not in msg:
        FAIL.append(f"inline async broadcast mismatch: the error does not name it: {msg}")
    if not w.is_completed() or w.is_success():
        FAIL.append("inline async broadcast mismatch: Work state after the error")
    # ASC_DISTRIBUTED_ASYNC_INLINE=0: the stream's worker always runs it
    _collectives._STEAL = False
    try:
        u = asc.asarray(xs[R]) + 0.0
        u.numpy()
        w = dist.all_reduce(u, async_op=True)
        if w._steal:
            FAIL.append("ASC_DISTRIBUTED_ASYNC_INLINE=0: still run inline")
        w.wait()
        same_bits("async all_reduce, inline off", u.numpy().view(np.uint32), want.view(np.uint32))
    finally:
        _collectives._STEAL = _engine._env_flag("ASC_DISTRIBUTED_ASYNC_INLINE", True)


def run(name, fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        FAIL.append(f"{name}: {traceback.format_exc()}")


SELECTED = [a for a in sys.argv[1:] if callable(globals().get("t_" + a))]
for name, fn in list(globals().items()):
    if name.startswith("t_") and callable(fn) and (not SELECTED or name[2:] in SELECTED):
        run(name, fn)
dist.barrier()
dist.destroy_process_group()
print(f"RESULT rank={R} failures={len(FAIL)}", flush=True)
for f in FAIL:
    print(f"FAIL rank={R} {f}", flush=True)
sys.exit(1 if FAIL else 0)
