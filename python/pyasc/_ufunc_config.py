"""NumPy's ``_core/_ufunc_config`` names: ``seterr``, ``geterr``, ``errstate``,
``seterrcall``, ``geterrcall``, ``setbufsize``, ``getbufsize``.

pyasc's device ops never warn or raise on floating-point errors (``1/0`` gives
``inf`` silently); these keep pyasc's own state (a context variable) for API
compatibility and change nothing else (the error callback is never called).
pyasc has no ufunc buffers either (its kernels work in tiles sized by the
device's unified buffer); ``setbufsize`` validates and keeps the value as
NumPy does. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import contextlib as _contextlib
import contextvars as _contextvars
import operator as _operator

from ._helpers import _TE, _VE

__all__ = [
    "errstate", "seterr", "geterr", "seterrcall", "geterrcall", "setbufsize", "getbufsize",
]


# ------------------------------------------------------------------ floating-point error state

_ERR_KEYS = ("divide", "over", "under", "invalid")
_ERR_VALUES = ("ignore", "warn", "raise", "call", "print", "log")
_ERR_DEFAULT = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
# Context-local like NumPy 2's (threads and asyncio tasks each see their own settings).
_errstate = _contextvars.ContextVar("pyasc_errstate", default=_ERR_DEFAULT)


def geterr():
    """The floating-point error handling settings (pyasc's device ops never warn or raise on
    floating-point errors; the settings are kept for API compatibility) (``numpy.geterr``)."""
    return dict(_errstate.get())


def seterr(all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002 - NumPy's name
    """Sets the floating-point error settings and returns the old ones. pyasc's device ops never
    warn or raise on floating-point errors, so this changes nothing else (``numpy.seterr``)."""
    old = geterr()
    _errstate.set(_updated(old, all, divide, over, under, invalid))
    return old


def _updated(state, all, divide, over, under, invalid):  # noqa: A002
    state = dict(state)
    new = dict(zip(_ERR_KEYS, (divide, over, under, invalid)))
    for k in _ERR_KEYS:
        v = new[k] if new[k] is not None else all
        if v is None:
            continue
        if v not in _ERR_VALUES:
            raise _VE(f"[seterr] invalid value {v!r} for {k!r}; expected one of {_ERR_VALUES}")
        state[k] = v
    return state


class errstate(_contextlib.ContextDecorator):  # noqa: N801 - NumPy's name
    """Context manager (and decorator) for the floating-point error settings; see :func:`seterr`
    (``numpy.errstate``)."""

    def __init__(self, *, call=None, all=None, divide=None, over=None, under=None, invalid=None):  # noqa: A002
        self.call = call
        self._kw = dict(all=all, divide=divide, over=over, under=under, invalid=invalid)

    def __enter__(self):
        self._token = _errstate.set(_updated(_errstate.get(), **self._kw))
        return self

    def __exit__(self, *exc):
        _errstate.reset(self._token)
        return False


_errcall = _contextvars.ContextVar("pyasc_errcall", default=None)
_bufsize = _contextvars.ContextVar("pyasc_bufsize", default=8192)


def geterrcall():
    """The floating-point error callback (``numpy.geterrcall``; pyasc never calls it)."""
    return _errcall.get()


def seterrcall(func):
    """Sets the floating-point error callback (a callable or an object with a ``write`` method) and
    returns the old one (``numpy.seterrcall``; pyasc's device ops never report floating-point errors,
    so it is never called)."""
    if func is not None and not callable(func) and not callable(getattr(func, "write", None)):
        raise _TE(f"[seterrcall] python object must be callable or have a callable write method, "
                  f"got {type(func).__name__}")
    old = _errcall.get()
    _errcall.set(func)
    return old


def getbufsize():
    """The ufunc buffer size setting, in elements (``numpy.getbufsize``; kept for API compatibility)."""
    return _bufsize.get()


def setbufsize(size):
    """Sets the ufunc buffer size setting and returns the old one (``numpy.setbufsize``; kept for API
    compatibility: pyasc's kernels size their tiles from the device's unified buffer)."""
    size = _operator.index(size)
    if size < 0:
        raise _VE(f"[setbufsize] buffer size must be non-negative, got {size}")
    if size < 16 or size > 10_000_000 or size % 16:  # NumPy's limits
        raise _VE(f"[setbufsize] buffer size {size} must be a multiple of 16 in [16, 10000000]")
    old = _bufsize.get()
    _bufsize.set(size)
    return old
