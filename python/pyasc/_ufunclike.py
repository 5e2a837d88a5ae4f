"""NumPy's ``lib/_ufunclike_impl`` names: ``fix``, ``isposinf``, ``isneginf``.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

from . import _C
from ._helpers import _TE, _arr, _kind, _to_out

__all__ = [
    "fix", "isposinf", "isneginf",
]


def fix(x, out=None):
    """Round towards zero (``numpy.fix``; integers unchanged)."""
    xv = _arr(x)
    if _kind(xv) in "biu":
        return _to_out(_C.astype(xv, xv.dtype), out)
    return _to_out(_C.trunc(xv), out)


def _isinf_signed(x, out, positive, name):
    xv = _arr(x)
    if _kind(xv) == "c":
        raise _TE(f"[{name}] This operation is not supported for complex values because it would be ambiguous.")
    side = _C.greater(xv, 0) if positive else _C.less(xv, 0)
    return _to_out(_C.logical_and(_C.isinf(xv), side), out)


def isposinf(x, out=None):
    """Elementwise whether ``x`` is +inf (``numpy.isposinf``; bool result, False for integers;
    complex input is a TypeError)."""
    return _isinf_signed(x, out, True, "isposinf")


def isneginf(x, out=None):
    """Elementwise whether ``x`` is -inf (``numpy.isneginf``; bool result, False for integers;
    complex input is a TypeError)."""
    return _isinf_signed(x, out, False, "isneginf")
