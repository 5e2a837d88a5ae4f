"""NumPy's ``lib/_polynomial_impl`` names on pyasc arrays: ``polyval``
(Horner's scheme in device ops), ``polyfit`` (least squares through
:func:`pyasc.linalg.lstsq`), ``poly`` (from roots: one multiply-subtract per
root), ``polyadd``, ``polysub``, ``polymul`` (``convolve``), ``polydiv``
(long division), ``polyder``, ``polyint`` and the ``poly1d`` class (its
coefficients a pyasc array; the functions return a poly1d when given one, as
NumPy's do). Coefficients are highest power first; results have NumPy's dtypes.

``roots`` (and ``poly`` of a square matrix, ``poly1d.roots``) take the
eigenvalues of the companion matrix as NumPy does, but pyasc.linalg binds no
general eigensolver (LAPACK geev): they come from a QR iteration on the device
(pyasc.linalg.qr + matmul: explicit Francis double shifts for real matrices,
so real eigenvalues and exact conjugate pairs arise from 1x1 and 2x2 blocks as
in LAPACK's real Schur form and the result is real when all are real, as
NumPy's; Wilkinson single shifts for complex ones). Values agree with NumPy's
to rounding for simple roots (multiple roots are ill-conditioned in both); the
order is not LAPACK's. float32/complex64 coefficients compute in float64 and
return float32/complex64, as NumPy's dtypes. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import cmath as _cmath
import math as _math
import operator as _operator
import sys as _sys
import warnings as _warnings

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import _linalg_products as _lp
from . import _manipulation as _man
from .errors import AscendLinAlgError as _LinAlgError
from .errors import ErrorCode as _Code
from ._helpers import _IE, _TE, _VE, _arr
from ._numeric import convolve
from ._type_check import mintypecode

__all__ = [
    "poly1d", "polyval", "polyfit", "poly", "roots", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
]


def polyval(p, x):
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's scheme."""
    if isinstance(x, poly1d):  # composition p(x(t)), a poly1d
        res = poly1d([0])
        for c in _arr(p.coeffs if isinstance(p, poly1d) else p):
            res = res * x + poly1d(_C.reshape(c, (1,)))
        return res
    if isinstance(p, poly1d):
        p = p.coeffs
    pp = _arr(p)
    xx = _arr(x)  # NumPy converts x (asanyarray) before it iterates over p
    if pp.ndim == 0:  # NumPy iterates over the coefficients
        raise _TE("[polyval] iteration over a 0-d array: p must be a sequence of coefficients")
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
    pw = _C.asarray(_np.arange(order - 1, -1, -1, dtype=_np.float64))  # NumPy: vander(x, int(deg) + 1)
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
    if isinstance(seq_of_zeros, (str, bytes)):
        # NumPy iterates the str (dispatch), makes a 1-element string array of it and casts that
        # to float64 (mintypecode of 'U'/'S'): a number in the string is the one root
        try:
            seq_of_zeros = [float(seq_of_zeros)]
        except ValueError:
            raise _VE(f"[poly] could not convert string to float: {seq_of_zeros!r}") from None
    if _np.ndim(seq_of_zeros) == 0:  # NumPy's dispatcher iterates over the argument
        raise _TE(f"[poly] seq_of_zeros must be a sequence or an array, got {type(seq_of_zeros).__name__}")
    seq = _atleast_1d(seq_of_zeros)
    if seq.ndim == 2 and seq.shape[0] == seq.shape[1] and seq.shape[0] != 0:
        seq = _eig_array(_eigvals(seq, "poly"), _np.dtype(seq.dtype))  # the characteristic polynomial
    elif seq.ndim != 1:
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


def _truepoly(val, *args):
    """``val`` as a poly1d when one of ``args`` is one (NumPy's rule for the poly* functions)."""
    return poly1d(val) if any(isinstance(a, poly1d) for a in args) else val


def polyadd(a1, a2):
    """The sum of two polynomials (coefficient arrays, highest power first; the shorter one is
    padded at the front) (``numpy.polyadd``)."""
    a, b = _atleast_1d(a1), _atleast_1d(a2)
    n = max(a.shape[0], b.shape[0])
    return _truepoly(_C.add(_padded(a, n), _padded(b, n)), a1, a2)


