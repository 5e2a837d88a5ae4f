"""NumPy's ``lib/_polynomial_impl`` names on pyasc arrays: ``polyval``
(Horner's scheme in device ops) and ``polyfit`` (least squares through
:func:`pyasc.linalg.lstsq`). Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import warnings as _warnings

import numpy as _np

from . import _C
from ._helpers import _TE, _VE, _arr

__all__ = [
    "polyval", "polyfit",
]


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's scheme."""
    pp = _arr(p)
    xx = _arr(x)
    y = _C.full(tuple(xx.shape), 0, xx.dtype)
    for i in range(pp.shape[0] if pp.ndim else 1):
        y = _C.add(_C.multiply(y, xx), pp[i] if pp.ndim else pp)
    return y


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg``: coefficients, highest power first (``full`` adds diagnostics)."""
    from . import linalg as _linalg

    order = int(deg) + 1
    xx = _C.add(_arr(x), 0.0)
    yy = _C.add(_arr(y), 0.0)
    if deg < 0:
        raise _VE(f"[polyfit] expected deg >= 0 (got {deg})")
    if xx.ndim != 1:
        raise _TE(f"[polyfit] expected 1D vector for x (shape {tuple(xx.shape)})")
    if xx.size == 0:
        raise _TE("[polyfit] expected non-empty vector for x")
    if yy.ndim < 1 or yy.ndim > 2:
        raise _TE(f"[polyfit] expected 1D or 2D array for y (shape {tuple(yy.shape)})")
    if xx.shape[0] != yy.shape[0]:
        raise _TE(f"[polyfit] expected x and y to have same length ({xx.shape[0]} and {yy.shape[0]})")
    if rcond is None:
        rcond = xx.shape[0] * _np.finfo(_np.dtype(xx.dtype)).eps
    pw = _C.asarray(_np.arange(deg, -1, -1, dtype=_np.float64))
    lhs = _C.power(_C.reshape(xx, (-1, 1)), _C.reshape(pw, (1, -1)))
    rhs = yy
    if w is not None:
        ww = _C.add(_arr(w), 0.0)
        if ww.ndim != 1:
            raise _TE("[polyfit] expected a 1-d array for weights")
        if ww.shape[0] != yy.shape[0]:
            raise _TE("[polyfit] expected w and y to have the same length")
        lhs = _C.multiply(lhs, _C.reshape(ww, (-1, 1)))
        rhs = _C.multiply(rhs, ww if rhs.ndim == 1 else _C.reshape(ww, (-1, 1)))
    scale = _C.sqrt(_C.sum(_C.multiply(lhs, lhs), 0))
    lhs = _C.true_divide(lhs, scale)
    c, resids, rank, s = _linalg.lstsq(lhs, rhs, rcond)
    c = _C.true_divide(c, scale if c.ndim == 1 else _C.reshape(scale, (-1, 1)))
    if rank != order and not full:
        _warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning, stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if cov:
        # NumPy's estimate: inv(L^T L) of the scaled Vandermonde matrix, unscaled,
        # times the residual variance resids / (M - order) unless cov="unscaled"
        vbase = _linalg.inv(_C.matmul(lhs.T, lhs))
        vbase = _C.true_divide(vbase, _C.multiply(_C.reshape(scale, (-1, 1)), _C.reshape(scale, (1, -1))))
        if isinstance(cov, str) and cov == "unscaled":
            fac = 1.0
        else:
            if xx.shape[0] <= order:
                raise _VE("[polyfit] the number of data points must exceed order to scale the covariance matrix"
                          f" ({xx.shape[0]} points, order {order})")
            fac = _C.true_divide(resids, float(xx.shape[0] - order))
        if yy.ndim == 1:
            return c, _C.multiply(vbase, fac)
        return c, _C.multiply(_C.reshape(vbase, tuple(vbase.shape) + (1,)), fac)
    return c
