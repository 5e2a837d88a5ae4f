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
        # Blocking MPI calls busy-poll shared memory; with more runnable threads than cores
        # (pyasc's own workers, a loaded machine, oversubscribed ranks) a spinning rank holds
        # the core its peer needs, and a 4 KiB all_reduce took seconds. Yielding when idle
        # costs a sched_yield per empty poll (nothing on a quiet machine). Read by MPI_Init:
        # set before mpi4py initialises MPI, unless the user chose otherwise.
        os.environ.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
        # OpenMPI 4.1.4's op/avx component (Debian 12) adds 8-bit integers with saturating
        # instructions: an int8/uint8 SUM of 4 ranks' 100s gave 127 instead of NumPy's
        # wrapped -112, in blocking all_reduce/reduce_scatter from 64 elements and in every
        # nonblocking one (measured with mpi4py alone). The base op component wraps as C does.
        os.environ.setdefault("OMPI_MCA_op", "^avx")
        try:
            from mpi4py import MPI
        except ImportError as e:  # pragma: no cover - mpi4py is in the lock
            raise DistBackendError(f"[init_process_group] backend 'mpi' needs mpi4py and an MPI library: {e}",
                                   ErrorCode.API_NOT_SUPPORT) from e
        _MPI = MPI
        _load_native()
    return _MPI


#: pyasc.distributed._native (the C fast path of all_reduce, linked to the libmpi mpi4py
#: uses), loaded with MPI; None when the build has no MPI C library or ASC_DISTRIBUTED_NATIVE=0.
NATIVE = None
#: Whether blocking all_reduce takes the C path: NATIVE loaded and the blocking mode (every
#: check level: DETAIL's fingerprint includes the shape there).
NATIVE_FAST = False
#: NATIVE.entry while NATIVE_FAST, else None: the first step of blocking all_reduce, broadcast,
#: reduce, all_gather_into_tensor and reduce_scatter_tensor (one lookup on their hot path)
FAST = None


def _load_native():
    global NATIVE, NATIVE_FAST, FAST
    NATIVE = None
    if _env_flag("ASC_DISTRIBUTED_NATIVE", True):
        try:
            from . import _native
            NATIVE = _native
        except ImportError:  # a build without MPI's C library: the Python path only
            NATIVE = None
    if NATIVE is not None:
        from .. import _C
        from ._collectives import _c_failed
        from ._group import ProcessGroup, ReduceOp, _State
        NATIVE.configure([ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.BAND,
                          ReduceOp.BOR, ReduceOp.BXOR], _C.ndarray, np.ndarray, CHECK, _State, ProcessGroup,
                         _c_failed)
    NATIVE_FAST = NATIVE is not None and BLOCKING
    FAST = NATIVE.entry if NATIVE_FAST else None


# ------------------------------------------------------------------ settings (env)

def _env_flag(name, default):
    v = os.environ.get(name)
    if v is None or v == "":
        return default
    return v.strip().lower() not in ("0", "off", "false", "no")


#: Mismatch-check levels (torch's TORCH_DISTRIBUTED_DEBUG names).
OFF, INFO, DETAIL = 0, 1, 2


def _check_level():
    """ASC_DISTRIBUTED_DEBUG=OFF|INFO|DETAIL (default INFO). INFO: the cheap check (the
    fingerprint rides inside small all_reduce messages, a 16-byte fingerprint all-reduce
    precedes the other collectives); DETAIL: the fingerprint all-reduce before every
    collective; OFF: none. The older ASC_DISTRIBUTED_CHECK=0/1 maps to OFF/DETAIL."""
    v = os.environ.get("ASC_DISTRIBUTED_DEBUG", "").strip().upper()
    if v in ("OFF", "0"):
        return OFF
    if v == "DETAIL":
        return DETAIL
    if v in ("", "INFO"):
        legacy = os.environ.get("ASC_DISTRIBUTED_CHECK")
        if legacy not in (None, ""):
            return DETAIL if _env_flag("ASC_DISTRIBUTED_CHECK", True) else OFF
        return INFO
    raise DistBackendError(f"[distributed] ASC_DISTRIBUTED_DEBUG={v!r}: expected OFF, INFO or DETAIL")