def polysub(a1, a2):
    """The difference ``a1 - a2`` of two polynomials (``numpy.polysub``)."""
    a, b = _atleast_1d(a1), _atleast_1d(a2)
    n = max(a.shape[0], b.shape[0])
    return _truepoly(_C.subtract(_padded(a, n), _padded(b, n)), a1, a2)


def polymul(a1, a2):
    """The product of two polynomials: the full convolution of their coefficients (``numpy.polymul``;
    as NumPy, each operand goes through poly1d first: leading zeros dropped, all zeros is [0])."""
    return _truepoly(convolve(_poly1d_coeffs(a1), _poly1d_coeffs(a2)), a1, a2)


def _poly1d_coeffs(c):
    c = _atleast_1d(c)
    if c.ndim != 1:
        raise _VE(f"[polymul] Polynomial must be 1d only (coefficients of shape {tuple(c.shape)})")
    nz = _C.nonzero(_C.not_equal(c, 0))[0]
    if nz.shape[0] == 0:
        return _C.full((1,), 0, c.dtype)
    first = int(nz[0])
    return c[first:] if first else c


def polydiv(u, v):
    """Quotient and remainder of polynomial long division ``u / v`` (``numpy.polydiv``): floating
    results; leading remainder terms within 1e-14 (relative) of zero are dropped, as NumPy does."""
    uu = _C.add(_atleast_1d(u), 0.0)
    vv = _C.add(_atleast_1d(v), 0.0)
    for c in (uu, vv):  # NumPy reads u[0] and v[0] first
        if c.shape[0] == 0:
            raise _IE(f"[polydiv] index 0 is out of bounds for axis 0 with size 0 (coefficients of shape "
                      f"{tuple(c.shape)})")
    w = _C.add(uu[0], vv[0])
    m, n = uu.shape[0] - 1, vv.shape[0] - 1
    scale = _C.true_divide(1.0, vv[0])
    q = _C.full((max(m - n + 1, 1),), 0, w.dtype)
    r = _C.astype(uu, w.dtype, True)
    vv = _C.astype(vv, w.dtype)
    for k in range(m - n + 1):
        d = _C.multiply(scale, r[k])
        if d.ndim:  # N-d coefficients: NumPy's q[k] = d fails (a 1-d result it would not reach)
            if q.dtype == _np.dtype(_ml_dtypes.bfloat16):
                # ml_dtypes' bfloat16 setitem reads a number: its TypeError, not NumPy's ValueError
                raise _TE(f"[polydiv] expected number, got an array (coefficients of shapes {tuple(uu.shape)} and "
                          f"{tuple(vv.shape)}: a bfloat16 quotient element cannot hold a sequence)")
            if q.dtype.kind == "c":
                raise _TE(f"[polydiv] only 0-dimensional arrays can be converted to Python scalars (coefficients "
                          f"of shapes {tuple(uu.shape)} and {tuple(vv.shape)})")
            raise _VE(f"[polydiv] setting an array element with a sequence (coefficients of shapes "
                      f"{tuple(uu.shape)} and {tuple(vv.shape)})")
        q[k] = d
        r[k:k + n + 1] = _C.subtract(r[k:k + n + 1], _C.multiply(d, vv))
    from ._numeric import allclose

    # NumPy: while allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1 -- the last axis is tested, so
    # N-d coefficients whose leading rows are all close to 0 are cut until r[0] is out of range
    while True:
        if r.shape[0] == 0:
            raise _IE(f"[polydiv] index 0 is out of bounds for axis 0 with size 0 (remainder of shape "
                      f"{tuple(r.shape)}, coefficients of shapes {tuple(uu.shape)} and {tuple(vv.shape)})")
        if not (allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1):
            break
        r = r[1:]
    if isinstance(u, poly1d) or isinstance(v, poly1d):
        return poly1d(q), poly1d(r)
    return q, r


def _order_int(m):
    """The order as NumPy's polyder/polyint read it: ``int(m)`` (a float truncates, '2' parses; a
    pyasc array through its __int__), then the sign check."""
    return int(m.item() if isinstance(m, _C.ndarray) and m.ndim == 0 else m)


