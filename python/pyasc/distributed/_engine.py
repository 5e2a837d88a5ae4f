"""The engine under :mod:`pyasc.distributed`: MPI (OpenMPI) through mpi4py.

Why mpi4py and not a C++ binding of MPI: mpi4py's ``Iallreduce``/``Allreduce``
on a buffer-protocol object costs one Python -> C call on top of MPI itself,
and pyasc arrays export their memory zero-copy (``ndarray.numpy()`` finishes
the lazy work producing or reading the buffer first). benchmarks/
bench_distributed.py measures our layer against mpi4py's own ``Allreduce`` on
NumPy buffers in the same run; a C++ path could only save that Python call.

This module holds what is specific to MPI: the dtype and reduction-op tables
(float16/bfloat16 and NaN-propagating float max/min as NumPy-backed MPI user
ops), waiting for a request against a deadline, the blocking mode's watchdog
and the cross-rank fingerprint check.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import zlib

import ml_dtypes
import numpy as np

from ..errors import AscendTypeError, ErrorCode
from ._errors import CollectiveMismatchError, DistBackendError, DistTimeoutError

_MPI = None


def mpi():
    """The ``mpi4py.MPI`` module (imported, hence MPI initialised, on first use only: ``import
    pyasc`` never starts MPI)."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as e:  # pragma: no cover - mpi4py is in the lock
            raise DistBackendError(f"[init_process_group] backend 'mpi' needs mpi4py and an MPI library: {e}",
                                   ErrorCode.API_NOT_SUPPORT) from e
        _MPI = MPI
    return _MPI


# ------------------------------------------------------------------ settings (env)

def _env_flag(name, default):
    v = os.environ.get(name)
    if v is None or v == "":
        return default
    return v.strip().lower() not in ("0", "off", "false", "no")


#: Cross-rank fingerprint check of every collective (shapes, dtypes, op, root):
#: ASC_DISTRIBUTED_CHECK=0 turns it off (one small extra all-reduce per call).
CHECK = _env_flag("ASC_DISTRIBUTED_CHECK", True)
#: ASC_DISTRIBUTED_BLOCKING=1: MPI's blocking calls guarded by a watchdog that
#: aborts the job at the deadline, instead of nonblocking calls polled against
#: it (which raise DistTimeoutError). Blocking calls use MPI's tuned
#: algorithms (about half the latency of libnbc's for small messages).
BLOCKING = _env_flag("ASC_DISTRIBUTED_BLOCKING", False)


def reload_settings():
    """Re-reads ASC_DISTRIBUTED_CHECK / ASC_DISTRIBUTED_BLOCKING (tests, benchmarks)."""
    global CHECK, BLOCKING
    CHECK = _env_flag("ASC_DISTRIBUTED_CHECK", True)
    BLOCKING = _env_flag("ASC_DISTRIBUTED_BLOCKING", False)


# ------------------------------------------------------------------ dtypes

_F16 = np.dtype(np.float16)
_BF16 = np.dtype(ml_dtypes.bfloat16)
_HALF = (_F16, _BF16)
_DT = {}


def mpi_datatype(dtype):
    """The MPI datatype carrying ``dtype``'s elements (16-bit floats travel as UINT16_T)."""
    if not _DT:
        MPI = mpi()
        _DT.update({
            np.dtype(np.bool_): MPI.C_BOOL,
            np.dtype(np.int8): MPI.INT8_T, np.dtype(np.int16): MPI.INT16_T,
            np.dtype(np.int32): MPI.INT32_T, np.dtype(np.int64): MPI.INT64_T,
            np.dtype(np.uint8): MPI.UINT8_T, np.dtype(np.uint16): MPI.UINT16_T,
            np.dtype(np.uint32): MPI.UINT32_T, np.dtype(np.uint64): MPI.UINT64_T,
            np.dtype(np.float32): MPI.FLOAT, np.dtype(np.float64): MPI.DOUBLE,
            np.dtype(np.complex64): MPI.C_FLOAT_COMPLEX, np.dtype(np.complex128): MPI.C_DOUBLE_COMPLEX,
            _F16: MPI.UINT16_T, _BF16: MPI.UINT16_T,
        })
    dt = _DT.get(dtype)
    if dt is None:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[distributed] dtype {dtype} has no MPI datatype")
    return dt


_SPEC = {}