#: The mismatch-check level (OFF / INFO / DETAIL).
CHECK = _check_level()
#: Blocking MPI calls on the calling thread with a watchdog (default, torch's ProcessGroupNCCL
#: design: MPI's tuned blocking algorithms, no polling). ASC_DISTRIBUTED_BLOCKING=0: nonblocking
#: calls polled against the deadline, which raise DistTimeoutError in the caller instead of
#: tearing the job down (about 2-3x the latency of small messages: libnbc's algorithms).
BLOCKING = _env_flag("ASC_DISTRIBUTED_BLOCKING", True)


def set_mode(check=None, blocking=None):
    """Sets the check level (OFF/INFO/DETAIL) and/or the blocking mode for this process
    (what the environment variables choose at import; tests switch between the paths)."""
    global CHECK, BLOCKING, NATIVE_FAST, FAST
    if check is not None:
        CHECK = check
    if blocking is not None:
        BLOCKING = bool(blocking)
    NATIVE_FAST = NATIVE is not None and BLOCKING
    FAST = NATIVE.entry if NATIVE_FAST else None
    if NATIVE is not None:
        NATIVE.set_level(CHECK)


def reload_settings():
    """Re-reads ASC_DISTRIBUTED_DEBUG / ASC_DISTRIBUTED_CHECK / ASC_DISTRIBUTED_BLOCKING /
    ASC_DISTRIBUTED_NATIVE."""
    global CHECK, BLOCKING
    CHECK = _check_level()
    BLOCKING = _env_flag("ASC_DISTRIBUTED_BLOCKING", True)
    if _MPI is not None:
        _load_native()


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


def wait_backoff(req, deadline, what, pg):
    """wait() for a thread that should not hold a core while it waits (the stream worker
    running an async_op collective beside the caller's compute, one core per rank being
    common): Test, then sleep 20 us doubling to 0.5 ms between Tests (the GIL and the core
    released; MPI progresses the operation at each Test). The deadline: in the polled mode
    DistTimeoutError; in the default mode the watchdog, armed for this call (extra slot)."""
    MPI = mpi()
    token = None if not BLOCKING else watchdog.arm_extra(deadline, what, pg)
    try:
        pause = 20e-6
        while not req.Test():
            if not BLOCKING and time.monotonic() > deadline:
                raise pg.fail_timeout(what, req)
            time.sleep(pause)
            pause = min(pause * 2, 5e-4)
    except MPI.Exception as e:
        raise _mpi_error(what, e) from None
    finally:
        if token is not None:
            watchdog.disarm_extra(token)


def test(req, what):
    MPI = mpi()
    try:
        return req.Test()
    except MPI.Exception as e:
        raise _mpi_error(what, e) from None