def polyder(p, m=1):
    """The ``m``-th derivative of a polynomial (``numpy.polyder``; coefficients times their powers:
    integer coefficients stay integers, float32 promotes with the int64 powers to float64)."""
    m = _order_int(m)
    if m < 0:
        raise _VE("[polyder] Order of derivative must be positive (see polyint)")
    if isinstance(p, poly1d):
        return poly1d(polyder(p.coeffs, m))
    p = _arr(p)
    if p.ndim == 0:  # NumPy's n = len(p) - 1
        raise _TE("[polyder] len() of unsized object (a 0-d coefficient array)")
    if p.ndim >= 2:
        return _polyder_nd(p, m)
    for i in range(m):
        if i and p.shape[0] == 0:
            break  # (empty stays empty, dtype fixed by the first step: m = 2**70 must not loop)
        n = p.shape[0] - 1
        p = _C.multiply(p[:-1], _C.array(_np.arange(n, 0, -1)) if n > 0 else _C.full((0,), 0, _np.int64))
    return p


def _polyder_nd(p, m):
    """polyder of N-d coefficients as NumPy's recursion computes it: y = p[:-1] * arange(n, 0, -1)
    (the powers broadcast along the last axis: a mismatch is its broadcast ValueError), computed
    before ``if m == 0`` -- so m + 1 products, the last one discarded. An empty fixed point recurses
    until Python's recursion limit (RecursionError) for a large m."""
    for i in range(m + 1):
        n = p.shape[0] - 1
        y = _C.multiply(p[:-1], _C.array(_np.arange(n, 0, -1)) if n > 0 else _C.full((0,), 0, _np.int64))
        if i == m:
            break
        if p.shape[0] == 0 and tuple(y.shape) == tuple(p.shape) and y.dtype == p.dtype:
            if m >= _sys.getrecursionlimit():  # (NumPy: one Python frame per order)
                from .errors import AscendRuntimeError  # noqa: PLC0415

                raise AscendRuntimeError(_Code.INTERNAL, f"[polyder] maximum recursion depth exceeded (order "
                                                               f"{m} of empty coefficients of shape {tuple(p.shape)})")
            return y
        p = y
    return p


