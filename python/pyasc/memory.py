"""Device memory: the caching pool's statistics and controls.

Device arrays get their memory from a caching pool: freed blocks are kept for
reuse instead of being returned to the system, so ``memory_reserved()`` (held
from the system) is at least ``memory_allocated()`` (in use by arrays).
``empty_cache()`` returns unused cached memory; ``set_memory_limit()`` caps
what the pool may hold, after which allocations raise
:class:`~pyasc.AscendMemoryError`. :class:`SubPool` is an isolated pool
with its own limit (``with pool:`` routes this thread's allocations to it), for
example one per server session.
"""

from __future__ import annotations

import operator

from . import _C
from ._subpool import OutOfMemoryError, SubPool, sub_pool_count
from .errors import AscendValueError, ErrorCode

__all__ = [
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_stats",
    "host_memory_stats",
    "memory_summary",
    "empty_cache",
    "set_memory_limit",
    "get_memory_limit",
    "reset_peak_memory_stats",
    "MemoryAllocator",
    "memory_allocator",
    "SubPool",
    "OutOfMemoryError",
    "sub_pool_count",
]


def memory_stats():
    """Statistics of the device memory pool as a dict.

    Keys: ``allocated_bytes``, ``peak_allocated_bytes``, ``reserved_bytes``,
    ``peak_reserved_bytes``, ``requested_bytes`` (unrounded sizes in use),
    ``allocation_count``, ``free_count``, ``cache_hits``, ``cache_misses``,
    ``os_allocations``, ``os_frees``, ``retries`` (allocations that emptied
    the cache and retried), ``oom_count``, ``active_blocks``,
    ``cached_blocks``, ``segments``, ``limit_bytes`` (0 = no limit).
    """
    return _C.memory_stats()


def host_memory_stats():
    """Statistics of the pinned host memory pool (the storage of
    :meth:`ndarray.pin_memory` copies) as a dict with the keys of :func:`memory_stats`
    (as ``torch.cuda.host_memory_stats``)."""
    return _C.host_memory_stats()


def _pin_memory(self):
    """A copy of this array in pinned host memory (C order; the pinned pool of
    :func:`host_memory_stats`), or the array itself when it is pinned already, as
    ``torch.Tensor.pin_memory``."""
    return self if _C._is_pinned(self) else _C._pin_memory(self)


def _is_pinned(self):
    """Whether this array's memory is in the pinned host pool (``torch.Tensor.is_pinned``)."""
    return _C._is_pinned(self)


_C.ndarray.pin_memory = _pin_memory
_C.ndarray.is_pinned = _is_pinned


def memory_allocated():
    """Bytes of device memory in use by arrays now."""
    return _C.memory_stats()["allocated_bytes"]


def max_memory_allocated():
    """Peak of :func:`memory_allocated` since start or the last :func:`reset_peak_memory_stats`."""
    return _C.memory_stats()["peak_allocated_bytes"]


def memory_reserved():
    """Bytes the pool holds from the system now (in use plus cached)."""
    return _C.memory_stats()["reserved_bytes"]


def max_memory_reserved():
    """Peak of :func:`memory_reserved` since start or the last :func:`reset_peak_memory_stats`."""
    return _C.memory_stats()["peak_reserved_bytes"]


def empty_cache():
    """Returns cached memory that no array uses to the system."""
    _C.empty_cache()


def set_memory_limit(nbytes):
    """Caps the bytes the pool may reserve; ``None`` or ``0`` removes the limit.

    Allocations that would exceed the limit first release cached memory and
    retry, then raise :class:`~pyasc.AscendMemoryError`. A limit below the
    memory in use is accepted (later allocations fail until memory is freed).
    The ``ASC_MEMORY_LIMIT`` environment variable sets an initial limit.
    """
    if nbytes is None:
        nbytes = 0
    try:
        nbytes = operator.index(nbytes)
    except TypeError:
        raise AscendValueError(
            ErrorCode.INVALID_PARAM,
            f"[set_memory_limit] limit must be an int number of bytes or None, got {nbytes!r}",
        ) from None
    if nbytes < 0:
        raise AscendValueError(
            ErrorCode.INVALID_PARAM, f"[set_memory_limit] limit must be >= 0, got {nbytes}"
        )
    _C.set_memory_limit(nbytes)


def get_memory_limit():
    """The pool's limit in bytes, or ``None`` when there is none."""
    return _C.get_memory_limit() or None


def reset_peak_memory_stats():
    """Resets the peaks to the current values and the counters (hits, retries, ...) to 0."""
    _C.reset_peak_memory_stats()


def memory_summary():
    """A human-readable table of the pool's statistics."""
    stats = _C.memory_stats()
    width = max(len(k) for k in stats)
    lines = ["pyasc device memory pool"]
    for key, value in stats.items():
        shown = _fmt_bytes(value) if key.endswith("_bytes") else str(value)
        lines.append(f"  {key:<{width}}  {shown}")
    return "\n".join(lines)


def _fmt_bytes(n):
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.2f} {unit} ({n} B)"


class MemoryAllocator:
    """The device memory pool as an object, for monitoring.

    Offers the module's functions as methods (``memory_allocated()``,
    ``memory_stats()``, ``empty_cache()``, ...) and the current values as
    properties (``allocated_bytes``, ``reserved_bytes``, ``limit``, ...).
    Use the shared instance ``asc.memory_allocator``.
    """

    memory_stats = staticmethod(memory_stats)
    memory_allocated = staticmethod(memory_allocated)
    max_memory_allocated = staticmethod(max_memory_allocated)
    memory_reserved = staticmethod(memory_reserved)
    max_memory_reserved = staticmethod(max_memory_reserved)
    memory_summary = staticmethod(memory_summary)
    empty_cache = staticmethod(empty_cache)
    set_memory_limit = staticmethod(set_memory_limit)
    get_memory_limit = staticmethod(get_memory_limit)
    reset_peak_memory_stats = staticmethod(reset_peak_memory_stats)

    @property
    def allocated_bytes(self):
        """Bytes in use now (same as :func:`memory_allocated`)."""
        return memory_allocated()

    @property
    def peak_allocated_bytes(self):
        """Peak bytes in use (same as :func:`max_memory_allocated`)."""
        return max_memory_allocated()

    @property
    def reserved_bytes(self):
        """Bytes held from the system now (same as :func:`memory_reserved`)."""
        return memory_reserved()

    @property
    def peak_reserved_bytes(self):
        """Peak bytes held from the system (same as :func:`max_memory_reserved`)."""
        return max_memory_reserved()

    @property
    def limit(self):
        """The pool's limit in bytes or None; assignable (None removes it)."""
        return get_memory_limit()

    @limit.setter
    def limit(self, nbytes):
        set_memory_limit(nbytes)

    @property
    def stats(self):
        """A snapshot of :func:`memory_stats`."""
        return memory_stats()

    def __repr__(self):
        s = memory_stats()
        limit = s["limit_bytes"] or None
        return (
            f"<pyasc.MemoryAllocator allocated={s['allocated_bytes']} "
            f"reserved={s['reserved_bytes']} peak_allocated={s['peak_allocated_bytes']} "
            f"limit={limit}>"
        )


memory_allocator = MemoryAllocator()
