"""NumPy's ``lib/_polynomial_impl`` names on pyasc arrays: ``polyval``
(Horner's scheme in device ops), ``polyfit`` (least squares through
:func:`pyasc.linalg.lstsq`), ``poly`` (from roots: one multiply-subtract per
root), ``polyadd``, ``polysub``, ``polymul`` (``convolve``), ``polydiv``
(long division), ``polyder`` and ``polyint``. Coefficients are highest power
first; results have NumPy's dtypes.

Not here: ``roots`` and ``poly`` of a square matrix need the eigenvalues of a
general matrix (LAPACK geev), which :mod:`pyasc.linalg` does not bind (no
``eig``/``eigvals`` either); ``poly1d`` (a class). See
:data:`pyasc._numpy_names.NOT_PROVIDED`. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import operator as _operator
import warnings as _warnings

import numpy as _np

from . import _C
from . import _manipulation as _man
from ._helpers import _NIE, _TE, _VE, _arr
from ._numeric import convolve
from ._type_check import mintypecode

__all__ = [
    "polyval", "polyfit", "poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
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


def _atleast_1d(a):
    a = _arr(a)
    return _C.reshape(a, (1,)) if a.ndim == 0 else a


def poly(seq_of_zeros):
    """The coefficients (highest power first, leading 1) of the monic polynomial with the given
    roots (``numpy.poly``): float64 for integer/float16 roots, float32/complex kept; a complex
    result whose roots come in conjugate pairs is returned real. No roots gives 1.0.
    A square matrix (its characteristic polynomial in NumPy) is not supported: that needs
    general eigenvalues."""
    seq = _atleast_1d(seq_of_zeros)
    if seq.ndim == 2 and seq.shape[0] == seq.shape[1] and seq.shape[0] != 0:
        raise _NIE(f"[poly] of a square matrix (shape {tuple(seq.shape)}) needs its eigenvalues (LAPACK geev), "
                   "which pyasc.linalg does not provide")
    if seq.ndim != 1:
        raise _VE(f"[poly] input must be 1d or non-empty square 2d array, got shape {tuple(seq.shape)}")
    dt = _np.dtype({"f": _np.float32, "d": _np.float64, "F": _np.complex64,
                    "D": _np.complex128}[mintypecode(_np.dtype(seq.dtype).char)])
    if seq.shape[0] == 0:
        return 1.0
    seq = _C.astype(seq, dt)
    a = _C.full((1,), 1, dt)
    for i in range(seq.shape[0]):
        # a * (x - r) = convolve(a, [1, -r]): only the products that exist (no 0 * inf at the ends)
        r = seq[i]
        a = _man.concatenate([a[:1], _C.subtract(a[1:], _C.multiply(r, a[:-1])),
                              _C.multiply(_C.negative(r), a[-1:])])
    if dt.kind == "c":
        from . import _sorting as _srt

        r = _srt.sort_complex(seq)
        if bool(_C.all(_C.equal(r, _srt.sort_complex(_C.conjugate(seq))))):
            a = a.real.copy()
    return a


def _padded(a, n):
    d = n - a.shape[0]
    return a if d == 0 else _man.concatenate([_C.full((d,), 0, a.dtype), a])


def polyadd(a1, a2):
    """The sum of two polynomials (coefficient arrays, highest power first; the shorter one is
    padded at the front) (``numpy.polyadd``)."""
    a, b = _atleast_1d(a1), _atleast_1d(a2)
    n = max(a.shape[0], b.shape[0])
    return _C.add(_padded(a, n), _padded(b, n))


def polysub(a1, a2):
    """The difference ``a1 - a2`` of two polynomials (``numpy.polysub``)."""
    a, b = _atleast_1d(a1), _atleast_1d(a2)
    n = max(a.shape[0], b.shape[0])
    return _C.subtract(_padded(a, n), _padded(b, n))


def polymul(a1, a2):
    """The product of two polynomials: the full convolution of their coefficients (``numpy.polymul``)."""
    return convolve(_atleast_1d(a1), _atleast_1d(a2))


def polydiv(u, v):
    """Quotient and remainder of polynomial long division ``u / v`` (``numpy.polydiv``): floating
    results; leading remainder terms within 1e-14 (relative) of zero are dropped, as NumPy does."""
    uu = _C.add(_atleast_1d(u), 0.0)
    vv = _C.add(_atleast_1d(v), 0.0)
    if uu.ndim != 1 or vv.ndim != 1:
        raise _VE(f"[polydiv] needs 1-d coefficient arrays, got shapes {tuple(uu.shape)} and {tuple(vv.shape)}")
    w = _C.add(uu[0], vv[0])
    m, n = uu.shape[0] - 1, vv.shape[0] - 1
    scale = _C.true_divide(1.0, vv[0])
    q = _C.full((max(m - n + 1, 1),), 0, w.dtype)
    r = _C.astype(uu, w.dtype, True)
    vv = _C.astype(vv, w.dtype)
    for k in range(m - n + 1):
        d = _C.multiply(scale, r[k])
        q[k] = d
        r[k:k + n + 1] = _C.subtract(r[k:k + n + 1], _C.multiply(d, vv))
    from ._numeric import allclose

    while r.shape[0] > 1 and allclose(r[0], 0, rtol=1e-14):
        r = r[1:]
    return q, r


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial (``numpy.polyder``; coefficients times their powers:
    integer coefficients stay integers, float32 promotes with the int64 powers to float64)."""
    m = _operator.index(m)
    if m < 0:
        raise _VE("[polyder] Order of derivative must be positive (see polyint)")
    p = _arr(p)
    if p.ndim != 1:
        raise _TE(f"[polyder] needs a 1-d coefficient array, got shape {tuple(p.shape)}")
    for _ in range(m):
        n = p.shape[0] - 1
        p = _C.multiply(p[:-1], _C.array(_np.arange(n, 0, -1)) if n > 0 else _C.full((0,), 0, _np.int64))
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial with integration constants ``k`` (a scalar or
    ``m`` values; default 0) (``numpy.polyint``; floating results)."""
    m = _operator.index(m)
    if m < 0:
        raise _VE("[polyint] Order of integral must be positive (see polyder)")
    kk = _C.full((m,), 0, _np.float64) if k is None else _atleast_1d(k)
    if kk.shape[0] == 1 and m > 1:
        kk = _C.multiply(kk[0], _C.full((m,), 1, _np.float64))
    if kk.shape[0] < m:
        raise _VE(f"[polyint] k must be a scalar or a rank-1 array of length 1 or >m, got length {kk.shape[0]}")
    p = _arr(p)
    if p.ndim != 1:
        raise _TE(f"[polyint] needs a 1-d coefficient array, got shape {tuple(p.shape)}")
    for i in range(m):
        n = p.shape[0]
        y = _C.true_divide(p, _C.array(_np.arange(n, 0, -1)) if n > 0 else _C.full((0,), 1, _np.int64))
        p = _man.concatenate([y, _C.reshape(kk[i], (1,))])
    return p