_MAX_INTEGRAL_ORDER = 10000


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of a polynomial with integration constants ``k`` (a scalar or
    ``m`` values; default 0) (``numpy.polyint``; floating results)."""
    m = _order_int(m)
    if m < 0:
        raise _VE("[polyint] Order of integral must be positive (see polyder)")
    kk = _C.full((m,), 0, _np.float64) if k is None else _atleast_1d(k)
    if kk.shape[0] == 1 and m > 1:
        kk = _C.multiply(kk[0], _C.full((m,), 1, _np.float64))
    if kk.shape[0] < m:
        raise _VE(f"[polyint] k must be a scalar or a rank-1 array of length 1 or >m, got length {kk.shape[0]}")
    if isinstance(p, poly1d):
        return poly1d(polyint(p.coeffs, m, kk))
    p = _arr(p)
    if p.ndim != 1:
        raise _VE(f"[polyint] needs a 1-d coefficient array, got shape {tuple(p.shape)}")
    if m > _MAX_INTEGRAL_ORDER:
        # one device step per order: NumPy's recursive polyint stops far earlier (RecursionError
        # past the interpreter's recursion limit), so a bound here refuses nothing NumPy computes
        raise _VE(f"[polyint] order of integral {m} exceeds {_MAX_INTEGRAL_ORDER} (NumPy's recursive polyint "
                  f"fails with RecursionError there)")
    for i in range(m):
        n = p.shape[0]
        y = _C.true_divide(p, _C.array(_np.arange(n, 0, -1)) if n > 0 else _C.full((0,), 1, _np.int64))
        # NumPy's concatenate((y, [k[i]])): [k[i]] is (1,) + k[i].shape, so a k of more than one
        # dimension is concatenate's dimension-mismatch ValueError, not flattened
        p = _man.concatenate([y, _C.expand_dims(kk[i], 0)])
    return p


class poly1d:  # noqa: N801 - NumPy's name
    """A one-variable polynomial (``numpy.poly1d``): ``poly1d([1, 2, 3])`` is ``x**2 + 2x + 3``;
    ``r=True`` takes roots instead. Leading zeros are dropped. ``p(x)`` evaluates it (pyasc arrays,
    scalars, or another poly1d: composition); ``+ - * / **``, ``deriv``/``integ``, ``p[k]`` (the
    coefficient of ``x**k``), ``coeffs``/``c``/``coef``/``coefficients`` (a pyasc array), ``order``,
    ``variable``, ``roots``/``r`` (:func:`roots`)."""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable if variable is None else variable
            self._coeffs = c_or_r._coeffs
            return
        if r:
            c_or_r = poly(c_or_r)
        c = _atleast_1d(c_or_r)
        if c.ndim > 1:
            raise _VE("[poly1d] Polynomial must be 1d only.")
        nz = _C.nonzero(_C.not_equal(c, 0))[0]
        c = c[int(nz[0]):] if nz.shape[0] else c[:0]
        if c.shape[0] == 0:
            c = _C.full((1,), 0, c.dtype)
        self._coeffs = c
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        """The coefficients, highest power first (a pyasc array)."""
        return self._coeffs

    c = coef = coefficients = coeffs

    @property
    def variable(self):
        """The name of the variable in ``str(p)``."""
        return self._variable

    @property
    def order(self):
        """The degree of the polynomial."""
        return self._coeffs.shape[0] - 1

    @property
    def roots(self):
        """The roots of the polynomial (:func:`roots`)."""
        return roots(self._coeffs)

    r = roots

    def __array__(self, dtype=None, copy=None):
        a = self._coeffs.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        vals = repr(self._coeffs.numpy())[6:-1]
        return f"poly1d({vals})"

    def __str__(self):
        return str(_np.poly1d(self._coeffs.numpy(), variable=self._variable))

    def __len__(self):
        return self.order

    def __call__(self, val):
        return polyval(self, val)

    def __neg__(self):
        return poly1d(_C.negative(self._coeffs))

    def __pos__(self):
        return self

    def __add__(self, other):
        return polyadd(self, other if isinstance(other, poly1d) else poly1d(other))

    __radd__ = __add__

    def __sub__(self, other):
        return polysub(self, other if isinstance(other, poly1d) else poly1d(other))

    def __rsub__(self, other):
        return polysub(poly1d(other), self)

    def __mul__(self, other):
        if _np.isscalar(other):
            return poly1d(_C.multiply(self._coeffs, other))
        return polymul(self, other if isinstance(other, poly1d) else poly1d(other))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if _np.isscalar(other):
            return poly1d(_C.true_divide(self._coeffs, other))
        return polydiv(self, other if isinstance(other, poly1d) else poly1d(other))

    def __rtruediv__(self, other):
        return polydiv(poly1d(other), self)

    def __pow__(self, val):
        if not _np.isscalar(val) or int(val) != val or val < 0:
            raise _VE("[poly1d] Power to non-negative integers only.")
        res = poly1d([1])
        for _ in range(int(val)):
            res = polymul(self, res)
        return res

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool(_C.all(_C.equal(self._coeffs, other._coeffs)))

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __getitem__(self, val):
        if val > self.order or val < 0:
            return _np.dtype(self._coeffs.dtype).type(0)
        return self._coeffs[self.order - val]

    def __iter__(self):
        return iter(self._coeffs)

    def deriv(self, m=1):
        """The ``m``-th derivative (``polyder``) as a poly1d."""
        return poly1d(polyder(self._coeffs, m))

    def integ(self, m=1, k=0):
        """The ``m``-th antiderivative with integration constants ``k`` (``polyint``) as a poly1d."""
        return poly1d(polyint(self._coeffs, m, k))


# ------------------------------------------------------------------ roots: eigenvalues by QR iteration


def _scalar(x):
    v = x.numpy()[()]
    return complex(v) if _np.iscomplexobj(v) else float(v)


def _eig2_real(a, b, c, d):
    """The eigenvalues of the real [[a, b], [c, d]]: a real pair, or an exact conjugate pair."""
    p = 0.5 * (a - d)
    disc = p * p + b * c
    if disc >= 0:
        z = p + _math.copysign(_math.sqrt(disc), p)
        if z == 0:
            return [d, d]
        return [d + z, d - (b * c) / z]
    re, im = 0.5 * (a + d), _math.sqrt(-disc)
    return [complex(re, im), complex(re, -im)]


def _eig2_complex(a, b, c, d):
    tr, det = a + d, a * d - b * c
    r = _cmath.sqrt(tr * tr / 4 - det)
    return [tr / 2 + r, tr / 2 - r]


def _eigvals(a, name, maxit=60):
    """The eigenvalues of the square matrix ``a`` (a list of Python numbers; real when all are real
    for a real matrix) by QR iteration on the device; see the module docstring."""
    from . import linalg as _la

    a = _arr(a)
    kind = _np.dtype(a.dtype).kind
    if _np.dtype(a.dtype) == _np.float16:
        raise _TE(f"[{name}] array type float16 is unsupported in linalg")
    cplx = kind == "c"
    h = _C.astype(a, _np.complex128 if cplx else _np.float64)
    if h.size and not bool(_C.all(_C.isfinite(h))):  # NumPy's eigvals: _assert_finite first
        raise _LinAlgError(_Code.LINALG_ERROR, f"[{name}] Array must not contain infs or NaNs")
    n = h.shape[0]
    eps = _np.finfo(_np.float64).eps
    # The deflation tests below read one subdiagonal entry, which decides a block only for an upper
    # Hessenberg matrix (a companion matrix is one; poly's general matrix is not: deflating it by
    # h[n-1, n-2] alone dropped the rest of the last row and gave wrong eigenvalues). So reduce to
    # Hessenberg form first, and keep it exact after each QR step (the entries below the
    # subdiagonal that the step creates are rounding, O(eps |H|)).
    h = _hessenberg(_balance(h), cplx)
    h0 = h.numpy()  # (for the final polish: the Hessenberg matrix before any QR step)
    out, it = [], 0
    while n > 0:
        if n == 1:
            out.append(_scalar(h[0, 0]))
            break
        corner = h[max(n - 3, 0):, max(n - 3, 0):].numpy()  # the trailing 2x2 or 3x3: a few scalars
        a_, b_, c_, d_ = corner[-2, -2], corner[-2, -1], corner[-1, -2], corner[-1, -1]
        if abs(c_) <= eps * (abs(a_) + abs(d_)):  # 1x1 block
            out.append(complex(d_) if cplx else float(d_))
            h, n, it = h[: n - 1, : n - 1], n - 1, 0
            continue
        if n == 2 or (not cplx and abs(corner[-2, -3]) <= eps * (abs(corner[-3, -3]) + abs(a_))):  # 2x2 block
            pair = _eig2_complex(*map(complex, (a_, b_, c_, d_))) if cplx else \
                _eig2_real(*map(float, (a_, b_, c_, d_)))
            out += pair
            h, n, it = h[: n - 2, : n - 2], n - 2, 0
            continue
        it += 1
        if it > maxit:
            raise _LinAlgError(_Code.LINALG_ERROR, f"[{name}] the QR iteration for the eigenvalues did not converge")
        eye = _C.astype(_C.array(_np.eye(n)), h.dtype)
        if cplx:  # Wilkinson single shift: the corner eigenvalue closer to d
            mu = min(_eig2_complex(complex(a_), complex(b_), complex(c_), complex(d_)), key=lambda z: abs(z - d_))
            if it % 11 == 0:
                mu = d_ + abs(c_)
            q, r = _la.qr(_C.subtract(h, _C.multiply(mu, eye)))
            h = _hess_part(_C.add(_lp.matmul(r, q), _C.multiply(mu, eye)))
        else:  # explicit Francis double shift: (H - mu)(H - conj mu) = H^2 - s H + t I is real
            if it % 11 == 0:  # exceptional shift (LAPACK's idea) against cycling
                w = abs(c_) + abs(corner[-2, -3])
                s_, t_ = 1.5 * w, w * w
            else:
                s_, t_ = a_ + d_, a_ * d_ - b_ * c_
            m = _C.add(_C.subtract(_lp.matmul(h, h), _C.multiply(float(s_), h)), _C.multiply(float(t_), eye))
            q = _la.qr(m).Q
            h = _hess_part(_lp.matmul(_lp.matmul(_C.transpose(q), h), q))
    return _polish(h0, out, cplx)


def _hyman(h, lam):
    """det(h - lam I) / prod(subdiagonal) and its derivative for the upper Hessenberg ``h`` with a
    nonzero subdiagonal (Hyman's method: solve (h - lam I) x = beta e1 upwards from x[n-1] = 1;
    backward stable)."""
    n = h.shape[0]
    x = _np.zeros(n, complex)
    dx = _np.zeros(n, complex)
    x[n - 1] = 1.0
    for i in range(n - 1, 0, -1):
        # row i: h[i, i-1] x[i-1] + sum_{j>=i} (h - lam)[i, j] x[j] = 0
        t = h[i, i:] @ x[i:] - lam * x[i]
        dt = h[i, i:] @ dx[i:] - lam * dx[i] - x[i]
        x[i - 1] = -t / h[i, i - 1]
        dx[i - 1] = -dt / h[i, i - 1]
    beta = h[0, :] @ x - lam * x[0]
    dbeta = h[0, :] @ dx - lam * dx[0] - x[0]
    return beta, dbeta


def _polish(h, vals, cplx):
    """A few Newton steps on det(h - lam I) (Hyman's method on the balanced Hessenberg matrix
    before the QR steps) for each eigenvalue: the explicit double-shift steps lose absolute
    accuracy on the small eigenvalues of a matrix with large ones (-8.3990826547e-3 for an exact
    -8.3990826545e-3 next to -1135.67), which LAPACK's implicit steps keep. A step is kept only
    while it lowers |det| and moves less than a tenth of the distance to the nearest other
    eigenvalue (no jumping between roots); real values stay real and conjugate pairs exact."""
    n = h.shape[0]
    if n < 2 or _np.any(_np.diag(h, -1) == 0) or not _np.isfinite(h).all():
        return vals  # (a reducible matrix: Hyman's recurrence needs every subdiagonal entry)
    out = list(vals)
    for k, v in enumerate(vals):
        if not cplx and isinstance(v, complex) and v.imag < 0:
            continue  # (the partner of a pair: set from its conjugate below)
        others = [abs(v - w) for j, w in enumerate(vals) if j != k]
        gap = min(others) if others else _math.inf
        lam = complex(v)
        try:
            with _np.errstate(all="ignore"):  # (an overflowing recurrence just stops the polish)
                f, df = _hyman(h, lam)
            for _ in range(3):
                if df == 0 or not _np.isfinite(f) or not _np.isfinite(df):
                    break
                step = f / df
                if not cplx and not isinstance(v, complex):
                    step = complex(step.real, 0.0)
                cand = lam - step
                if abs(cand - complex(v)) >= 0.1 * gap:
                    break
                with _np.errstate(all="ignore"):
                    fc, dfc = _hyman(h, cand)
                if not abs(fc) < abs(f):
                    break
                lam, f, df = cand, fc, dfc
        except (ZeroDivisionError, FloatingPointError, OverflowError):
            continue
        out[k] = lam if (cplx or isinstance(v, complex)) else lam.real
        if not cplx and isinstance(v, complex):
            j = next((j for j, w in enumerate(vals) if j != k and w == v.conjugate()), None)
            if j is not None:
                out[j] = lam.conjugate()
    return out


def _balance(h):
    """LAPACK's balancing (gebal, Parlett-Reinsch) before the eigenvalues: a diagonal similarity
    D^-1 h D by powers of two (exact, eigenvalues unchanged) that makes each row and column of the
    off-diagonal part about equal in norm. Without it a badly scaled matrix (entries 1e-3 .. 1e3)
    lost digits in the QR steps: the characteristic polynomial was up to 1e3 times further from
    the exact one than NumPy's (which balances in geev)."""
    n = h.shape[0]
    if n < 2:
        return h
    a = h.numpy().copy()  # (n x n scalars: the scaling loop runs on the host)
    d = _np.ones(n)
    converged = False
    while not converged:
        converged = True
        for i in range(n):
            c = _np.linalg.norm(_np.delete(a[:, i], i))
            r = _np.linalg.norm(_np.delete(a[i, :], i))
            if c == 0.0 or r == 0.0:
                continue
            g, f, s = r / 2.0, 1.0, c + r
            while c < g:
                f, c, g = f * 2.0, c * 2.0, g / 2.0  # (c scales with f, r with 1/f)
            g = r * 2.0
            while c >= g:
                f, c, g = f / 2.0, c / 2.0, g * 2.0
            if (c + r / f) < 0.95 * s:
                converged = False
                d[i] *= f
                a[i, :] /= f
                a[:, i] *= f
    return _C.asarray(a) if not (d == 1.0).all() else h