class Watchdog:
    """The timeout guard of blocking MPI calls (torch's ProcessGroupNCCL watchdog with
    TORCH_NCCL_ASYNC_ERROR_HANDLING=1): a daemon thread that, when a blocking call passes its
    deadline, tears the job down with a clear error on every rank. A blocked MPI call cannot be
    interrupted (OpenMPI 4 has no ULFM revoke), so the error cannot be raised in the caller.

    At the deadline the timed-out rank prints the operation, rank, group and timeout and its
    threads' Python stacks, sends that text to every other rank over a control communicator
    (each rank's watchdog has a receive posted there and prints the notice with its own stacks:
    where a hung rank hangs), waits briefly for them to print, then calls ``MPI_Abort``.
    Arming costs one attribute store per call; the thread wakes every 50 ms.
    """

    PERIOD = 0.05
    GRACE = 1.0  # seconds the peers get to print the notice before MPI_Abort

    def __init__(self):
        self.current = None
        self.extra = {}  # token -> (deadline, what, pg): calls of other threads (wait_backoff)
        self.thread = None
        self.ctl = None  # control communicator (a Dup of COMM_WORLD)
        self._stop = False
        self._req = None
        self._inbox = None
        self._status = None

    def start(self):
        """Starts the thread (init_process_group, before its first MPI call)."""
        if self.thread is not None:
            return
        self._stop = False
        self.thread = threading.Thread(target=self._run, name="pyasc-distributed-watchdog", daemon=True)
        self.thread.start()

    def attach(self, ctl):
        """Posts the receive of other ranks' notices on control communicator ``ctl`` (only
        when MPI runs with MPI_THREAD_MULTIPLE, mpi4py's default: the thread then calls MPI
        beside the caller's thread; otherwise only the timed-out rank prints)."""
        if mpi().Query_thread() < mpi().THREAD_MULTIPLE:
            ctl.Free()
            return
        self._inbox = np.zeros(1024, np.uint8)
        self._status = mpi().Status()
        self._req = ctl.Irecv(self._inbox, mpi().ANY_SOURCE, 7)
        self.ctl = ctl

    def stop(self):
        """Stops the thread, cancels its receive and frees the control communicator."""
        t = self.thread
        if t is None:
            return
        self._stop = True
        t.join(timeout=2.0)
        self.thread = None
        try:
            if self._req is not None and not self._req.Test():
                self._req.Cancel()
                self._req.Wait()
        except Exception:  # noqa: BLE001 - MPI may be tearing down: nothing to do
            pass
        self._req = None
        if self.ctl is not None:
            try:
                self.ctl.Free()
            except Exception:  # noqa: BLE001
                pass
            self.ctl = None

    def arm(self, deadline, what, pg):
        self.current = (deadline, what, pg)

    def disarm(self):
        self.current = None

    def arm_extra(self, deadline, what, pg):
        token = object()
        self.extra[token] = (deadline, what, pg)
        return token

    def disarm_extra(self, token):
        self.extra.pop(token, None)

    def _armed(self):
        """The earliest deadline among the caller's call, the C path's slots and the extra
        calls, as (deadline, what, pg), or None."""
        cands = [c for c in (self.current, NATIVE.armed() if NATIVE is not None else None) if c is not None]
        if self.extra:
            cands.extend(list(self.extra.values()))
        return min(cands, key=lambda c: c[0]) if cands else None

    def _run(self):
        while not self._stop:
            time.sleep(self.PERIOD)
            try:
                req = self._req
                if req is not None and req.Test(self._status):
                    self._notice()
                    return
            except Exception:  # noqa: BLE001 - MPI finalising under us
                return
            cur = self._armed()  # incl. the C path's "blocked until" slots (no per-call Python store)
            if cur is not None and time.monotonic() > cur[0]:
                self._timeout(*cur)
                return

    def _stacks(self):
        import faulthandler
        try:
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        except Exception:  # noqa: BLE001 - stderr may be closed
            pass

    def _notice(self):
        n = self._status.Get_count(mpi().BYTE)
        text = bytes(self._inbox[:n]).decode(errors="replace")
        cur = self._armed()
        here = f"this rank is in [{cur[1]}]" if cur is not None else "this rank is not in a blocking collective"
        _write(f"[pyasc.distributed] rank {mpi().COMM_WORLD.Get_rank()}: the job is being torn down by "
               f"another rank's watchdog: {text} ({here}; its Python stacks follow)\n")
        self._stacks()

    def _timeout(self, deadline, what, pg):
        MPI = mpi()
        me = MPI.COMM_WORLD.Get_rank()
        msg = (f"[{what}] rank {me} timed out after {pg.timeout:.3g} s in a blocking MPI call (group "
               f"'{pg.name}', ranks {list(pg.ranks)}): a rank died, hangs, or did not call the matching "
               "collective; aborting the job")
        _write(f"[pyasc.distributed] {msg} (ASC_DISTRIBUTED_BLOCKING=0 raises DistTimeoutError in the caller "
               "instead; Python stacks of this rank follow)\n")
        self._stacks()
        try:
            if self.ctl is None:
                raise RuntimeError("no control communicator yet")
            raw = np.frombuffer(msg.encode()[:1024], np.uint8).copy()
            reqs = [self.ctl.Isend(raw, r, 7) for r in range(MPI.COMM_WORLD.Get_size()) if r != me]
            end = time.monotonic() + self.GRACE
            while time.monotonic() < end and not all(r.Test() for r in reqs):
                time.sleep(0.01)
            time.sleep(max(0.0, min(0.5, end - time.monotonic())))
        except Exception:  # noqa: BLE001 - still abort
            pass
        MPI.COMM_WORLD.Abort(124)


