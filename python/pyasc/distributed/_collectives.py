"""Collectives and point-to-point operations on pyasc arrays (torch.distributed's names).

Every operation works in place on pyasc arrays (NumPy arrays are accepted
too): the array's memory goes to MPI zero-copy through ``ndarray.numpy()``,
which first finishes the lazy work that produces the array or reads it, so a
collective always sees final values and cannot overtake earlier readers.
Non-contiguous arrays are staged through a contiguous copy and written back.

With ``async_op=True`` an operation (and ``isend``/``irecv``) is a task + event on
the calling thread's current stream (:func:`_on_stream`: later work on the stream
reads its results without a host wait) and returns a :class:`Work` handle;
without, it returns after completion (``recv`` returns the sender's rank). Each operation
gets the group's ``timeout``: past it, :class:`DistTimeoutError` is raised.
With the fingerprint check on (default; ``ASC_DISTRIBUTED_CHECK=0`` turns it
off), ranks that pass different shapes, dtypes, ops or roots raise
:class:`CollectiveMismatchError` on every rank before any data moves.
"""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np

from .. import _C
from ..errors import AscendTypeError, AscendValueError, ErrorCode
from . import _engine
from ._errors import DistBackendError
from ._group import ReduceOp, resolve
from ._group import _State as _group_State

_BF16 = _engine._BF16
_F16 = _engine._F16


__all__ = [
    "Work", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter",
    "reduce_scatter_tensor", "all_to_all_single", "all_to_all", "gather", "scatter", "send", "recv", "isend",
    "irecv", "barrier",
]

_ndarray = _C.ndarray


class Work:
    """The handle of an operation started with ``async_op=True`` (torch's ``Work``).

    ``wait()`` blocks until the operation is complete and its results are in the
    output arrays (raising its error, e.g. DistTimeoutError); ``is_completed()``
    tests without blocking (and finishes the operation when it is complete);
    ``is_success()``, ``exception()``, ``result()`` (the output arrays).
    MPI progresses nonblocking operations only inside MPI calls, so work makes
    progress while ``wait()``/``is_completed()`` run.
    """

    __slots__ = ("_reqs", "_finish", "_deadline", "_what", "_pg", "_outputs", "_done", "_error", "value")

    def __init__(self, reqs, finish, deadline, what, pg, outputs):
        self._reqs = reqs
        self._finish = finish
        self._deadline = deadline
        self._what = what
        self._pg = pg
        self._outputs = outputs
        self._done = False
        self._error = None
        self.value = None

    def _complete(self):
        self._reqs = ()
        if self._finish is not None:
            try:
                self.value = self._finish()
            except BaseException as e:
                self._error = e
        self._done = True

    def wait(self, timeout=None):
        """Waits for completion (``timeout`` in seconds or a timedelta replaces the group's
        deadline); returns True or raises the operation's error."""
        if not self._done:
            deadline = self._deadline
            if timeout is not None:
                secs = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
                deadline = time.monotonic() + secs
            try:
                for r in self._reqs:
                    _engine.wait(r, deadline, self._what, self._pg)
            except BaseException as e:
                self._error = e
                self._done = True
                self._reqs = ()
                raise
            self._complete()
        if self._error is not None:
            raise self._error
        return True

    def is_completed(self):
        """Whether the operation is complete (does not block)."""
        if not self._done:
            try:
                if not all(_engine.test(r, self._what) for r in self._reqs):
                    return False
            except BaseException as e:
                self._error = e
                self._done = True
                return True
            self._complete()
        return True

    def is_success(self):
        """True once completed without error."""
        return self.is_completed() and self._error is None

    def exception(self):
        """The operation's error, or None."""
        return self._error

    def result(self):
        """The output arrays of the operation (after :meth:`wait`)."""
        self.wait()
        return list(self._outputs)

    def __repr__(self):
        return f"Work({self._what}, completed={self._done})"


class _PyGate:
    """The gate of an async_op collective without the C module (``_native.Gate`` otherwise, see
    src/distributed/async_gate.h): who runs the body, once — ``wait()`` after ``claim()``, or
    the stream task, which waits for the end of wait()'s run (the stream's later work reads the
    results). A Python stream callback: it needs the GIL even to return."""

    __slots__ = ("_lock", "_done", "_waiter", "_task", "_pre")

    def __init__(self, task):
        self._lock = threading.Lock()  # taken (without blocking) by whoever runs the body
        self._done = False
        self._waiter = None  # a threading.Event the task waits on while wait() runs the body
        self._task = task
        self._pre = None  # an Event after the stream's earlier work (None: the stream was idle)

    def wait_ready(self):
        """Returns once the stream's work before the task has run."""
        pre, self._pre = self._pre, None
        if pre is not None:
            pre.synchronize()

    def claim(self):
        if not self._lock.acquire(False):
            return False
        self._task = None
        return True

    def finish(self):
        self._done = True
        w = self._waiter  # (the GIL orders these: finish sets _done before reading _waiter, _run the reverse)
        if w is not None:
            w.set()

    def done(self):
        return self._done

    def launch(self, prev=None):  # noqa: ARG002 - (the C gate's chain)
        from .. import stream as _stream
        s = _stream.current_stream()
        self._pre = None if s.query() else s.record_event()
        s.add_callback(self._run)

    def seal(self):
        pass

    def _run(self):
        if self._lock.acquire(False):
            task, self._task = self._task, None
            task()
            self.finish()
        elif not self._done:
            w = self._waiter = threading.Event()
            if not self._done:
                w.wait()


class _StreamWork(Work):
    """The Work of an ``async_op`` operation that runs as a task on a stream (see
    :func:`_on_stream`): ``wait()`` synchronises on the event recorded after the task,
    ``is_completed()`` queries it.

    The body runs once, on whichever thread claims it first through the Work's gate: the
    stream's worker (the task), or the caller's ``wait()`` (``_steal``) once the stream's work
    queued before the task has run (the gate's ``wait_ready()``: wait() returns after the task,
    hence after that work, anyway), if the worker has not started the task yet. Then ``wait()`` runs it inline, as a blocking call would, instead of
    waking the worker and sleeping until it ran (a thread hand-off each way, and the worker's
    turn at the GIL: ~19x mpi4py's blocking Allreduce at 4 KiB). The task, when the worker
    reaches it, finds the body claimed and waits for its end (so the stream's later work still
    reads the results); with the C module (``_native.Gate``) it does so without the GIL."""

    __slots__ = ("_event", "_body", "_gate", "_hold", "_steal")

    def __init__(self, what, pg, outputs, body=None, steal=False, hold=()):
        super().__init__((), None, None, what, pg, outputs)
        self._event = None
        self._body = body
        self._gate = None
        self._hold = hold  # the arrays the body's raw views read, until it ran
        self._steal = steal

    def _run(self):
        try:
            self.value = self._body()
        except BaseException as e:  # noqa: BLE001 - raised by wait()
            self._error = e
        self._body = None
        self._hold = None

    def wait(self, timeout=None):
        """Waits for the task (``timeout`` in seconds or a timedelta: DistTimeoutError past
        it); returns True or raises the operation's error."""
        if not self._done:
            gate = self._gate
            if timeout is None:
                if self._steal and not gate.done():
                    # the stream's earlier work (the group's previous collective among it): what
                    # the task waits for too, and wait() returns after the task's end anyway
                    gate.wait_ready()
                if self._steal and gate.claim():
                    # inline: the stream's earlier work has run
                    try:
                        self._run()
                    finally:
                        gate.finish()
                elif not gate.done():
                    self._event.synchronize()  # releases the GIL: the task needs it
            else:
                secs = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
                end = time.monotonic() + secs
                while not gate.done() and not self._event.query():
                    if time.monotonic() > end:
                        from ._errors import DistTimeoutError
                        raise DistTimeoutError(f"[{self._what}] not complete after {secs:.3g} s (Work.wait)")
                    time.sleep(0.0005)
            self._done = True
        if self._error is not None:
            raise self._error
        return True

    def is_completed(self):
        """Whether the task has run (does not block)."""
        if not self._done and (self._gate.done() or self._event.query()):
            self._done = True
        return self._done