def _hess_part(h):
    """h with the entries below its first subdiagonal set to zero."""
    n = h.shape[0]
    keep = _np.tri(n, n, 1, dtype=bool).T  # j >= i - 1
    return _C.where(_C.asarray(keep), h, _C.full((), 0, h.dtype))


def _hessenberg(h, cplx):
    """The upper Hessenberg matrix similar to the square ``h`` (float64 or complex128), by
    Householder reflections P = I - 2 v v^H / (v^H v) (Hermitian and unitary: h <- P h P); each
    reflector's vector is formed on the host (a column of at most n scalars), the products on the
    device."""
    n = h.shape[0]
    dt = _np.complex128 if cplx else _np.float64
    for k in range(n - 2):
        x = h[k + 1:, k].numpy().astype(dt)
        alpha = _np.linalg.norm(x[1:]) if x.size > 1 else 0.0
        if alpha == 0.0:  # the column is already zero below the subdiagonal
            continue
        nx = _math.hypot(abs(x[0]), alpha)
        # v = x + sign(x0) |x| e1 (the sign of x0's phase for complex): no cancellation in v[0]
        phase = x[0] / abs(x[0]) if x[0] != 0 else 1.0
        v = x.copy()
        v[0] = x[0] + phase * nx
        v = v / _np.linalg.norm(v)
        p = _np.eye(n, dtype=dt)
        p[k + 1:, k + 1:] -= 2.0 * _np.outer(v, v.conj())
        pd = _C.asarray(p)
        h = _lp.matmul(_lp.matmul(pd, h), pd)
    return _hess_part(h) if n > 2 else h


