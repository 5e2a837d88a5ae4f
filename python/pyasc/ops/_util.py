"""Helpers shared by the asc.ops family modules (one copy: argument normalisation and errors)."""

from __future__ import annotations

import operator as _operator


def _asc():
    # pyasc imports asc.ops while it initialises: look the package up at call time.
    import pyasc

    return pyasc


def _err(cls, code, msg):
    """An AscendError subclass ``cls`` (by name) with ErrorCode ``code`` (by name) and ``msg``."""
    e = _asc().errors
    return getattr(e, cls)(getattr(e.ErrorCode, code), msg)


def _tuple(v, n, name, op, allow_none=False):
    """torch's _single/_pair/_triple: an int repeated, or a sequence of n ints."""
    if v is None and allow_none:
        return []
    if isinstance(v, (list, tuple)):
        if len(v) == 0 and allow_none:
            return []
        if len(v) == 1:
            v = tuple(v) * n
        if len(v) != n:
            raise _err("AscendValueError", "INVALID_PARAM", f"[{op}] {name} must be an int or a tuple of {n} ints, "
                                                            f"got {tuple(v)!r}")
        try:
            return [_operator.index(e) for e in v]
        except TypeError:
            raise _err("AscendTypeError", "INVALID_PARAM", f"[{op}] {name} must contain ints, got {tuple(v)!r}") from None
    try:
        return [_operator.index(v)] * n
    except TypeError:
        raise _err("AscendTypeError", "INVALID_PARAM",
                   f"[{op}] {name} must be an int or a tuple of ints, got {type(v).__name__}") from None