def _on_stream(pg, what, outputs, body, ordered=True, keep=()):
    """The one mechanism of every ``async_op``/``isend``/``irecv`` operation: ``body()`` (the
    MPI traffic and the finishing copies) becomes a task on the calling thread's current
    stream, followed by an event; a :class:`Work` over that event is returned.

    The task runs after the work enqueued on the stream before it, and the stream's later
    work (lazy graphs flushed later, kernels, callbacks) after the task: a later op on the
    stream reads the results without a host wait, and unrelated work is never waited for.
    The caller has exported the buffers (``_host``: the pending work producing or reading
    them finished) and handed ``body`` raw views (``_raw``), not exports: while an export
    lives, the lazy graph reads an array at recording time, which would let the stream's
    later ops read it before the task ran. ``outputs`` (kept by the Work and the task;
    ``result()``) and ``keep`` (inputs, kept by the task) keep the memory alive.

    ``ordered`` (collectives): the group's async collectives keep their issue order on every
    rank, as MPI requires of a communicator: each task first waits for the group's previous
    one, whichever stream ran it, and the group's next blocking collective waits for them
    (_drain). Point-to-point requests are posted at the call instead (MPI matches them by
    source and tag, in program order; a task that waits for a send's completion before the
    peer's receive could even be posted would deadlock rendezvous-size messages) and their
    task only completes them. Errors of ``body`` (a mismatch, an MPI error, the polled mode's
    DistTimeoutError, all naming the operation) are raised by ``Work.wait()``.

    ``wait()`` may run ``body`` itself (see :class:`_StreamWork`) once the stream's work queued
    before the task has run (every condition the task waits for), if the worker has not
    started the task; ``is_completed()``/``wait(timeout)`` never run it (they must not block
    on the peers)."""
    from .. import stream as _stream

    s = _stream.current_stream()
    steal = _STEAL
    if ordered:
        prev = pg.last_async
        if prev is not None and not prev.query():
            s.wait_event(prev)
    work = _StreamWork(what, pg, outputs, body, steal, (outputs, keep))

    def task():
        work._run()

    native = _engine.NATIVE
    gate = None
    key = s.id
    if _GATE_C and native is not None and hasattr(native, "Gate"):
        # a stealable call leaves wait() the first claim for _GRACE_S (the worker claims without
        # the GIL; see src/distributed/async_gate.h), then the stream's worker runs it
        gate = native.Gate(task, _GRACE_S if steal else 0.0)
        tail = _TAILS.get(key)
        gate.launch(tail if type(tail) is type(gate) else None)  # a C callback on s (this thread's current stream)
    else:
        gate = _PyGate(task)
        gate.launch()
    work._gate = gate
    ev = work._event = s.record_event()
    gate.seal()
    _TAILS[key] = gate
    if ordered:
        pg.last_async = ev
        pg.last_work = work
        pg.hot = None
    return work


#: Whether an async_op Work may run its body in wait() (ASC_DISTRIBUTED_ASYNC_INLINE=0: never;
#: the stream's worker always runs it, as before).
_STEAL = _engine._env_flag("ASC_DISTRIBUTED_ASYNC_INLINE", True)
#: Whether the stream task is the C module's gate callback (no GIL unless it runs the body);
#: False: the Python gate (the tests run both)
_GATE_C = True
#: stream id -> the gate launched last on it (the C gate's ready() chain: one small entry per
#: stream that ran an async collective)
_TAILS = {}
#: How long the stream task of a stealable call leaves wait() the first claim (seconds): a later
#: start of a collective nobody waits for yet, against the hand-off when wait() comes at once.
_GRACE_S = 200e-6


def _drain(pg):
    """Waits for the group's async_op collectives issued so far (their stream tasks): a
    collective issued now then reaches MPI after them on every rank, as MPI requires."""
    ev = pg.last_async
    if ev is not None:
        last = pg.last_work
        if last is None or not last._gate.done():  # (their bodies run in issue order: the last ran, all did)
            ev.synchronize()
        pg.last_async = None
        pg.last_work = None
        pg._update_hot()


# ------------------------------------------------------------------ helpers

def _host(x, what, name, write, detach=False):
    """``(buffer, writeback)``: a C-contiguous NumPy array over ``x``'s memory (zero-copy,
    pending lazy work finished), or a contiguous copy plus the strided view to write back.
    ``detach`` (async_op): views of a pyasc array's memory are raw (``_raw``), not exports."""
    if isinstance(x, _ndarray):
        v = x.numpy()
    elif isinstance(x, np.ndarray):
        v = x
        detach = False
    else:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE,
                              f"[{what}] {name} must be a pyasc.ndarray, got {type(x).__name__}")
    if write and not v.flags.writeable:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] {name} is read-only (shape {v.shape})")
    if v.flags.c_contiguous:
        return (_raw(v) if detach else v), None
    return np.ascontiguousarray(v), ((_raw(v) if detach else v) if write else None)


def _out(x, what, name, detach=False):
    """A writable NumPy view (strided as ``x``) of output array ``x``'s memory."""
    b, back = _host(x, what, name, True, detach)
    return b if back is None else back


def _raw(v):
    """A NumPy array over the memory of export ``v`` (same shape and strides) that does not
    hold the export: the async_op task's view of a pyasc array (see _on_stream). Whoever holds
    it must keep the pyasc array alive."""
    if v.size == 0:
        return np.empty(v.shape, v.dtype)
    if v.flags.c_contiguous:  # the common case, ~3x cheaper than byte_bounds (3 vs 10 us a call)
        mem = (ctypes.c_char * v.nbytes).from_address(v.__array_interface__["data"][0])
        return np.frombuffer(mem, v.dtype).reshape(v.shape)
    from numpy.lib.array_utils import byte_bounds
    lo, hi = byte_bounds(v)
    mem = (ctypes.c_char * (hi - lo)).from_address(lo)
    return np.ndarray(v.shape, v.dtype, buffer=mem, offset=v.ctypes.data - lo, strides=v.strides)


