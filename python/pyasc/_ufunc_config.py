"""NumPy's ``_core/_ufunc_config`` names: ``seterr``, ``geterr``, ``errstate``.

pyasc's device ops never warn or raise on floating-point errors (``1/0`` gives
``inf`` silently); these keep pyasc's own state (a context variable) for API
compatibility and change nothing else. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import contextlib as _contextlib
import contextvars as _contextvars

from ._helpers import _VE

__all__ = [
    "errstate", "seterr", "geterr",
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