def _eig_array(vals, dt):
    """The eigenvalues as NumPy's eigvals returns them: real unless one is complex (or the matrix
    is), in the single precision of a float32/complex64 input."""
    is_c = dt.kind == "c" or any(isinstance(v, complex) for v in vals)
    single = dt in (_np.dtype(_np.float32), _np.dtype(_np.complex64))
    rdt = (_np.complex64 if single else _np.complex128) if is_c else (_np.float32 if single else _np.float64)
    return _C.array(_np.array(vals, dtype=rdt))


def roots(p):
    """The roots of the polynomial with coefficients ``p`` (highest power first) (``numpy.roots``):
    the eigenvalues of its companion matrix (see the module docstring), plus a zero root per
    trailing zero coefficient. Real (float64, float32 for float32 input) when every root is real,
    complex otherwise; integer/bool/bfloat16 coefficients compute in float64, float16 is a TypeError
    as in NumPy's linalg."""
    if isinstance(p, (str, bytes)):  # iterable for the dispatcher: NumPy converts its 1-element array to float
        if not p:
            return _C.empty((0,), _np.float64)
        try:
            p = _np.atleast_1d(p).astype(float)
        except ValueError as e:
            raise _VE(f"[roots] {e}") from None
    elif _np.ndim(p) == 0:  # NumPy's dispatcher iterates over the argument
        raise _TE(f"[roots] p must be a sequence or an array of coefficients, got {type(p).__name__}")
    p = _atleast_1d(p)
    if p.ndim != 1:
        raise _VE(f"[roots] Input must be a rank-1 array, got shape {tuple(p.shape)}")
    if p.shape[0] > 1 << 20:  # the companion matrix has (n - 1)**2 elements: refuse before any scan
        from .errors import AscendMemoryError
        raise AscendMemoryError(_Code.BAD_ALLOC,
                                f"[roots] a companion matrix of {p.shape[0] - 1}**2 elements does not fit")
    nz = _C.nonzero(_C.not_equal(p, 0))[0]
    if nz.shape[0] == 0:
        return _C.empty((0,), _np.float64)
    first, last = int(nz[0]), int(nz[-1])
    trailing = p.shape[0] - last - 1
    p = p[first:last + 1]
    dt = _np.dtype(p.dtype)
    if dt.kind not in "fc" or dt == _np.dtype(_ml_dtypes.bfloat16):
        p = _C.astype(p, _np.float64)
        dt = _np.dtype(_np.float64)
    if dt == _np.float16:
        raise _TE("[roots] array type float16 is unsupported in linalg")
    n = p.shape[0]
    if n > 1:
        work = _np.complex128 if dt.kind == "c" else _np.float64
        pw = _C.astype(p, work)
        comp = _man.concatenate([_C.reshape(_C.true_divide(_C.negative(pw[1:]), pw[0]), (1, n - 1)),
                                 _C.astype(_C.array(_np.eye(n - 2, n - 1)), work)], axis=0)
        res = _eig_array(_eigvals(comp, "roots"), dt)
    else:
        res = _C.empty((0,), _np.float64)
    if trailing:
        res = _man.concatenate([res, _C.full((trailing,), 0, res.dtype)])
    return res