def _reduce_op(op, what):
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, str) and op.upper() in ReduceOp.__members__:
        return ReduceOp[op.upper()]
    raise AscendValueError(ErrorCode.INVALID_PARAM,
                           f"[{what}] op must be a ReduceOp (SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR), "
                           f"got {op!r}")


def _run(pg, what, desc, calls, finish, async_op, outputs=(), pre=None, keep=()):
    """Fingerprint check (``desc``: a string or a tuple, formatted only when first seen), then
    ``pre(deadline, backoff)`` (more checks), then the MPI calls, then ``finish()``: at once, or
    for ``async_op`` as a task on the current stream (:func:`_on_stream`; a Work is returned)."""
    if async_op:
        def body():
            deadline = time.monotonic() + pg.timeout
            if desc is not None and _engine.CHECK:
                _engine.check_same(pg, what, desc, deadline, backoff=True)
            if pre is not None:
                pre(deadline, True)
            for name, args in calls:
                # nonblocking MPI waited for with sleeps: a blocking call would spin on the core
                # the caller's compute needs (one core per rank is common)
                _engine.wait_backoff(_engine.call(pg.comm, name, args, deadline, what, pg, True), deadline, what, pg)
            return None if finish is None else finish()

        return _on_stream(pg, what, outputs, body, keep=keep)
    if pg.last_async is not None:
        _drain(pg)
    deadline = time.monotonic() + pg.timeout
    if desc is not None and _engine.CHECK:
        _engine.check_same(pg, what, desc, deadline)
    if pre is not None:
        pre(deadline, False)
    reqs = []
    for name, args in calls:
        r = _engine.call(pg.comm, name, args, deadline, what, pg)
        if r is not None:
            reqs.append(r)
    for r in reqs:
        _engine.wait(r, deadline, what, pg)
    return None if finish is None else finish()


def _writer(buf, back, avg=0):
    """The finishing step of an in-place result: AVG's division, copy-back of a staged array."""
    if not avg and back is None:
        return None

    def finish():
        if avg:
            np.true_divide(buf, avg, out=buf)
        if back is not None:
            back[...] = buf

    return finish


def _rank_arg(pg, value, what, arg):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{what}] {arg} must be an int rank, got {value!r}")
    return pg.group_rank(int(value), what, arg)


def _sig(b):
    return f"{b.dtype} {tuple(b.shape)}"


def _list(xs, n, what, name):
    if not isinstance(xs, (list, tuple)):
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{what}] {name} must be a list of arrays, "
                              f"got {type(xs).__name__}")
    if len(xs) != n:
        raise AscendValueError(ErrorCode.INVALID_SHAPE, f"[{what}] {name} has {len(xs)} arrays, the group has "
                               f"{n} ranks")
    return list(xs)


def _same(b, ref, what, name):
    if b.dtype != ref.dtype or b.shape != ref.shape:
        raise AscendValueError(ErrorCode.INVALID_SHAPE,
                               f"[{what}] {name} is {_sig(b)}, expected {_sig(ref)}")


def _copy_out(views, src):
    """The finishing step of a gather into a list: ``views[i]`` (from ``_out``) gets ``src[i]``."""
    def finish():
        for i, d in enumerate(views):
            d[...] = src[i]
    return finish


# ------------------------------------------------------------------ collectives

_PLANS = {}


def _plan(op, dtype, what):
    """``(mpi op, average, mpi datatype, 16-bit view)`` for all_reduce of ``dtype`` with ``op``
    (cached: the per-call cost is one dict lookup)."""
    key = (op, dtype)
    p = _PLANS.get(key)
    if p is None:
        mop, avg = _engine.mpi_op(op, dtype, what)
        p = _PLANS[key] = (mop, avg, _engine.mpi_datatype(dtype), dtype in _engine._HALF)
    return p


#: ReduceOp -> the op code of the C path (src/distributed/native.cc OpCode).
_OP_CODES = {ReduceOp.SUM: 0, ReduceOp.AVG: 1, ReduceOp.PRODUCT: 2, ReduceOp.MIN: 3, ReduceOp.MAX: 4,
             ReduceOp.BAND: 5, ReduceOp.BOR: 6, ReduceOp.BXOR: 7}
_np_ndarray = np.ndarray


def _c_reduces(dtype, code):
    """Whether the C path reduces ``dtype`` with op ``code`` (src/distributed/native.cc op_of):
    integers every op but AVG; float32/64 SUM, AVG, PRODUCT (MAX/MIN are NumPy's NaN-propagating
    user ops here); float16 and bfloat16 SUM, AVG, PRODUCT, MAX, MIN by the module's own MPI ops
    (float16_ops.h: NumPy's float16 and ml_dtypes' bfloat16 rounding and NaN rule; bfloat16, which
    has no buffer format, as a uint16 view with the bf16 flag); complex SUM and AVG (PRODUCT:
    OpenMPI's complex multiply rounds otherwise than NumPy's). Not bool. A rank on the Python path
    checks with the C path's fingerprint exactly for these, so that it agrees with a peer whose
    call went through C."""
    if dtype == _BF16 or dtype == _F16:
        return code in (0, 1, 2, 3, 4)
    k = dtype.kind
    if k in "iu":
        return code != 1
    if k == "f":
        return code in (0, 1, 2)
    return k == "c" and code in (0, 1)
