"""Isolated memory sub-pools (``pyasc.memory.SubPool``).

A thin layer over the runtime's ``asc::runtime::SubPool`` (see
include/asc/runtime/memory_pool.h): the C++ side owns the memory, the limit and the
routing; this module adds argument checks, the context-manager protocol (a per-thread
stack of scopes, since one sub-pool may be entered on several threads at once) and
closing when the handle is collected.
"""

from __future__ import annotations

import itertools
import operator
import threading
import weakref

from . import _C
from .errors import AscendMemoryError, AscendRuntimeError, AscendValueError, ErrorCode

__all__ = ["SubPool", "OutOfMemoryError"]

#: The error a sub-pool (or the device pool) raises when its limit is exceeded, under
#: PyTorch's name (``torch.cuda.OutOfMemoryError``); it is :class:`pyasc.AscendMemoryError`.
OutOfMemoryError = AscendMemoryError

_names = itertools.count(1)


def _close_native(native):
    try:
        native.close()
    except Exception:  # noqa: BLE001 - interpreter shutdown: nothing left to report to
        pass


# this thread's entered sub-pools, innermost last (SubPool.current())
_thread = threading.local()


class SubPool:
    """An isolated device memory pool with its own limit, cache and statistics.

    ``with pool:`` routes the device allocations made on this thread (arrays, model
    runs) to the sub-pool; blocks freed later - on any thread, also after the
    ``with`` - return to it, never to another session. Exceeding ``limit_bytes``
    raises :class:`OutOfMemoryError` (``pyasc.AscendMemoryError``, a ``MemoryError``)
    naming the sub-pool and its limit, and fails only allocations in this sub-pool.
    :meth:`close` returns its cached memory to the device at once and the rest when
    the last array using it is freed; it is called when the handle is collected.

    Parameters: ``limit_bytes`` (int >= 0, or None; 0/None = no limit) bounds the
    bytes the sub-pool reserves (in use + cached); ``name`` names it in errors and
    statistics (default ``"subpool-N"``).

    The sub-pool may be entered on several threads at once and nested (the innermost
    ``with`` wins). Work enqueued on a stream inside ``with pool:`` (kernels, copies,
    callbacks) runs in the pool on the stream's worker. Other threads are not routed:
    a thread started inside ``with pool:`` enters it itself, for example with
    ``cur = SubPool.current()`` before starting it and ``with cur:`` in it.
    """

    def __init__(self, limit_bytes=None, name=None):
        limit = _check_limit(limit_bytes)
        if name is None:
            name = f"subpool-{next(_names)}"
        if not isinstance(name, str) or not name or len(name) > 256 or not name.isprintable():
            raise AscendValueError(
                ErrorCode.INVALID_PARAM,
                f"[SubPool] name must be a printable string of 1-256 characters, got {name!r}",
            )
        self._native = _C._SubPool(name, limit)
        self._local = threading.local()
        self._finalizer = weakref.finalize(self, _close_native, self._native)

    @property
    def name(self):
        """The sub-pool's name."""
        return self._native.name

    @property
    def limit(self):
        """The limit in bytes, or None; assignable (None/0 removes it)."""
        return self._native.limit() or None

    @limit.setter
    def limit(self, nbytes):
        self._native.set_limit(_check_limit(nbytes))

    @property
    def closed(self):
        """Whether :meth:`close` was called."""
        return self._native.closed

    @property
    def drained(self):
        """Whether the sub-pool is closed and all its memory is back with the device."""
        return self._native.drained

    def stats(self):
        """The sub-pool's statistics: the keys of :func:`pyasc.memory_stats`
        (``allocated_bytes``, ``reserved_bytes``, ``limit_bytes``, ``oom_count``, ...)."""
        return self._native.stats()

    def memory_allocated(self):
        """Bytes in use in this sub-pool now."""
        return self._native.stats()["allocated_bytes"]

    def memory_reserved(self):
        """Bytes this sub-pool holds from the device now (in use plus cached)."""
        return self._native.stats()["reserved_bytes"]

    def empty_cache(self):
        """Returns the sub-pool's cached, unused memory to the device."""
        self._native.empty_cache()

    def close(self):
        """Refuses further allocations, returns cached memory now and the rest when
        the last block in use is freed. Idempotent."""
        self._finalizer()

    def __enter__(self):
        if self._native.closed:
            raise AscendRuntimeError(
                ErrorCode.INVALID_PARAM, f"[SubPool.__enter__] sub-pool '{self.name}' is closed"
            )
        scope = self._native.enter()
        stack = getattr(self._local, "scopes", None)
        if stack is None:
            stack = self._local.scopes = []
        stack.append(scope)
        entered = getattr(_thread, "entered", None)
        if entered is None:
            entered = _thread.entered = []
        entered.append(self)
        return self

    def __exit__(self, *exc):
        stack = getattr(self._local, "scopes", None)
        if not stack:
            raise AscendRuntimeError(
                ErrorCode.INVALID_PARAM,
                f"[SubPool.__exit__] sub-pool '{self.name}' was not entered on this thread",
            )
        stack.pop().end()
        entered = getattr(_thread, "entered", None)
        if entered:
            entered.pop()
        return False

    @staticmethod
    def current():
        """The sub-pool this thread is in (the innermost ``with``), or None."""
        entered = getattr(_thread, "entered", None)
        return entered[-1] if entered else None

    def __repr__(self):
        s = self._native.stats()
        state = "closed" if self._native.closed else "open"
        return (
            f"<pyasc.memory.SubPool '{self.name}' {state} allocated={s['allocated_bytes']} "
            f"reserved={s['reserved_bytes']} limit={s['limit_bytes'] or None}>"
        )


def _check_limit(nbytes):
    if nbytes is None:
        return 0
    try:
        n = operator.index(nbytes)
    except TypeError:
        raise AscendValueError(
            ErrorCode.INVALID_PARAM,
            f"[SubPool] limit_bytes must be an int number of bytes or None, got {nbytes!r}",
        ) from None
    if n < 0:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[SubPool] limit_bytes must be >= 0, got {n}")
    return n


def sub_pool_count():
    """Sub-pools the device pool knows (open, or closed with arrays still alive)."""
    return _C._sub_pool_count()
