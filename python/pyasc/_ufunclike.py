"""NumPy's ``lib/_ufunclike_impl`` names: ``fix``. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

from . import _C
from ._helpers import _arr, _kind, _to_out

__all__ = [
    "fix",
]


def fix(x, out=None):
    """Round towards zero (``numpy.fix``; integers unchanged)."""
    xv = _arr(x)
    if _kind(xv) in "biu":
        return _to_out(_C.astype(xv, xv.dtype), out)
    return _to_out(_C.trunc(xv), out)