# by identity: an Enum's __hash__ is a Python-level call (~0.1 us on the hot path)
_OP_CODE_BY_ID = {id(k): v for k, v in _OP_CODES.items()}


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` over the group's ranks in place: afterwards every rank holds the
    reduction (``ReduceOp`` SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR).

    With ``async_op=True`` the operation is an event on the calling thread's current stream
    (see :class:`Work`)."""
    # The hot path of data parallelism: one C call (pyasc.distributed._native.entry, the first
    # step of every blocking collective with a C path) resolves the group, exports the buffer
    # (finishing the lazy work producing or reading it), runs the INFO check inside the
    # message, MPI_Allreduce with the GIL released, and AVG's division; a failure is raised
    # from there (_c_failed). It answers NotImplemented, having sent nothing, for what it does
    # not handle (16-bit floats, complex, bool, float MAX/MIN, non-contiguous or read-only
    # arrays, a bad group): the general path.
    fast = _engine.FAST
    if fast is not None and not async_op:
        r = fast(tensor, op, group)  # (entry's 3-argument form is all_reduce's)
        if r is not NotImplemented:
            return r
    pg = _group_State.world if group is None else None
    if pg is None or pg.broken is not None or pg.comm is None:
        pg = resolve(group, "all_reduce")
    if pg.last_async is not None and not async_op:
        _drain(pg)
    return _all_reduce_general(pg, tensor, op, async_op)


def _native_failed(pg, tensor, op, r):
    """The cold path of a failed C all_reduce (``r`` = (kind, MPI error code)): a mismatch
    exchange naming every rank's call, or the MPI error."""
    what = "all_reduce"
    kind, err = r
    MPI = _engine.mpi()
    text = MPI.Get_error_string(err) if err else ""
    if kind == 3:
        raise DistBackendError(f"[{what}] MPI error: {text}")
    deadline = time.monotonic() + pg.timeout
    n = tuple(tensor.shape) if _engine.CHECK == _engine.DETAIL else int(np.prod(tensor.shape, dtype=np.int64))
    desc = (what, tensor.dtype, n, _reduce_op(op, what)._name_)
    _engine.mismatch(pg, what, desc, deadline, f" (MPI: {text})" if kind == 2 else "")


def _native_fp(buf, code):
    """The C path's check fingerprint of an all_reduce of contiguous NumPy array ``buf``
    (bfloat16: format 'E', as the C path spells it)."""
    if buf.dtype == _BF16:
        return _engine.NATIVE.fingerprint("E", 2, buf.size, code)
    mv = memoryview(buf)
    try:
        return _engine.NATIVE.fingerprint(mv.format, mv.itemsize, buf.size, code)
    finally:
        mv.release()


def _all_reduce_general(pg, tensor, op, async_op):
    what = "all_reduce"
    if op.__class__ is not ReduceOp:
        op = _reduce_op(op, what)
    buf, back = _host(tensor, what, "tensor", True)
    mop, avg, mdt, half = _plan(op, buf.dtype, what)
    code = _OP_CODES[op]
    if _engine.NATIVE_FAST and not async_op and buf.dtype.kind in "biufc":  # (not bfloat16: no buffer format)
        # A staged (non-contiguous) array: the same C call as the other ranks' arrays, so that
        # the check words agree whatever the layout.
        r = _engine.NATIVE.allreduce(buf, pg.handle, code, pg._size, _engine.CHECK, pg.timeout, pg)
        if r is None:
            fin = _writer(buf, back)
            return None if fin is None else fin()
        if r is not NotImplemented:
            return _native_failed(pg, tensor, op, r)
    elif _engine.NATIVE_FAST and not async_op and buf.dtype == _BF16:
        # bfloat16 (no buffer format: NumPy cannot export it): its bytes as uint16, reduced in C
        # with ml_dtypes' rounding (the bf16 flag); NotImplemented for MAX/MIN (Python's user op)
        r = _engine.NATIVE.allreduce(buf.view(np.uint16), pg.handle, code, pg._size, _engine.CHECK, pg.timeout, pg,
                                     0, True)
        if r is None:
            fin = _writer(buf, back)
            return None if fin is None else fin()
        if r is not NotImplemented:
            return _native_failed(pg, tensor, op, r)
    desc = (what, buf.dtype, buf.size, op._name_) if _engine.CHECK == 1 else (what, buf.dtype, buf.shape, op._name_)
    fp = None
    if _engine.NATIVE is not None and _engine.CHECK == 1 and _c_reduces(buf.dtype, code):
        # what the C path would check for this call (a rank whose all_reduce runs here, e.g.
        # async_op, still agrees with a peer in the C path on the fingerprint all-reduce)
        fp = _native_fp(buf, code)
    if async_op:
        return _async_all_reduce(pg, what, desc, fp, buf, back, mop, pg.size() if avg else 0, tensor, op, code)
    # The piggybacked check in the blocking mode only: MPI's nonblocking (libnbc) algorithm
    # hung on a truncated message in the polled mode (2 ranks, 4 vs 5 elements).
    if (_engine.NATIVE is None and _engine.CHECK == 1 and _engine.BLOCKING
            and _engine.piggy_ok(buf.dtype, op._name_, buf.nbytes, pg._size)):
        deadline = time.monotonic() + pg.timeout
        flat = buf.reshape(-1)
        _engine.allreduce_piggy(pg, memoryview(flat).cast("B"), flat.dtype, flat.size, mop, desc, op._name_,
                                deadline, what)
        fin = _writer(buf, back, pg.size() if avg else 0)
        return None if fin is None else fin()
    deadline = time.monotonic() + pg.timeout
    if _engine.CHECK:
        _engine.check_same(pg, what, desc, deadline, fp)
    return _run(pg, what, None, (("Allreduce", (_engine.mpi().IN_PLACE, _engine.spec(buf), mop)),),
                _writer(buf, back, pg.size() if avg else 0), False, (tensor,))


def _async_all_reduce(pg, what, desc, fp, buf, back, mop, avg, tensor, op, code):
    """all_reduce with ``async_op=True``: a task on the calling thread's current stream
    (:func:`_on_stream`). The host reads the array after ``work.wait()``, as with torch."""
    if isinstance(tensor, _ndarray):
        # the task's views must not hold the export (see _on_stream)
        if back is None:
            buf = _raw(buf)
        else:
            back = _raw(back)

    def body(b=buf):
        # The C path waits with the GIL released (a Python-level wait loop would fight the
        # caller for the GIL at every test: measured, DataParallel's overlapped step several
        # times slower with one core per rank).
        r = NotImplemented
        native = _engine.NATIVE
        bf16 = b.dtype == _BF16
        if native is not None and code is not None and (bf16 or b.dtype.kind in "biufc"):
            try:
                # 3: blocking when the call carries its check in the message (small: the same
                # messages as a blocking peer's call), else nonblocking waited for with sleeps
                r = native.allreduce(b.view(np.uint16) if bf16 else b, pg.handle, code, pg._size, _engine.CHECK,
                                     pg.timeout, pg, 3 if _engine.BLOCKING else 2, bf16)
            except ValueError:
                r = NotImplemented
            if r is not None and r is not NotImplemented:
                if r[0] == 4:
                    _State_leak(b, tensor)
                    raise pg.fail_timeout(what, None)
                _native_failed(pg, tensor, op, r)
        if r is NotImplemented:
            deadline = time.monotonic() + pg.timeout
            if _engine.CHECK:
                _engine.check_same(pg, what, desc, deadline, fp, backoff=True)
            req = _engine.call(pg.comm, "Allreduce", (_engine.mpi().IN_PLACE, _engine.spec(b), mop),
                               deadline, what, pg, True)
            _engine.wait_backoff(req, deadline, what, pg)
            if avg:
                np.true_divide(b, avg, out=b)
        if back is not None:
            back[...] = b

    return _on_stream(pg, what, (tensor,), body)


def _start_all_reduce(buf, op, group):
    """all_reduce of NumPy host buffer ``buf`` started as a nonblocking MPI operation at the
    call (after the check), returning a :class:`Work` that MPI progresses in its
    ``is_completed()``/``wait()`` calls: DataParallel's buckets (host memory it fills itself:
    no stream dependency; the caller's thread drives the progress between gradients, where a
    stream task would wait for the GIL the backward holds)."""
    what = "all_reduce"
    pg = resolve(group, what)
    if pg.last_async is not None:
        _drain(pg)
    op = _reduce_op(op, what)
    mop, avg, mdt, half = _plan(op, buf.dtype, what)
    desc = (what, buf.dtype, buf.size, op._name_) if _engine.CHECK == 1 else (what, buf.dtype, buf.shape, op._name_)
    fp = None
    if _engine.NATIVE is not None and _engine.CHECK == 1 and _c_reduces(buf.dtype, _OP_CODES[op]):
        fp = _native_fp(buf, _OP_CODES[op])
    deadline = time.monotonic() + pg.timeout
    if _engine.CHECK:
        _engine.check_same(pg, what, desc, deadline, fp)
    req = _engine.call(pg.comm, "Allreduce", (_engine.mpi().IN_PLACE, _engine.spec(buf), mop), deadline, what, pg,
                       True)
    return Work([req], _writer(buf, None, pg.size() if avg else 0), deadline, what, pg, (buf,))


def _State_leak(*objs):  # noqa: N802
    """Keeps the buffers of a timed-out request alive for good (MPI may still write them)."""
    from ._group import _State
    _State.leaked.append(objs)


def _contiguous_writable(x):
    if x.__class__ is np.ndarray:
        return x.flags.c_contiguous and x.flags.writeable
    mv = memoryview(x)
    try:
        return mv.c_contiguous and not mv.readonly
    finally:
        mv.release()


#: coll() kinds of the C path (src/distributed/native.cc Coll)
_K_BCAST, _K_REDUCE, _K_ALLGATHER_T, _K_REDSCAT_T, _K_GATHER, _K_SCATTER = 1, 2, 3, 4, 5, 6
_K_A2A_SINGLE, _K_A2A = 7, 8  # (native.cc's alltoall kinds)


def _coll_failed(pg, what, r, desc):
    """The cold path of a failed C collective (``r`` = (kind, MPI error code)): the MPI error,
    or the mismatch exchange naming every rank's call (``desc``)."""
    kind, err = r
    text = _engine.mpi().Get_error_string(err) if err else ""
    if kind == 3:
        raise DistBackendError(f"[{what}] MPI error: {text}")
    if kind == 4:
        raise pg.fail_timeout(what, None)
    _engine.mismatch(pg, what, desc, time.monotonic() + pg.timeout, f" (MPI: {text})" if kind == 2 else "")


def _c_failed(pg, kind, r, a, b, root, op):
    """The cold path of a failed ``_native.entry`` call (``r`` = (kind, MPI error code)),
    called from C: raises the mismatch naming every rank's call, the MPI error or the timeout."""
    if kind == 0:
        return _native_failed(pg, a, op, r)
    if kind == _K_BCAST:
        what, desc = "broadcast", f"broadcast {a.dtype} {tuple(a.shape)} src={root}"
    elif kind == _K_REDUCE:
        what, desc = "reduce", f"reduce {a.dtype} {tuple(a.shape)} {op.name} dst={root}"
    elif kind == _K_ALLGATHER_T:
        what = "all_gather_into_tensor"
        desc = f"{what} {b.dtype} {tuple(b.shape)} -> {a.dtype} {tuple(a.shape)}"
    else:
        what = "reduce_scatter_tensor"
        desc = f"{what} {b.dtype} {tuple(b.shape)} -> {a.dtype} {tuple(a.shape)} {op.name}"
    return _coll_failed(pg, what, r, desc)


def _native_coll(pg, what, kind, a, b, root, code, desc, async_op, keep):
    """broadcast / reduce / all_gather_into_tensor / reduce_scatter_tensor / gather / scatter of
    the exported, contiguous NumPy arrays ``a`` (and ``b``) through the C path: at once (blocking mode), or
    for ``async_op`` as the stream task (waiting with sleeps; a call small enough for the
    in-message check blocks, so that it sends what a blocking peer sends). Returns
    NotImplemented (nothing sent) where the C path does not apply (bool reductions, float32/64
    MAX/MIN, complex PRODUCT, no C module; bfloat16 goes through C as a uint16 view with the bf16
    flag): the Python path then runs, on every rank alike."""
    native = _engine.NATIVE
    if native is None:
        return NotImplemented
    bf16 = a.dtype == _BF16
    # bfloat16 has no buffer format: its bytes as uint16, the type named by the bf16 flag
    av = a.view(np.uint16) if bf16 else a
    bv = b.view(np.uint16) if bf16 and b is not None else b

    def call(wait):
        r = native.coll(kind, av, bv, root, code, pg.handle, pg._size, pg._rank, _engine.CHECK, float(pg.timeout),
                        pg, wait, bf16)
        if r is not None and r is not NotImplemented:
            if r[0] == 4:
                _State_leak(a, b, keep)
            _coll_failed(pg, what, r, desc)
        return r

    if not async_op:
        if pg.last_async is not None:
            _drain(pg)
        # the polled mode (ASC_DISTRIBUTED_BLOCKING=0): nonblocking, DistTimeoutError at the deadline
        return call(0 if _engine.BLOCKING else 2)
    # whether the C path takes it decides the form on every rank alike (dtype, op): ask before
    # queueing (a call that cannot go through C is the Python path's task)
    if (a.dtype.kind not in "biufc" and not bf16) or (kind in (_K_REDUCE, _K_REDSCAT_T)
                                                        and not _c_reduces(a.dtype, code)):
        return NotImplemented

    def task():
        if call(3 if _engine.BLOCKING else 2) is NotImplemented:  # the check above is the C path's rule
            raise DistBackendError(f"[{what}] internal error: the C path declined {a.dtype} {a.shape}")

    return True, task


def broadcast(tensor, src, group=None, async_op=False):
    """Copies ``tensor`` of global rank ``src`` into ``tensor`` of every rank of the group."""
    what = "broadcast"
    fast = _engine.FAST  # the C path (see all_reduce)
    if fast is not None and not async_op:
        r = fast(_K_BCAST, tensor, None, src, None, group)
        if r is not NotImplemented:
            return r
    pg = resolve(group, what)
    root = _rank_arg(pg, src, what, "src")
    me = pg.rank() == root
    buf, back = _host(tensor, what, "tensor", not me, async_op)
    desc = (what, buf.dtype, buf.shape, "src", src)
    r = _native_coll(pg, what, _K_BCAST, buf, None, root, -1, desc, async_op, (tensor,))
    fin = _writer(buf, back)
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, (tensor,), _then(r[1], fin))
    return _run(pg, what, desc, (("Bcast", (_engine.spec(buf), root)),), fin, async_op, (tensor,))


def _then(body, fin):
    """A stream task: the C call, then the finishing step (copy-back of a staged array)."""
    if fin is None:
        def task():
            body()
    else:
        def task():
            body()
            fin()
    return task


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` over the group into ``tensor`` of global rank ``dst`` (the other
    ranks' arrays are left unchanged)."""
    what = "reduce"
    fast = _engine.FAST  # the C path (see all_reduce)
    if fast is not None and not async_op:
        r = fast(_K_REDUCE, tensor, None, dst, op, group)
        if r is not NotImplemented:
            return r
    pg = resolve(group, what)
    op = _reduce_op(op, what)
    root = _rank_arg(pg, dst, what, "dst")
    me = pg.rank() == root
    buf, back = _host(tensor, what, "tensor", me, async_op)
    mop, avg = _engine.mpi_op(op, buf.dtype, what)
    desc = f"{what} {_sig(buf)} {op.name} dst={dst}"
    fin = _writer(buf, back) if me else None
    r = _native_coll(pg, what, _K_REDUCE, buf, None, root, _OP_CODES[op], desc, async_op, (tensor,))
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, (tensor,), _then(r[1], fin))
    MPI = _engine.mpi()
    args = (MPI.IN_PLACE, _engine.spec(buf), mop, root) if me else (_engine.spec(buf), None, mop, root)
    return _run(pg, what, desc, (("Reduce", args),),
                _writer(buf, back, pg.size() if (avg and me) else 0), async_op, (tensor,))


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills ``tensor_list[i]`` of every rank with ``tensor`` of group rank i."""
    what = "all_gather"
    pg = resolve(group, what)
    n = pg.size()
    dst = _list(tensor_list, n, what, "tensor_list")
    send, _ = _host(tensor, what, "tensor", False, async_op)
    views = []
    for i, d in enumerate(dst):
        v = _out(d, what, f"tensor_list[{i}]", async_op)
        _same(v, send, what, f"tensor_list[{i}]")
        views.append(v)
    recv = np.empty((n,) + send.shape, send.dtype)
    desc = f"{what} {_sig(send)}"
    fin = _copy_out(views, recv)
    # the C path of all_gather_into_tensor into the staged recv, then the copies into the list
    r = _native_coll(pg, what, _K_ALLGATHER_T, recv, send, -1, -1, desc, async_op, (tensor,))
    if r is None:
        return fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, tuple(dst), _then(r[1], fin), keep=(tensor,))
    return _run(pg, what, desc, (("Allgather", (_engine.spec(send), _engine.spec(recv))),),
                fin, async_op, tuple(dst), keep=(tensor,))


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's ``input_tensor`` into ``output_tensor`` in rank order: its size is
    the group size times the input's (concatenated along dim 0, or stacked)."""
    what = "all_gather_into_tensor"
    fast = _engine.FAST  # the C path (see all_reduce)
    if fast is not None and not async_op:
        r = fast(_K_ALLGATHER_T, output_tensor, input_tensor, None, None, group)
        if r is not NotImplemented:
            return r
    pg = resolve(group, what)
    n = pg.size()
    send, _ = _host(input_tensor, what, "input_tensor", False, async_op)
    out, back = _host(output_tensor, what, "output_tensor", True, async_op)
    if out.dtype != send.dtype or out.size != n * send.size:
        raise AscendValueError(ErrorCode.INVALID_SHAPE,
                               f"[{what}] output_tensor is {_sig(out)}, expected {send.dtype} with "
                               f"{n} x {send.size} elements (input {_sig(send)})")
    desc = f"{what} {_sig(send)} -> {_sig(out)}"
    fin = _writer(out, back)
    r = _native_coll(pg, what, _K_ALLGATHER_T, out, send, -1, -1, desc, async_op, (output_tensor, input_tensor))
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, (output_tensor,), _then(r[1], fin), keep=(input_tensor,))
    return _run(pg, what, desc, (("Allgather", (_engine.spec(send), _engine.spec(out))),), fin, async_op,
                (output_tensor,), keep=(input_tensor,))


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``input_list[i]`` over the ranks into ``output`` of group rank i."""
    what = "reduce_scatter"
    pg = resolve(group, what)
    op = _reduce_op(op, what)
    n = pg.size()
    src = _list(input_list, n, what, "input_list")
    out, back = _host(output, what, "output", True, async_op)
    parts = []
    for i, s in enumerate(src):
        b, _ = _host(s, what, f"input_list[{i}]", False)
        _same(b, out, what, f"input_list[{i}]")
        parts.append(b)
    send = np.stack(parts) if parts else np.empty((0,), out.dtype)  # a copy: no export kept
    del parts, b
    mop, avg = _engine.mpi_op(op, out.dtype, what)
    desc = f"{what} {_sig(out)} {op.name}"
    # the C path of reduce_scatter_tensor from the stacked inputs (AVG divided there)
    fin = _writer(out, back)
    r = _native_coll(pg, what, _K_REDSCAT_T, out, send, -1, _OP_CODES[op], desc, async_op, (output,))
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, (output,), _then(r[1], fin), keep=(send,))
    return _run(pg, what, desc, (("Reduce_scatter_block", (_engine.spec(send), _engine.spec(out), mop)),),
                _writer(out, back, n if avg else 0), async_op, (output,))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):  # noqa: A002
    """Reduces ``input`` (group size times ``output``'s size, rank-ordered chunks) over the
    ranks; group rank i gets the reduced chunk i in ``output``."""
    what = "reduce_scatter_tensor"
    fast = _engine.FAST  # the C path (see all_reduce)
    if fast is not None and not async_op:
        r = fast(_K_REDSCAT_T, output, input, None, op, group)
        if r is not NotImplemented:
            return r
    pg = resolve(group, what)
    op = _reduce_op(op, what)
    n = pg.size()
    send, _ = _host(input, what, "input", False, async_op)
    out, back = _host(output, what, "output", True, async_op)
    if out.dtype != send.dtype or send.size != n * out.size:
        raise AscendValueError(ErrorCode.INVALID_SHAPE,
                               f"[{what}] input is {_sig(send)}, expected {out.dtype} with {n} x {out.size} "
                               f"elements (output {_sig(out)})")
    mop, avg = _engine.mpi_op(op, out.dtype, what)
    desc = f"{what} {_sig(send)} -> {_sig(out)} {op.name}"
    fin = _writer(out, back)
    r = _native_coll(pg, what, _K_REDSCAT_T, out, send, -1, _OP_CODES[op], desc, async_op, (output, input))
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, (output,), _then(r[1], fin), keep=(input,))
    return _run(pg, what, desc, (("Reduce_scatter_block", (_engine.spec(send), _engine.spec(out), mop)),),
                _writer(out, back, n if avg else 0), async_op, (output,), keep=(input,))


def _check_splits(pg, what, send_counts, recv_counts, deadline, backoff=False):
    """Each rank's receive counts must be what the others send it: one all-to-all of the
    counts, one all-reduce of the verdict (so every rank raises)."""
    MPI = _engine.mpi()
    got = np.empty(pg.size(), np.int64)
    _engine.complete(pg.comm, "Alltoall", (np.asarray(send_counts, np.int64), got), deadline, what, pg, backoff)
    ok = np.array([1 if np.array_equal(got, np.asarray(recv_counts, np.int64)) else 0], np.int64)
    bad = np.array([-1 if ok[0] else pg.ranks[pg.rank()]], np.int64)
    _engine.complete(pg.comm, "Allreduce", (MPI.IN_PLACE, bad, MPI.MAX), deadline, what, pg, backoff)
    if bad[0] >= 0:
        from ._errors import CollectiveMismatchError
        raise CollectiveMismatchError(
            f"[{what}] the split sizes do not match across ranks: rank {int(bad[0])} expects other element "
            "counts than its peers send" + (f" (here: expected {list(recv_counts)}, sent to us {got.tolist()})"
                                              if not ok[0] else ""))


def _splits(sizes, total, n, what, name):
    if sizes is None or len(sizes) == 0:
        if total % n:
            raise AscendValueError(ErrorCode.INVALID_SHAPE,
                                   f"[{what}] dim 0 of {name} ({total}) is not divisible by the group size {n}")
        return [total // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or any(s < 0 for s in sizes) or sum(sizes) != total:
        raise AscendValueError(ErrorCode.INVALID_SHAPE,
                               f"[{what}] {name}_split_sizes {sizes} must be {n} non-negative sizes summing to "
                               f"dim 0 of {name} ({total})")
    return sizes


def _split_check(pg, what, desc, scount, rcount):
    """The checks of the all-to-alls (``_run``'s ``pre``): the fingerprint, then the counts."""
    if not _engine.CHECK:
        return None

    def pre(deadline, backoff):
        _engine.check_same(pg, what, desc, deadline, backoff=backoff)
        _check_splits(pg, what, scount, rcount, deadline, backoff)

    return pre


def _displs(counts):
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()


def _native_a2a(pg, what, kind, send, recv, scount, rcount, row):
    """all_to_all_single (7) / all_to_all (8) through the C path (one call: the fingerprint
    all-reduce, the count-matrix all-reduce, MPI_Alltoallv of bytes), blocking mode only. Every
    rank with the C module takes it for every blocking call whatever its split form (see
    src/distributed/native.cc), so the ranks agree on the messages. NotImplemented: nothing was
    sent (no C module, polled mode, groups over 64 ranks: alike on every rank)."""
    native = _engine.NATIVE
    if native is None or not _engine.BLOCKING:
        return NotImplemented
    if pg.last_async is not None:
        _drain(pg)
    if send.dtype == _BF16:  # no buffer format: the same bytes as uint16
        send, recv = send.view(np.uint16), recv.view(np.uint16)
    r = native.alltoall(kind, send, recv, scount, rcount, pg.handle, pg._size, pg._rank, _engine.CHECK,
                        float(pg.timeout), (pg, row))
    if r is None or r is NotImplemented:
        return r
    if r[0] == 5:
        from ._errors import CollectiveMismatchError
        raise CollectiveMismatchError(
            f"[{what}] the split sizes do not match across ranks: rank {pg.ranks[r[1]]} expects other element "
            f"counts than its peers send (here: sending {list(scount)}, expecting {list(rcount)})")
    return _coll_failed(pg, what, r, f"{what} {send.dtype} row {row}")


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,  # noqa: A002
                      async_op=False):
    """Splits ``input`` along dim 0 (equally, or by ``input_split_sizes``) and sends piece i to
    group rank i; ``output`` receives the pieces in rank order (``output_split_sizes``)."""
    what = "all_to_all_single"
    pg = resolve(group, what)
    n = pg.size()
    send, _ = _host(input, what, "input", False, async_op)
    out, back = _host(output, what, "output", True, async_op)
    if send.ndim == 0 or out.ndim == 0 or send.dtype != out.dtype or send.shape[1:] != out.shape[1:]:
        raise AscendValueError(ErrorCode.INVALID_SHAPE,
                               f"[{what}] input {_sig(send)} and output {_sig(out)} need the same dtype and the "
                               "same shape after dim 0")
    row = int(np.prod(send.shape[1:], dtype=np.int64))
    scount = [s * row for s in _splits(input_split_sizes, send.shape[0], n, what, "input")]
    rcount = [s * row for s in _splits(output_split_sizes, out.shape[0], n, what, "output")]
    if not async_op:
        fin = _writer(out, back)
        r = _native_a2a(pg, what, _K_A2A_SINGLE, send, out, scount, rcount, row)
        if r is None:
            return None if fin is None else fin()
    s, r = _engine.spec(send), _engine.spec(out)
    args = ([s[0], (scount, _displs(scount)), s[1]], [r[0], (rcount, _displs(rcount)), r[1]])
    return _run(pg, what, None, (("Alltoallv", args),), _writer(out, back), async_op, (output,),
                _split_check(pg, what, f"{what} {send.dtype} row {send.shape[1:]}", scount, rcount), keep=(input,))


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Sends ``input_tensor_list[i]`` to group rank i, which receives it in
    ``output_tensor_list[sender]``."""
    what = "all_to_all"
    pg = resolve(group, what)
    n = pg.size()
    outs = _list(output_tensor_list, n, what, "output_tensor_list")
    ins = _list(input_tensor_list, n, what, "input_tensor_list")
    sbufs = [_host(x, what, f"input_tensor_list[{i}]", False)[0] for i, x in enumerate(ins)]
    views = [_out(x, what, f"output_tensor_list[{i}]", async_op) for i, x in enumerate(outs)]
    dt = sbufs[0].dtype
    for b in sbufs + views:
        if b.dtype != dt:
            raise AscendValueError(ErrorCode.INVALID_DTYPE, f"[{what}] arrays of dtypes {dt} and {b.dtype}")
    scount = [b.size for b in sbufs]
    rcount = [b.size for b in views]
    send = np.concatenate([b.reshape(-1) for b in sbufs]) if n else np.empty(0, dt)  # a copy: no export kept
    del sbufs
    recv = np.empty(sum(rcount), dt)
    rd = _displs(rcount)
    s, r = _engine.spec(send), _engine.spec(recv)

    def finish():
        for i, v in enumerate(views):
            v[...] = recv[rd[i]:rd[i] + rcount[i]].reshape(v.shape)

    if not async_op and _native_a2a(pg, what, _K_A2A, send, recv, scount, rcount, 1) is None:
        return finish()
    return _run(pg, what, None, (("Alltoallv", ([s[0], (scount, _displs(scount)), s[1]], [r[0], (rcount, rd), r[1]])),),
                finish, async_op, tuple(outs), _split_check(pg, what, f"{what} {dt}", scount, rcount))


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Gathers ``tensor`` of every rank into ``gather_list`` (group-rank order) on global
    rank ``dst``; other ranks pass ``gather_list=None``."""
    what = "gather"
    pg = resolve(group, what)
    root = _rank_arg(pg, dst, what, "dst")
    send, _ = _host(tensor, what, "tensor", False, async_op)
    recv, fin, outs = None, None, ()
    if pg.rank() == root:
        outs = _list(gather_list, pg.size(), what, "gather_list")
        views = []
        for i, d in enumerate(outs):
            v = _out(d, what, f"gather_list[{i}]", async_op)
            _same(v, send, what, f"gather_list[{i}]")
            views.append(v)
        recv = np.empty((pg.size(),) + send.shape, send.dtype)
        fin = _copy_out(views, recv)
    elif gather_list:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] gather_list must be None on non-dst ranks")
    desc = f"{what} {_sig(send)} dst={dst}"
    # the C path (one call: the check, MPI_Gather of bytes into recv on the root; 2-rank small
    # calls in the XOR form), then the copies into gather_list
    r = _native_coll(pg, what, _K_GATHER, send, recv, root, -1, desc, async_op, (tensor,))
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, tuple(outs), _then(r[1], fin), keep=(tensor,))
    return _run(pg, what, desc,
                (("Gather", (_engine.spec(send), None if recv is None else _engine.spec(recv), root)),),
                fin, async_op, tuple(outs), keep=(tensor,))


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Copies ``scatter_list[i]`` of global rank ``src`` into ``tensor`` of group rank i;
    other ranks pass ``scatter_list=None``."""
    what = "scatter"
    pg = resolve(group, what)
    root = _rank_arg(pg, src, what, "src")
    out, back = _host(tensor, what, "tensor", True, async_op)
    send = None
    if pg.rank() == root:
        ins = _list(scatter_list, pg.size(), what, "scatter_list")
        parts = []
        for i, s in enumerate(ins):
            b = _host(s, what, f"scatter_list[{i}]", False)[0]
            _same(b, out, what, f"scatter_list[{i}]")
            parts.append(b)
        send = np.stack(parts)  # a copy: no export kept
        del parts, b
    elif scatter_list:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] scatter_list must be None on non-src ranks")
    desc = f"{what} {_sig(out)} src={src}"
    fin = _writer(out, back)
    r = _native_coll(pg, what, _K_SCATTER, out, send, root, -1, desc, async_op, (tensor,))  # (see gather)
    if r is None:
        return None if fin is None else fin()
    if r is not NotImplemented:
        return _on_stream(pg, what, (tensor,), _then(r[1], fin))
    return _run(pg, what, desc,
                (("Scatter", (None if send is None else _engine.spec(send), _engine.spec(out), root)),),
                fin, async_op, (tensor,))


def barrier(group=None, async_op=False, device_ids=None):
    """Waits until every rank of the group has reached the barrier (``async_op``: a task on
    the current stream, after the group's earlier async collectives)."""
    what = "barrier"
    pg = resolve(group, what)
    native = _engine.NATIVE
    if native is not None and not async_op and _engine.BLOCKING:
        if pg.last_async is not None:
            _drain(pg)
        # MPI_Barrier with the GIL released under the watchdog slot: what the Python path sends
        r = native.barrier(pg.handle, float(pg.timeout), pg)
        return None if r is None else _coll_failed(pg, what, r, what)
    return _run(pg, what, None, (("Barrier", ()),), None, async_op)


# ------------------------------------------------------------------ point to point

def _tag(tag, what):
    t = int(tag)
    if t < 0 or t > 32767:  # MPI guarantees tags up to 32767
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] tag {tag} outside [0, 32767]")
    return t