def _write(text):
    try:
        sys.stderr.flush()
        os.write(2, text.encode())
    except OSError:
        pass


watchdog = Watchdog()


_NONBLOCKING = {}


def call(comm, name, args, deadline, what, pg, nonblocking=False):
    """Runs MPI operation ``name`` (``Allreduce``, ``Bcast``, ...): blocking under the watchdog
    (default) or, for ``nonblocking`` (async_op) or with ASC_DISTRIBUTED_BLOCKING=0, as a
    nonblocking request the caller polls against ``deadline``."""
    MPI = mpi()
    try:
        if BLOCKING and not nonblocking:
            watchdog.current = (deadline, what, pg)
            try:
                getattr(comm, name)(*args)
            finally:
                watchdog.current = None
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


def complete(comm, name, args, deadline, what, pg, backoff=False):
    """One MPI call to completion on ``comm`` in the current mode; ``backoff``: a nonblocking
    call waited for with sleeps (an async_op task on a stream worker, see wait_backoff)."""
    if backoff:
        wait_backoff(call(comm, name, args, deadline, what, pg, True), deadline, what, pg)
        return
    req = call(comm, name, args, deadline, what, pg)
    if req is not None:
        wait(req, deadline, what, pg)


_blocking = complete


def check_same(pg, what, desc, deadline, h=None, backoff=False):
    """Raises CollectiveMismatchError on every rank when the ranks' ``desc`` strings (the
    collective's shapes, dtypes, op, root) differ: one all-reduce of (h, -h) with MAX gives
    the largest and the smallest fingerprint at once. An MPI error of that all-reduce (a peer
    in a different collective: truncated message) counts as a mismatch too."""
    MPI = mpi()
    if h is None:  # all_reduce passes the C path's fingerprint, so both paths agree
        h = _fingerprint(desc)
    buf = np.array([h, -h], dtype=np.int64)
    try:
        if backoff:
            wait_backoff(pg.comm.Iallreduce(MPI.IN_PLACE, buf, MPI.MAX), deadline, what, pg)
        else:
            _blocking(pg.comm, "Allreduce", (MPI.IN_PLACE, buf, MPI.MAX), deadline, what, pg)
    except MPI.Exception as e:
        mismatch(pg, what, desc, deadline, f" ({_mpi_error(what, e)})")
    except DistBackendError as e:
        if isinstance(e, DistTimeoutError):
            raise
        mismatch(pg, what, desc, deadline, f" ({e})")
    if buf[0] == -buf[1]:
        return
    mismatch(pg, what, desc, deadline)


def mismatch(pg, what, desc, deadline, extra=""):
    """The cold path of a detected mismatch: the ranks exchange their descriptions on the
    group's check communicator (the data communicator may hold unmatched traffic) and raise
    CollectiveMismatchError naming every rank's call. A rank that did not detect the mismatch
    does not join: the others then hit the timeout (the watchdog's error)."""
    mine = np.zeros(_DESC_BYTES, np.uint8)
    raw = describe(desc).encode()[:_DESC_BYTES]
    mine[:len(raw)] = np.frombuffer(raw, np.uint8)
    allb = np.zeros((pg.size(), _DESC_BYTES), np.uint8)
    _blocking(pg.check_comm, "Allgather", (mine, allb), deadline, what, pg)
    parts = []
    for r in range(pg.size()):
        text = bytes(allb[r]).rstrip(b"\0").decode(errors="replace")
        parts.append(f"rank {pg.ranks[r]}: {text}")
    raise CollectiveMismatchError(f"[{what}] the ranks of the group disagree: " + "; ".join(parts) + extra)