def spec(buf):
    """mpi4py's message spec ``[buffer, datatype]`` for a contiguous NumPy array."""
    dt = buf.dtype
    s = _SPEC.get(dt)
    if s is None:
        s = _SPEC[dt] = (mpi_datatype(dt), dt in _HALF)
    if s[1]:
        # NumPy cannot export a bfloat16 buffer (no PEP 3118 code): same bytes as uint16.
        return [buf.view(np.uint16), s[0]]
    return [buf, s[0]]


# ------------------------------------------------------------------ reduction ops

_OPS = {}
_USER_OPS = []


def _numpy_op(fn, dtype):
    """An MPI user op computing ``inout = fn(in, inout)`` with NumPy's loop for ``dtype``:
    float16/bfloat16 rounded once per step as NumPy does, NaN-propagating max/min."""
    MPI = mpi()

    def apply(inbuf, inoutbuf, datatype):  # noqa: ARG001 - MPI's signature
        a = np.frombuffer(inbuf, dtype=dtype)
        b = np.frombuffer(inoutbuf, dtype=dtype)
        fn(a, b, out=b)

    op = MPI.Op.Create(apply, commute=True)
    _USER_OPS.append(op)
    return op


def mpi_op(op, dtype, what):
    """``(MPI op, average)`` for ReduceOp ``op`` on ``dtype``; ``average`` tells the caller to
    divide by the group size afterwards (ReduceOp.AVG). Errors name the op and dtype."""
    key = (op, dtype)
    r = _OPS.get(key)
    if r is not None:
        return r
    MPI = mpi()
    name = op._name_
    kind = dtype.kind
    if dtype not in _DT:
        mpi_datatype(dtype)
    bad = None
    if kind == "b":
        table = {"SUM": MPI.LOR, "MAX": MPI.LOR, "BOR": MPI.LOR, "PRODUCT": MPI.LAND, "MIN": MPI.LAND,
                 "BAND": MPI.LAND, "BXOR": MPI.LXOR}
        r = (table[name], False) if name in table else None
        bad = None if r else "bool arrays have no average"
    elif kind in "iu":
        table = {"SUM": MPI.SUM, "PRODUCT": MPI.PROD, "MAX": MPI.MAX, "MIN": MPI.MIN, "BAND": MPI.BAND,
                 "BOR": MPI.BOR, "BXOR": MPI.BXOR}
        r = (table[name], False) if name in table else None
        bad = None if r else f"AVG needs a floating or complex dtype, not {dtype} (use SUM and divide)"
    else:
        half = dtype in _HALF
        if name in ("BAND", "BOR", "BXOR"):
            bad = f"bitwise reductions need an integer or bool dtype, not {dtype}"
        elif kind == "c" and name in ("MAX", "MIN"):
            bad = f"MAX/MIN are not defined for complex dtype {dtype}"
        elif name in ("SUM", "AVG"):
            r = (_numpy_op(np.add, dtype) if half else MPI.SUM, name == "AVG")
        elif name == "PRODUCT":
            # complex: OpenMPI's multiply rounds differently from NumPy's (ac - bd) + (ad + bc)i
            r = (_numpy_op(np.multiply, dtype) if half or kind == "c" else MPI.PROD, False)
        else:  # MAX/MIN: NumPy's maximum/minimum propagate NaN, MPI's C compare does not
            r = (_numpy_op(np.maximum if name == "MAX" else np.minimum, dtype), False)
    if r is None:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{what}] ReduceOp.{name}: {bad}")
    _OPS[key] = r
    return r


# ------------------------------------------------------------------ waiting

def _mpi_error(what, e):
    return DistBackendError(f"[{what}] MPI error: {e}")


_yield = getattr(os, "sched_yield", lambda: None)


def wait(req, deadline, what, pg):
    """Drives ``req`` to completion (OpenMPI progresses nonblocking operations only inside
    MPI calls, so this spins on Test) and raises DistTimeoutError at ``deadline``."""
    MPI = mpi()
    try:
        if req.Test():
            return
        n = 0
        while True:
            n += 1
            if req.Test():
                return
            if n > 64:
                # Past a short spin, yield the core at every poll: with more ranks than free
                # cores (oversubscription, a loaded machine) the peer we wait for needs it.
                _yield()
                if n & 63 == 0:
                    if time.monotonic() > deadline:
                        raise pg.fail_timeout(what, req)
                    if n & 1023 == 0:
                        time.sleep(0)  # let other Python threads have the GIL now and then
    except MPI.Exception as e:
        raise _mpi_error(what, e) from None