def _p2p_work(pg, what, req, finish, deadline, tensor, on_stream):
    """The Work of a posted point-to-point request: a task on the current stream that completes
    it (isend/irecv, :func:`_on_stream`), or a Work the caller's wait() drives (send/recv:
    the caller blocks anyway, so no stream is involved and its queued work is not waited for)."""
    if not on_stream:
        return Work([req], finish, deadline, what, pg, (tensor,))

    def body():
        _engine.wait_backoff(req, deadline, what, pg)
        return None if finish is None else finish()

    return _on_stream(pg, what, (tensor,), body, ordered=False)


def _isend(tensor, dst, group, tag, on_stream, what):
    pg = resolve(group, what)
    peer = _rank_arg(pg, dst, what, "dst")
    buf, _ = _host(tensor, what, "tensor", False, on_stream)
    deadline = time.monotonic() + pg.timeout
    MPI = _engine.mpi()
    try:
        req = pg.comm.Isend(_engine.spec(buf), peer, _tag(tag, what))
    except MPI.Exception as e:
        raise DistBackendError(f"[{what}] MPI error: {e}") from None
    return _p2p_work(pg, what, req, None, deadline, tensor, on_stream)


def _irecv(tensor, src, group, tag, on_stream, what):
    pg = resolve(group, what)
    MPI = _engine.mpi()
    peer = MPI.ANY_SOURCE if src is None else _rank_arg(pg, src, what, "src")
    buf, back = _host(tensor, what, "tensor", True, on_stream)
    deadline = time.monotonic() + pg.timeout
    status = MPI.Status()
    sp = _engine.spec(buf)
    try:
        req = pg.comm.Irecv(sp, peer, _tag(tag, what))
    except MPI.Exception as e:
        raise DistBackendError(f"[{what}] MPI error: {e}") from None
    holder = [req]

    def finish():
        n = status.Get_count(sp[1])
        if n != buf.size:
            raise AscendValueError(ErrorCode.INVALID_SHAPE,
                                   f"[{what}] received {n} elements from rank {pg.ranks[status.Get_source()]}, "
                                   f"tensor is {_sig(buf)}")
        if back is not None:
            back[...] = buf
        return pg.ranks[status.Get_source()]

    class _Req:  # Test with the status, so finish() can read the source and count
        def Test(self):  # noqa: N802 - mpi4py's name
            try:
                return holder[0].Test(status)
            except MPI.Exception as e:
                if e.Get_error_class() == MPI.ERR_TRUNCATE:
                    raise AscendValueError(ErrorCode.INVALID_SHAPE,
                                           f"[{what}] the message is larger than tensor {_sig(buf)}") from None
                raise

    return _p2p_work(pg, what, _Req(), finish, deadline, tensor, on_stream)


def isend(tensor, dst, group=None, tag=0):
    """Starts sending ``tensor`` to global rank ``dst``; returns a :class:`Work`. The send is
    posted at the call; its completion is a task + event on the current stream (later work
    there may overwrite ``tensor``)."""
    return _isend(tensor, dst, group, tag, True, "isend")


def irecv(tensor, src=None, group=None, tag=0):
    """Starts receiving into ``tensor`` from global rank ``src`` (None: any rank); returns a
    :class:`Work`. The receive is posted at the call; its completion is a task + event on the
    current stream (later work there reads the message). The task checks the message filled
    ``tensor`` exactly (else ``wait()`` raises); the sender's global rank is then
    ``work.value``."""
    return _irecv(tensor, src, group, tag, True, "irecv")


def send(tensor, dst, group=None, tag=0):
    """Sends ``tensor`` to global rank ``dst`` and waits until the buffer may be reused."""
    _isend(tensor, dst, group, tag, False, "send").wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives into ``tensor`` from global rank ``src`` (None: any); returns the sender's
    global rank."""
    w = _irecv(tensor, src, group, tag, False, "recv")
    w.wait()
    return w.value
