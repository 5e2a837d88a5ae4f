"""Streams and events.

A :class:`Stream` is an in-order asynchronous queue of device work; work on
different streams runs concurrently. Each thread has its own default stream
and a *current* stream (the default unless changed with ``with stream:``)::

    s = asc.Stream()
    with s:                      # s is current for this thread
        ...                      # work enqueued here goes to s
    e = s.record_event()
    other.wait_event(e)          # other's later work waits for s's work so far
    asc.synchronize()            # wait for every stream

Errors of asynchronous work (a failed kernel, an exception in a host
callback) are stored on the stream and raised, as :class:`~pyasc.AscendError`
subclasses, by the stream's next ``synchronize()``.
"""

from __future__ import annotations

from . import _C

__all__ = [
    "Stream",
    "Event",
    "create_stream",
    "current_stream",
    "default_stream",
    "set_current_stream",
    "synchronize",
]

Stream = _C.Stream
Event = _C.Event


def create_stream():
    """Creates a new :class:`Stream` (same as ``asc.Stream()``)."""
    return Stream()


def current_stream():
    """The calling thread's current :class:`Stream`.

    Returns a new handle each call; handles compare equal (``==``) when they
    refer to the same stream.
    """
    return _C.current_stream()


def default_stream():
    """The calling thread's default :class:`Stream` (each thread has its own)."""
    return _C.default_stream()


def set_current_stream(stream):
    """Makes ``stream`` current for the calling thread; ``None`` restores the default.

    Prefer ``with stream:``, which restores the previous stream on exit.
    """
    _C.set_current_stream(stream)


def synchronize():
    """Waits for all work on every stream; raises the first stored error."""
    _C.synchronize()