# ------------------------------------------------------------------ piggybacked check (INFO)
#
# Small all_reduce messages carry their own check: 4 leading elements derived from the
# fingerprint (a, b in 1..512) travel in the same message, so the check costs no extra round
# trip. SUM/AVG append (a, a*a, b, b*b): the sums equal (n a, n a*a, n b, n b*b) exactly
# (small integers: exact in float32/64 and int32/64) only when every rank's a and
# b are this rank's (sum (a_i - a)^2 = sum a_i^2 - 2 a sum a_i + n a^2 = 0). MAX/MIN append
# (a, -a, b, -b): the result equals the trailer only when all are equal. A rank with another
# op, dtype, count or collective reads other values (or MPI reports a truncated message):
# every rank that sees it raises CollectiveMismatchError. The price is a staging copy of
# the message in and out, cheaper than a round trip up to PIGGY_MAX bytes.

#: Largest all_reduce message (bytes) whose check rides inside the message.
PIGGY_MAX = 16 << 10  # as src/distributed/native.cc kPiggyMax (why: there)
_PIGGY_DT = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))
_TRAILERS = {}


def piggy_ok(dtype, opname, nbytes, size):
    """Whether all_reduce of ``dtype``/``opname`` and ``nbytes`` in a group of ``size`` ranks
    carries its check in the message (INFO level)."""
    # Two ranks only: a peer with another element count makes MPI report a truncated message,
    # and with two ranks (one exchange) both sides still finish the call and raise; with more,
    # MPI's multi-step algorithms leave the partners of the failing rank blocked (measured on
    # 4 ranks: the job ended in the watchdog's timeout). Larger groups use the fingerprint
    # all-reduce, whose messages have one size on every rank.
    return (0 < nbytes <= PIGGY_MAX and size == 2 and dtype in _PIGGY_DT
            and opname in ("SUM", "AVG", "MAX", "MIN"))


def _trailer(desc, dtype, opname, size):
    key = (desc, size)
    t = _TRAILERS.get(key)
    if t is None:
        h = _fingerprint(desc)
        a, b = 1 + (h & 511), 1 + ((h >> 9) & 511)
        if opname in ("SUM", "AVG"):
            send = np.array([a, a * a, b, b * b], dtype)
            want = send * size
        else:
            send = np.array([a, -a, b, -b], dtype)
            want = send
        if len(_TRAILERS) > 4096:
            _TRAILERS.clear()
        t = _TRAILERS[key] = (send, want.tobytes())
    return t


class _Stage:
    __slots__ = ("full", "head", "tail")

    def __init__(self, n, dtype):
        # The check words go first: a peer whose message is shorter (another count, or the
        # 16-byte fingerprint all-reduce of another collective) then overwrites them, while
        # the untouched end of a receive buffer could hold stale values of an earlier call.
        self.full = np.empty(n + 4, dtype)
        self.tail = self.full[:4]
        self.head = memoryview(self.full[4:]).cast("B")


def allreduce_piggy(pg, data, dtype, count, mop, desc, opname, deadline, what):
    """all_reduce in place of ``data`` (a writable byte memoryview of ``count`` elements of
    ``dtype``) with the check in the message: two byte copies, no extra round trip."""
    key = (dtype, count)
    st = pg.stages.get(key)
    if st is None:
        if len(pg.stages) > 64:
            pg.stages.clear()
        st = pg.stages[key] = _Stage(count, dtype)
    send, want = _trailer(desc, dtype, opname, pg._size)
    st.head[:] = data
    st.tail[...] = send
    MPI = mpi()
    try:
        if BLOCKING:
            watchdog.current = (deadline, what, pg)
            try:
                pg.comm.Allreduce(MPI.IN_PLACE, st.full, mop)
            finally:
                watchdog.current = None
        else:
            wait(pg.comm.Iallreduce(MPI.IN_PLACE, st.full, mop), deadline, what, pg)
    except MPI.Exception as e:
        mismatch(pg, what, desc, deadline, f" (MPI: {e})")
    except DistBackendError as e:  # the polled mode's wrapping of an MPI error
        if isinstance(e, DistTimeoutError):
            raise
        mismatch(pg, what, desc, deadline, f" ({e})")
    if st.tail.tobytes() != want:
        mismatch(pg, what, desc, deadline)
    data[:] = st.head