def test(req, what):
    MPI = mpi()
    try:
        return req.Test()
    except MPI.Exception as e:
        raise _mpi_error(what, e) from None


class Watchdog:
    """For ASC_DISTRIBUTED_BLOCKING=1: a daemon thread that aborts the MPI job when a blocking
    call passes its deadline (a blocked MPI call cannot be interrupted; torch's NCCL watchdog
    tears the process down the same way). Arming costs two attribute stores."""

    def __init__(self):
        self.current = None
        self.thread = None

    def arm(self, deadline, what):
        self.current = (deadline, what)
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="pyasc-distributed-watchdog", daemon=True)
            self.thread.start()

    def disarm(self):
        self.current = None

    def _run(self):
        while True:
            time.sleep(0.05)
            cur = self.current
            if cur is not None and time.monotonic() > cur[0]:
                msg = (f"[{cur[1]}] rank {mpi().COMM_WORLD.Get_rank()}: timed out in a blocking MPI call "
                       "(a rank died, hangs or did not call the matching collective); aborting the job "
                       "(ASC_DISTRIBUTED_BLOCKING=1)\n")
                try:
                    sys.stderr.flush()
                    os.write(2, msg.encode())
                finally:
                    mpi().COMM_WORLD.Abort(124)


watchdog = Watchdog()


_NONBLOCKING = {}


def call(comm, name, args, deadline, what, pg):
    """Runs MPI operation ``name`` (``Allreduce``, ``Bcast``, ...): blocking under the watchdog
    (ASC_DISTRIBUTED_BLOCKING=1) or nonblocking, polled against ``deadline``."""
    MPI = mpi()
    try:
        if BLOCKING:
            watchdog.arm(deadline, what)
            try:
                getattr(comm, name)(*args)
            finally:
                watchdog.disarm()
            return None
        nb = _NONBLOCKING.get(name)
        if nb is None:
            nb = _NONBLOCKING[name] = "I" + name.lower()
        return getattr(comm, nb)(*args)
    except MPI.Exception as e:
        raise _mpi_error(what, e) from None


# ------------------------------------------------------------------ fingerprint check

_FP = {}
_DESC_BYTES = 160


def describe(desc):
    """The text of a collective's description (a string, or a tuple of its parts)."""
    return desc if isinstance(desc, str) else " ".join(str(p) for p in desc)


def _fingerprint(desc):
    h = _FP.get(desc)
    if h is None:
        b = describe(desc).encode()
        h = ((zlib.crc32(b) << 31) ^ zlib.adler32(b)) & ((1 << 62) - 1)
        if len(_FP) > 4096:
            _FP.clear()
        _FP[desc] = h
    return h


def check_same(pg, what, desc, deadline):
    """Raises CollectiveMismatchError on every rank when the ranks' ``desc`` strings (the
    collective's shapes, dtypes, op, root) differ: one all-reduce of (h, -h) with MAX gives
    the largest and the smallest fingerprint at once."""
    MPI = mpi()
    h = _fingerprint(desc)
    buf = np.array([h, -h], dtype=np.int64)
    req = call(pg.comm, "Allreduce", (MPI.IN_PLACE, buf, MPI.MAX), deadline, what, pg)
    if req is not None:
        wait(req, deadline, what, pg)
    if buf[0] == -buf[1]:
        return
    # Cold path: tell every rank what each rank passed.
    mine = np.zeros(_DESC_BYTES, np.uint8)
    raw = describe(desc).encode()[:_DESC_BYTES]
    mine[:len(raw)] = np.frombuffer(raw, np.uint8)
    allb = np.zeros((pg.size(), _DESC_BYTES), np.uint8)
    req = call(pg.comm, "Allgather", (mine, allb), deadline, what, pg)
    if req is not None:
        wait(req, deadline, what, pg)
    parts = []
    for r in range(pg.size()):
        text = bytes(allb[r]).rstrip(b"\0").decode(errors="replace")
        parts.append(f"rank {pg.ranks[r]}: {text}")
    raise CollectiveMismatchError(f"[{what}] the ranks of the group disagree: " + "; ".join(parts))
