"""Lazy evaluation and fusion controls.

Array operations are recorded into the graph of the current stream
(``with asc.Stream():``) and run, fused, on that stream -- asynchronously --
when a value is observed (``numpy()``, printing, ``item()``, ``asc.eval``,
``asc.synchronize()``, ``stream.synchronize()``...) or when the pending graph
reaches :func:`max_pending_nodes` nodes. Observing a value waits for exactly
the work producing it; independent work on two streams overlaps. ``asc.set_eager(True)`` (or ``PYASC_EAGER=1``
in the environment) runs op by op instead; both modes give the same results.

Graph dumps: ``ASCEND_DUMP_GRAPH=1`` with ``ASCEND_DUMP_GRAPH_PATH`` (default
``./graph_dump``), or :func:`set_graph_dump`; the format is documented in
``docs/graph_dump.md``.
"""

from __future__ import annotations

import contextlib as _contextlib

from . import _C

__all__ = [
    "eval",
    "flush",
    "set_eager",
    "is_eager",
    "eager",
    "pending_nodes",
    "max_pending_nodes",
    "set_max_pending_nodes",
    "graph_stats",
    "set_graph_dump",
]


# eval(*arrays): materialises ``arrays`` and waits for them; returns them
# (``asc.eval(x)`` is ``x``, ``asc.eval(x, y)`` is ``(x, y)``). Implemented in
# C++ (one call: it is on the small-graph fast path).
eval = _C.lazy_eval  # noqa: A001 - the documented name (asc.eval)


def flush(stream=None):
    """Starts the pending graph of ``stream`` (the current stream if None) on
    that stream and returns at once: the work runs asynchronously; observing a
    result (or ``stream.synchronize()``) waits for it."""
    _C.graph_flush(stream)


def set_eager(eager=True):
    """Runs ops one by one (``True``) or records and fuses them (``False``).

    Switching to eager mode first materialises everything pending. The
    setting is process-wide.
    """
    _C.set_eager(bool(eager))


def is_eager():
    """Whether ops run one by one (``PYASC_EAGER=1`` or :func:`set_eager`)."""
    return _C.is_eager()


@_contextlib.contextmanager
def eager(enabled=True):
    """Context manager: eager (or lazy) mode inside the block, restored after."""
    previous = _C.is_eager()
    _C.set_eager(bool(enabled))
    try:
        yield
    finally:
        _C.set_eager(previous)


def pending_nodes():
    """Number of nodes pending in the graph of the calling thread's current stream."""
    return _C.graph_pending_nodes()


def max_pending_nodes():
    """The pending graph size bound: a graph this large runs by itself."""
    return _C.graph_max_nodes()


def set_max_pending_nodes(n):
    """Sets the pending graph size bound (nodes, >= 1; ``ASC_GRAPH_MAX_NODES``)."""
    _C.graph_set_max_nodes(int(n))


def graph_stats():
    """Counters since process start: nodes recorded/run/dead, graphs and groups
    run, program cache hits/misses, flushes caused by the size bound, and
    ``passes_fired`` (subgraphs rewritten by graph passes, e.g. one per GeLU
    subgraph turned into a Gelu node; 0 with ``ASC_GRAPH_PASSES=0``) with its
    per-pass split ``passes_fired_by_pass`` (``{"gelu": n}``)."""
    return dict(_C.graph_stats())


def set_graph_dump(enabled=True, path=None):
    """Turns graph dumps on or off at run time (``path``: output directory)."""
    _C.graph_set_dump(bool(enabled), "" if path is None else str(path))
