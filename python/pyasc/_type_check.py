"""NumPy's ``lib/_type_check_impl`` names composed here: ``nan_to_num``,
``real_if_close``, ``isreal``, ``iscomplex`` (``real``/``imag``/
``iscomplexobj``/``isrealobj`` are in :mod:`pyasc.numeric`).
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from ._helpers import _BF16, _arr, _kind

__all__ = [
    "nan_to_num", "real_if_close", "isreal", "iscomplex",
]


# ------------------------------------------------------------------ elementwise helpers


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +Inf -> ``posinf`` (largest finite), -Inf -> ``neginf`` (most negative finite)."""
    xv = _arr(x)
    k = _kind(xv)
    if k not in "fc":
        return _C.astype(xv, xv.dtype) if copy or not isinstance(x, _C.ndarray) else xv

    def fix(part):
        dt = _np.dtype(part.dtype)
        fi = _ml_dtypes.finfo(dt) if dt == _BF16 else _np.finfo(dt)
        hi = fi.max if posinf is None else posinf
        lo = fi.min if neginf is None else neginf
        r = _C.where(_C.isnan(part), nan, part)
        r = _C.where(_C.logical_and(_C.isinf(part), _C.greater(part, 0)), hi, r)
        r = _C.where(_C.logical_and(_C.isinf(part), _C.less(part, 0)), lo, r)
        return _C.astype(r, dt)

    if k == "c":
        res = _C.astype(_C.add(fix(xv.real), _C.multiply(fix(xv.imag), 1j)), xv.dtype)
    else:
        res = fix(xv)
    if not copy and isinstance(x, _C.ndarray):
        _C._copy_into(x, res)
        return x
    return res


def real_if_close(a, tol=100):
    """The real part if every imaginary part is within ``tol`` machine epsilons of zero, else ``a``."""
    x = _arr(a)
    if _kind(x) != "c":
        return x
    t = tol
    if tol > 1:
        t = _np.finfo(_np.dtype(x.dtype)).eps * tol
    if bool(_C.all(_C.less(_C.absolute(x.imag), t))):
        return _C.astype(x.real, x.real.dtype)
    return x


def isreal(x):
    """Elementwise: True where the imaginary part is zero (everywhere for real input)."""
    xv = _arr(x)
    if _kind(xv) == "c":
        return _C.equal(xv.imag, 0)
    return _C.full(tuple(xv.shape), True, _np.bool_)


def iscomplex(x):
    """Elementwise: True where the imaginary part is non-zero (nowhere for real input)."""
    xv = _arr(x)
    if _kind(xv) == "c":
        return _C.not_equal(xv.imag, 0)
    return _C.full(tuple(xv.shape), False, _np.bool_)
