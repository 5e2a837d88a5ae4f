"""Statistics, comparison and numerical helpers of the array namespace (issue 3).

``allclose``/``isclose``/``array_equal``/``array_equiv``, the order
statistics ``median``/``percentile``/``quantile`` and their NaN-ignoring
forms, ``average``, ``ptp``, ``cov``/``corrcoef``, the difference and
integration helpers ``diff``/``ediff1d``/``gradient``/``trapezoid``,
``interp``, ``convolve``/``correlate``, ``polyval``/``polyfit``, the
elementwise helpers ``nan_to_num``/``real_if_close``/``isreal``/
``iscomplex``/``fix``/``modf``/``frexp``/``divmod``/``gcd``/``lcm``,
``isscalar`` and ``lexsort``.

Every function is a composition of pyasc device ops (elementwise ops, which
fuse lazily, reductions, sort/argsort, take/take_along_axis, concatenate,
matmul, lstsq): the data never goes through NumPy. NumPy is only asked for
dtype rules on 1-element dummies (``_np_dtype``) and for parameter
arithmetic that does not touch the data. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator
import warnings as _warnings

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import errors as _errors

__all__ = [
    "allclose", "isclose", "array_equal", "array_equiv", "median", "percentile", "quantile",
    "nanmedian", "nanpercentile", "nanquantile", "average", "ptp", "cov", "corrcoef", "diff", "ediff1d",
    "gradient", "interp", "convolve", "correlate", "trapezoid", "polyval", "polyfit", "nan_to_num",
    "real_if_close", "isreal", "iscomplex", "isscalar", "fix", "modf", "frexp", "divmod", "gcd", "lcm",
    "lexsort",
]

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


# Errors raised here are the AscendError subclasses (python/pyasc/errors.py), with NumPy's builtin bases.
def _VE(msg):
    return _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, msg)


def _TE(msg):
    return _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, msg)


def _IE(msg):
    return _errors.AscendIndexError(_errors.ErrorCode.INDEX_OUT_OF_RANGE, msg)


def _NIE(msg):
    return _errors.AscendNotImplementedError(_errors.ErrorCode.FEATURE_UNSUPPORTED, msg)


def _arr(x):
    return _C.asarray(x)


def _dt(x):
    return _np.dtype(x.dtype)


def _kind(x):
    d = _dt(x)
    return "f" if d == _BF16 else d.kind


def _is_inexact(x):
    return _kind(x) in "fc"


def _warn(msg):
    _warnings.warn(msg, RuntimeWarning, stacklevel=3)


def _norm_axis(axis, ndim, name):
    try:
        a = _operator.index(axis)
    except TypeError:
        raise _TE(f"[{name}] axis must be an integer, not {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise _np.exceptions.AxisError(a, ndim)
    return a % ndim


def _axes(axis, ndim, name):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axs = tuple(_norm_axis(a, ndim, name) for a in axis)
        if len(set(axs)) != len(axs):
            raise _VE(f"[{name}] repeated axis in {axis!r}")
        return axs
    return (_norm_axis(axis, ndim, name),)


def _moveaxis(x, src, dst):
    order = [i for i in range(x.ndim) if i not in src]
    perm = list(order)
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _C.transpose(x, tuple(perm))


def _to_out(res, out):
    if out is None:
        return res
    _C._copy_into(out, res)
    return out


# ------------------------------------------------------------------ comparison


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (NaN equal to NaN when ``equal_nan``), as ``numpy.isclose``."""
    # As NumPy 2: Python scalars stay weak, y is made inexact (no integer overflow in |a - b|).
    x, y, atol, rtol = (v if isinstance(v, (int, float, complex)) else _arr(v) for v in (a, b, atol, rtol))
    if isinstance(y, _C.ndarray):
        if _kind(y) not in "fc":
            y = _C.astype(y, _np.result_type(_dt(y), 1.0))
    elif isinstance(y, int):
        y = float(y)
    if not isinstance(x, _C.ndarray) and not isinstance(y, _C.ndarray):
        x = _arr(x)
    dif = _C.absolute(_C.subtract(x, y))
    r = _C.logical_or(_C.logical_and(_C.less_equal(dif, _C.add(atol, _C.multiply(rtol, _C.absolute(y)))),
                                     _C.isfinite(y)), _C.equal(x, y))
    if equal_nan:
        r = _C.logical_or(r, _C.logical_and(_C.isnan(x), _C.isnan(y)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is close to ``b`` (see :func:`isclose`); a Python bool."""
    return bool(_C.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """True if the arrays have the same shape and elements (NaN == NaN when ``equal_nan``)."""
    x, y = _arr(a1), _arr(a2)
    if tuple(x.shape) != tuple(y.shape):
        return False
    eq = _C.equal(x, y)
    if equal_nan and (_is_inexact(x) or _is_inexact(y)):
        eq = _C.logical_or(eq, _C.logical_and(_C.isnan(x), _C.isnan(y)))
    return bool(_C.all(eq))


def array_equiv(a1, a2):
    """True if the arrays broadcast to each other and are equal elementwise."""
    x, y = _arr(a1), _arr(a2)
    try:
        _np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    except ValueError:
        return False
    return bool(_C.all(_C.equal(x, y)))


# ------------------------------------------------------------------ quantiles

_ALPHA_BETA = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
               "linear": (1.0, 1.0), "median_unbiased": (1 / 3, 1 / 3), "normal_unbiased": (3 / 8, 3 / 8)}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_METHODS = tuple(_ALPHA_BETA) + _DISCRETE + ("averaged_inverted_cdf", "midpoint")


def _np_dtype(fn, dt, *args, **kw):
    """NumPy's result dtype of ``fn`` for a 1-element dummy of ``dt`` (no data involved)."""
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        return _np.asarray(fn(_np.ones(1, dt), *args, **kw)).dtype


def _indices(n, q, method):
    """(previous index, next index, gamma) per slice: ``n`` is the (..., 1) float64 count, ``q`` (nq,)."""
    f64 = _np.float64
    if method in _ALPHA_BETA:
        al, be = _ALPHA_BETA[method]
        if method == "linear":
            v = _C.multiply(_C.subtract(n, 1.0), q)
        else:
            v = _C.subtract(_C.add(_C.multiply(n, q), _C.add(al, _C.multiply(q, 1.0 - al - be))), 1.0)
        prev = _C.floor(v)
        g = _C.subtract(v, prev)
        nxt = _C.add(prev, 1.0)
        above = _C.greater_equal(v, _C.subtract(n, 1.0))
        prev = _C.where(above, _C.subtract(n, 1.0), prev)
        nxt = _C.where(above, _C.subtract(n, 1.0), nxt)
        below = _C.less(v, 0.0)
        prev = _C.where(below, 0.0, prev)
        nxt = _C.where(below, 0.0, nxt)
        g = _C.where(below, _C.subtract(v, prev), g)
        g = _C.where(above, _C.subtract(v, prev), g)
    elif method in ("averaged_inverted_cdf", "midpoint"):
        if method == "midpoint":
            v = _C.multiply(_C.subtract(n, 1.0), q)
            prev = _C.floor(v)
            g = _C.where(_C.equal(_C.subtract(v, prev), 0.0), 0.0, 0.5)
            prev = _C.where(_C.greater_equal(v, _C.subtract(n, 1.0)), _C.subtract(n, 1.0), prev)
            nxt = _C.minimum(_C.add(prev, 1.0), _C.subtract(n, 1.0))
        else:
            v = _C.subtract(_C.multiply(n, q), 1.0)
            prev = _C.floor(v)
            g = _C.where(_C.equal(_C.subtract(v, prev), 0.0), 0.5, 1.0)
            nxt = _C.add(prev, 1.0)
            above = _C.greater_equal(v, _C.subtract(n, 1.0))
            below = _C.less(v, 0.0)
            prev = _C.where(above, _C.subtract(n, 1.0), _C.where(below, 0.0, prev))
            nxt = _C.where(above, _C.subtract(n, 1.0), _C.where(below, 0.0, nxt))
    else:
        if method == "lower":
            idx = _C.floor(_C.multiply(_C.subtract(n, 1.0), q))
        elif method == "higher":
            idx = _C.ceil(_C.multiply(_C.subtract(n, 1.0), q))
        elif method == "nearest":
            idx = _C.rint(_C.multiply(_C.subtract(n, 1.0), q))
        else:
            shift = 1.5 if method == "closest_observation" else 1.0
            v = _C.subtract(_C.multiply(n, q), shift)
            prev = _C.floor(v)
            cond = _C.equal(_C.subtract(v, prev), 0.0)
            if method == "closest_observation":
                cond = _C.logical_and(cond, _C.equal(_C.remainder(prev, 2.0), 1.0))
            idx = _C.where(cond, prev, _C.add(prev, 1.0))
            idx = _C.minimum(_C.maximum(idx, 0.0), _C.subtract(n, 1.0))
        prev = nxt = idx
        g = None
    prev = _C.astype(_C.maximum(prev, 0.0), _np.int64)
    nxt = _C.astype(_C.maximum(nxt, 0.0), _np.int64)
    return prev, nxt, (None if g is None else _C.astype(g, f64))


def _quantile_impl(name, a, q, axis, out, overwrite_input, method, keepdims, ignore_nan, scale):
    del overwrite_input  # the input is never modified: the sort works on a copy
    if method not in _METHODS:
        raise _VE(f"[{name}] {method!r} is not a valid method. Use one of: {_METHODS}")
    x = _arr(a)
    if _kind(x) == "c":
        raise _TE(f"[{name}] a must be an array of real numbers, not {x.dtype}")
    qn = _np.asarray(q, dtype=_np.float64) / scale if scale != 1 else _np.asarray(q, dtype=_np.float64)
    if _np.asarray(q).dtype.kind not in "biuf":
        raise _TE(f"[{name}] q must be real numbers, not {_np.asarray(q).dtype}")
    if qn.size and not (_np.all(qn >= 0) and _np.all(qn <= 1)):
        rng = "[0, 100]" if scale == 100 else "[0, 1]"
        raise _VE(f"[{name}] {'Percentiles' if scale == 100 else 'Quantiles'} must be in the range {rng}")
    weak_q = isinstance(q, (int, float)) and not isinstance(q, bool)
    qdt = _np.float64 if isinstance(q, (int, float)) else _np.asarray(q).dtype
    if weak_q:
        rdt = _np_dtype(_np.quantile, _dt(x), 0.5, method=method)
    else:
        rdt = _np_dtype(_np.quantile, _dt(x), _np.asarray([0.5], dtype=qdt), method=method)
    axs = _axes(axis, x.ndim, name)
    keep_shape = tuple(1 if i in axs else s for i, s in enumerate(x.shape))
    rest = [i for i in range(x.ndim) if i not in axs]
    # Move the reduced axes last and merge them into one.
    y = _C.transpose(x, tuple(rest) + axs) if x.ndim else x
    lead = tuple(x.shape[i] for i in rest)
    cnt = 1
    for i in axs:
        cnt *= x.shape[i]
    y = _C.reshape(y, lead + (cnt,))
    if cnt == 0:
        if not ignore_nan:
            raise _IE(f"[{name}] cannot take a quantile of an empty slice (shape {tuple(x.shape)}, "
                             f"axis {axis!r})")
    s = _C.sort(y, -1, False)  # NaN last
    qflat = _C.asarray(qn.reshape(-1))
    nq = qflat.shape[0]
    inexact = _is_inexact(x)
    if ignore_nan and inexact:
        n = _C.astype(_C.sum(_C.logical_not(_C.isnan(s)), -1, None, None, True), _np.float64)
    else:
        n = _C.full(lead + (1,), float(cnt), _np.float64)
    empty_slice = _C.equal(n, 0.0)
    n1 = _C.maximum(n, 1.0)
    prev, nxt, g = _indices(n1, qflat, method)
    if cnt == 0:
        res = _C.full(lead + (nq,), _np.nan, rdt)
    else:
        a_ = _C.take_along_axis(s, prev, -1)
        if g is None:
            res = _C.astype(a_, rdt)
        else:
            # NumPy's _lerp: the difference in the input dtype, gamma weak (a Python float) for a scalar q.
            b_ = _C.take_along_axis(s, nxt, -1)
            d = _C.subtract(b_, a_)
            gg = _C.astype(g, rdt) if weak_q else g
            lo = _C.add(a_, _C.multiply(d, gg))
            hi = _C.subtract(b_, _C.multiply(d, _C.subtract(1.0, gg)))
            res = _C.astype(_C.where(_C.greater_equal(g, 0.5), hi, lo), rdt)
        if inexact:
            if ignore_nan:
                if bool(_C.any(empty_slice)):
                    _warn("All-NaN slice encountered")
                    res = _C.where(empty_slice, _np.nan, res)
            else:
                last = _C.take(s, _C.asarray(_np.array([cnt - 1])), -1, "raise")
                res = _C.where(_C.isnan(last), _C.astype(last, rdt), res)
    # NumPy puts the q dimensions first.
    res = _C.transpose(res, (res.ndim - 1,) + tuple(range(res.ndim - 1)))
    tail = keep_shape if keepdims else lead
    res = _C.reshape(res, tuple(qn.shape) + tuple(tail))
    return _to_out(res, out)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None):
    """The ``q``-th quantiles (0 <= q <= 1) of ``a`` along ``axis`` (NumPy's 13 ``method`` values)."""
    if weights is not None:
        raise _NIE("[quantile] weights are not supported by pyasc")
    return _quantile_impl("quantile", a, q, axis, out, overwrite_input, method, keepdims, False, 1)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None):
    """The ``q``-th percentiles (0 <= q <= 100) of ``a`` along ``axis`` (see :func:`quantile`)."""
    if weights is not None:
        raise _NIE("[percentile] weights are not supported by pyasc")
    return _quantile_impl("percentile", a, q, axis, out, overwrite_input, method, keepdims, False, 100)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """Quantiles ignoring NaN; an all-NaN slice gives NaN and a RuntimeWarning."""
    if weights is not None:
        raise _NIE("[nanquantile] weights are not supported by pyasc")
    return _quantile_impl("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, True, 1)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """Percentiles ignoring NaN; an all-NaN slice gives NaN and a RuntimeWarning."""
    if weights is not None:
        raise _NIE("[nanpercentile] weights are not supported by pyasc")
    return _quantile_impl("nanpercentile", a, q, axis, out, overwrite_input, method, keepdims, True, 100)


def _median_impl(name, a, axis, out, keepdims, ignore_nan):
    """NumPy's median: the mean of the middle one or two elements of each sorted slice."""
    x = _arr(a)
    axs = _axes(axis, x.ndim, name)
    keep_shape = tuple(1 if i in axs else s for i, s in enumerate(x.shape))
    rest = [i for i in range(x.ndim) if i not in axs]
    lead = tuple(x.shape[i] for i in rest)
    if x.size == 0:
        _warn("Mean of empty slice")
        rdt = _np_dtype(_np.mean, _dt(x))
        return _to_out(_C.full(keep_shape if keepdims else lead, _np.nan, rdt), out)
    cnt = 1
    for i in axs:
        cnt *= x.shape[i]
    y = _C.transpose(x, tuple(rest) + axs) if x.ndim else x
    s = _C.sort(_C.reshape(y, lead + (cnt,)), -1, False)  # NaN last
    inexact = _is_inexact(x)
    if ignore_nan and inexact:
        k = _C.sum(_C.logical_not(_C.isnan(s)), -1, _np.int64, None, True)
    else:
        k = _C.full(lead + (1,), cnt, _np.int64)
    lo = _C.maximum(_C.floor_divide(_C.subtract(k, 1), 2), 0)
    hi = _C.minimum(_C.floor_divide(k, 2), cnt - 1)
    pair = _C.concatenate([_C.take_along_axis(s, lo, -1), _C.take_along_axis(s, hi, -1)], -1)
    m = _C.mean(pair, -1, None, None, False)
    if inexact:
        if ignore_nan:
            none = _C.equal(_C.reshape(k, lead), 0)
            if bool(_C.any(none)):
                _warn("All-NaN slice encountered")
                m = _C.where(none, _np.nan, m)
        else:
            last = _C.reshape(_C.take(s, _C.asarray(_np.array([cnt - 1])), -1, "raise"), lead)
            m = _C.where(_C.isnan(last), _C.astype(last, m.dtype), m)
    m = _C.astype(m, m.dtype)
    return _to_out(_C.reshape(m, keep_shape if keepdims else lead), out)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (mean of the two middle values; NaN if the slice has a NaN)."""
    return _median_impl("median", a, axis, out, keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median ignoring NaN; an all-NaN slice gives NaN and a RuntimeWarning."""
    return _median_impl("nanmedian", a, axis, out, keepdims, True)


# ------------------------------------------------------------------ averages, spread


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The (weighted) average along ``axis``; ``returned`` adds the sum of the weights."""
    x = _arr(a)
    if weights is None:
        avg = _C.mean(x, axis, None, None, keepdims)
        scl = _C.full(tuple(avg.shape), x.size / _builtins.max(avg.size, 1), avg.dtype)
    else:
        w = _arr(weights)
        if _kind(x) in "biu":
            rdt = _np.result_type(_dt(x), _dt(w), _np.float64)
        else:
            rdt = _np.result_type(_dt(x), _dt(w))
        if tuple(x.shape) != tuple(w.shape):
            if axis is None:
                raise _TE(f"[average] Axis must be specified when shapes of a {tuple(x.shape)} and "
                                f"weights {tuple(w.shape)} differ.")
            if w.ndim != 1:
                raise _TE("[average] 1D weights expected when shapes of a and weights differ.")
            ax = _axes(axis, x.ndim, "average")
            if len(ax) != 1:
                raise _TE("[average] 1D weights expected when shapes of a and weights differ.")
            if w.shape[0] != x.shape[ax[0]]:
                raise _VE(f"[average] Length of weights {w.shape[0]} not compatible with specified axis "
                                 f"{axis} of a {tuple(x.shape)}.")
            shp = [1] * x.ndim
            shp[ax[0]] = w.shape[0]
            w = _C.reshape(w, tuple(shp))
        w = _C.astype(w, rdt)
        scl = _C.sum(_C.broadcast_to(w, tuple(x.shape)), axis, rdt, None, keepdims)
        if bool(_C.any(_C.equal(scl, 0.0))):
            raise ZeroDivisionError("[average] Weights sum to zero, can't be normalized")
        avg = _C.true_divide(_C.sum(_C.multiply(_C.astype(x, rdt), w), axis, rdt, None, keepdims), scl)
    if returned:
        if tuple(scl.shape) != tuple(avg.shape):
            scl = _C.broadcast_to(scl, tuple(avg.shape))
        return avg, _C.astype(scl, avg.dtype)
    return avg


def ptp(a, axis=None, out=None, keepdims=False):
    """Range of values (maximum - minimum) along ``axis``."""
    x = _arr(a)
    return _to_out(_C.subtract(_C.max(x, axis, None, None, keepdims), _C.min(x, axis, None, None, keepdims)), out)


def _cov_matrix(m, y, rowvar, name, dtype=None):
    x = _arr(m)
    if x.ndim > 2:
        raise _VE(f"[{name}] m has more than 2 dimensions (shape {tuple(x.shape)})")
    rdt = _np.result_type(_dt(x), _np.float64) if dtype is None else _np.dtype(dtype)
    if y is not None:
        yy = _arr(y)
        if yy.ndim > 2:
            raise _VE(f"[{name}] y has more than 2 dimensions (shape {tuple(yy.shape)})")
        if dtype is None:
            rdt = _np.result_type(rdt, _dt(yy))
    X = _C.astype(x, rdt)
    if X.ndim < 2:
        X = _C.reshape(X, (1, X.size))
    if not rowvar and X.shape[0] != 1:
        X = _C.transpose(X, (1, 0))
    if X.shape[0] == 0:
        return X, rdt
    if y is not None:
        Y = _C.astype(yy, rdt)
        if Y.ndim < 2:
            Y = _C.reshape(Y, (1, Y.size))
        if not rowvar and Y.shape[0] != 1:
            Y = _C.transpose(Y, (1, 0))
        X = _C.concatenate([X, Y], 0)
    return X, rdt


def _cov_weights(w, N, name, integral):
    w = _arr(w)
    if integral and _kind(w) not in "iub":
        raise _TE(f"[cov] {name} must be integer (got {w.dtype})")
    if w.ndim > 1:
        raise _VE(f"[cov] cannot handle multidimensional {name} (shape {tuple(w.shape)})")
    if w.ndim == 0 or w.shape[0] != N:  # NumPy raises RuntimeError here
        raise _errors.AscendRuntimeError(
            _errors.ErrorCode.INVALID_PARAM,
            f"[cov] incompatible numbers of samples and {name} ({N} and {tuple(w.shape)})")
    if bool(_C.any(_C.less(w, 0))):
        raise _VE(f"[cov] {name} cannot be negative")
    return _C.astype(w, _np.float64)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """Covariance matrix of the variables in the rows (``rowvar``) or columns of ``m`` (and ``y``); weights optional."""
    if ddof is not None and ddof != int(ddof):
        raise _VE("[cov] ddof must be integer")
    X, rdt = _cov_matrix(m, y, rowvar, "cov", dtype)
    if X.shape[0] == 0:
        return _C.reshape(_C.full((0,), 0, rdt), (0, 0)) if X.ndim == 2 else X
    if ddof is None:
        ddof = 0 if bias else 1
    N = X.shape[1]
    w = None
    if fweights is not None:
        w = _cov_weights(fweights, N, "fweights", True)
    if aweights is not None:
        aw = _cov_weights(aweights, N, "aweights", False)
        w = aw if w is None else _C.multiply(w, aw)
    if w is None:
        fact = N - ddof
        avg = _C.mean(X, 1, None, None, True)
    else:
        # NumPy's weighted form: the weighted mean, v1 = sum(w), fact = v1 - ddof * sum(w * a) / v1
        v1 = float(_C.sum(w))
        if v1 == 0:
            raise ZeroDivisionError("[cov] Weights sum to zero, can't be normalized")
        avg = _C.true_divide(_C.sum(_C.multiply(X, _C.reshape(w, (1, -1))), 1, None, None, True), v1)
        if ddof == 0:
            fact = v1
        elif aweights is None:
            fact = v1 - ddof
        else:
            fact = v1 - ddof * float(_C.sum(_C.multiply(w, aw))) / v1
    if fact <= 0:
        _warn("Degrees of freedom <= 0 for slice")
        fact = 0.0
    Xc = _C.astype(_C.subtract(X, avg), rdt)
    Xw = Xc if w is None else _C.multiply(Xc, _C.reshape(w, (1, -1)))
    Xh = _C.transpose(Xw, (1, 0))
    if _kind(Xc) == "c":
        Xh = _C.conjugate(Xh)
    c = _C.astype(_C.true_divide(_C.matmul(Xc, Xh), _C.astype(_C.full((), fact, _np.float64), rdt)), rdt)
    return _C.squeeze(c) if c.shape[0] == 1 else c


def corrcoef(x, y=None, rowvar=True, bias=_np._NoValue, ddof=_np._NoValue, *, dtype=None):
    """Pearson correlation coefficients (``cov`` normalised by the standard deviations, clipped to [-1, 1])."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return _C.true_divide(c, c)
    d = _C.diagonal(c, 0, 0, 1)
    sd = _C.sqrt(d.real if _kind(d) == "c" else d)
    c = _C.true_divide(c, _C.reshape(sd, (-1, 1)))
    c = _C.true_divide(c, _C.reshape(sd, (1, -1)))
    if _kind(c) == "c":
        re = _C.minimum(_C.maximum(c.real, -1.0), 1.0)
        im = _C.minimum(_C.maximum(c.imag, -1.0), 1.0)
        return _C.add(re, _C.multiply(im, 1j))
    return _C.minimum(_C.maximum(c, -1.0), 1.0)


# ------------------------------------------------------------------ differences, integration


def _slice(ndim, axis, sl):
    idx = [slice(None)] * ndim
    idx[axis] = sl
    return tuple(idx)


def diff(a, n=1, axis=-1, prepend=_np._NoValue, append=_np._NoValue):
    """The ``n``-th discrete difference along ``axis`` (``prepend``/``append`` joined first)."""
    if n == 0:
        return _arr(a)
    if n < 0:
        raise _VE(f"[diff] order must be non-negative but got {n!r}")
    x = _arr(a)
    if x.ndim == 0:
        raise _VE("[diff] diff requires input that is at least one dimensional")
    ax = _norm_axis(axis, x.ndim, "diff")
    parts = []
    for v, pos in ((prepend, 0), (append, 1)):
        if v is _np._NoValue:
            continue
        v = _arr(v)
        if v.ndim == 0:
            shp = list(x.shape)
            shp[ax] = 1
            v = _C.broadcast_to(v, tuple(shp))
        parts.append((pos, v))
    if parts:
        seq = [v for p, v in parts if p == 0] + [x] + [v for p, v in parts if p == 1]
        x = _C.concatenate(seq, ax)
    for _ in range(n):
        m = x.shape[ax]
        hi, lo = x[_slice(x.ndim, ax, slice(1, None))], x[_slice(x.ndim, ax, slice(0, _builtins.max(m - 1, 0)))]
        x = _C.not_equal(hi, lo) if _dt(x).kind == "b" else _C.subtract(hi, lo)
    return x


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array (``to_begin``/``to_end`` added)."""
    x = _C.reshape(_arr(ary), (-1,))
    dt = _dt(x)
    d = _C.subtract(x[1:], x[:-1]) if x.shape[0] else x
    seq = []
    for v, nm in ((to_begin, "to_begin"), (to_end, "to_end")):
        if v is None:
            seq.append(None)
            continue
        vv = _arr(v)
        if not _np.can_cast(_dt(vv), dt, casting="same_kind"):
            raise _TE(f"[ediff1d] dtype of `{nm}` ({vv.dtype}) must be compatible with input ary "
                            f"({dt}) under the `same_kind` rule.")
        seq.append(_C.reshape(_C.astype(vv, dt), (-1,)))
    out = ([seq[0]] if seq[0] is not None else []) + [d] + ([seq[1]] if seq[1] is not None else [])
    return _C.concatenate(out, 0) if len(out) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=1):
    """Gradient by second-order central differences inside, first/second-order (``edge_order``) at the edges."""
    x = _arr(f)
    N = x.ndim
    axes = _axes(axis, N, "gradient")
    nax = len(axes)
    nv = len(varargs)
    if nv == 0:
        dxs = [1.0] * nax
    elif nv == 1 and _np.ndim(varargs[0]) == 0:
        dxs = [varargs[0]] * nax
    elif nv == nax:
        dxs = list(varargs)
    else:
        raise _TE("[gradient] invalid number of arguments")
    if edge_order > 2 or edge_order < 1:
        raise _VE("[gradient] 'edge_order' greater than 2 not supported")
    if _kind(x) in "iu":  # bool stays: subtracting booleans is a TypeError, as in NumPy
        x = _C.astype(x, _np.float64)
    odt = x.dtype
    outs = []
    for ax, dx in zip(axes, dxs):
        n = x.shape[ax]
        if n < edge_order + 1:
            raise _VE("[gradient] Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")

        def S(sl, ax=ax):
            return x[_slice(N, ax, sl)]

        uniform = _np.ndim(dx) == 0
        if not uniform:
            d = _arr(dx)
            if d.ndim != 1:
                raise _VE("[gradient] distances must be either scalars or 1d")
            if d.shape[0] != n:
                raise _VE("[gradient] when 1d, distances must match the length of the corresponding "
                                 "dimension")
            if _kind(d) in "iub":
                d = _C.astype(d, _np.float64)
            dxa = _C.subtract(d[1:], d[:-1])
            bshape = [1] * N

            def B(v):
                bshape[ax] = v.shape[0]
                return _C.reshape(v, tuple(bshape))

        if uniform:
            mid = _C.true_divide(_C.subtract(S(slice(2, None)), S(slice(None, -2))), _C.multiply(2.0, dx)) \
                if n > 2 else None
        else:
            dx1, dx2 = B(dxa[:-1]), B(dxa[1:])
            a_ = _C.negative(_C.true_divide(dx2, _C.multiply(dx1, _C.add(dx1, dx2))))
            b_ = _C.true_divide(_C.subtract(dx2, dx1), _C.multiply(dx1, dx2))
            c_ = _C.true_divide(dx1, _C.multiply(dx2, _C.add(dx1, dx2)))
            mid = _C.add(_C.add(_C.multiply(a_, S(slice(None, -2))), _C.multiply(b_, S(slice(1, -1)))),
                         _C.multiply(c_, S(slice(2, None)))) if n > 2 else None
        if edge_order == 1:
            if uniform:
                first = _C.true_divide(_C.subtract(S(slice(1, 2)), S(slice(0, 1))), dx)
                last = _C.true_divide(_C.subtract(S(slice(n - 1, n)), S(slice(n - 2, n - 1))), dx)
            else:
                first = _C.true_divide(_C.subtract(S(slice(1, 2)), S(slice(0, 1))), B(dxa[0:1]))
                last = _C.true_divide(_C.subtract(S(slice(n - 1, n)), S(slice(n - 2, n - 1))), B(dxa[-1:]))
        else:
            if uniform:
                a0, b0, c0 = -1.5 / dx, 2.0 / dx, -0.5 / dx
                a1, b1, c1 = 0.5 / dx, -2.0 / dx, 1.5 / dx
            else:
                d1, d2 = B(dxa[0:1]), B(dxa[1:2])
                a0 = _C.negative(_C.true_divide(_C.add(_C.multiply(2.0, d1), d2), _C.multiply(d1, _C.add(d1, d2))))
                b0 = _C.true_divide(_C.add(d1, d2), _C.multiply(d1, d2))
                c0 = _C.negative(_C.true_divide(d1, _C.multiply(d2, _C.add(d1, d2))))
                e1, e2 = B(dxa[-2:-1]), B(dxa[-1:])
                a1 = _C.true_divide(e2, _C.multiply(e1, _C.add(e1, e2)))
                b1 = _C.negative(_C.true_divide(_C.add(e2, e1), _C.multiply(e1, e2)))
                c1 = _C.true_divide(_C.add(_C.multiply(2.0, e2), e1), _C.multiply(e2, _C.add(e1, e2)))
            first = _C.add(_C.add(_C.multiply(a0, S(slice(0, 1))), _C.multiply(b0, S(slice(1, 2)))),
                           _C.multiply(c0, S(slice(2, 3))))
            last = _C.add(_C.add(_C.multiply(a1, S(slice(n - 3, n - 2))), _C.multiply(b1, S(slice(n - 2, n - 1)))),
                          _C.multiply(c1, S(slice(n - 1, n))))
        parts = [first] + ([mid] if mid is not None else []) + [last]
        g = _C.concatenate([_C.astype(p, odt) for p in parts], ax)
        outs.append(g)
    return outs[0] if len(outs) == 1 else tuple(outs)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the composite trapezoidal rule (sample points ``x`` or spacing ``dx``)."""
    yy = _arr(y)
    ax = _norm_axis(axis, yy.ndim, "trapezoid")
    n = yy.shape[ax]
    if x is None:
        d = dx
    else:
        xx = _arr(x)
        if xx.ndim == 1:
            d = diff(xx)
            shp = [1] * yy.ndim
            shp[ax] = d.shape[0]
            d = _C.reshape(d, tuple(shp))
        else:
            d = diff(xx, axis=ax)
    hi = yy[_slice(yy.ndim, ax, slice(1, None))]
    lo = yy[_slice(yy.ndim, ax, slice(0, _builtins.max(n - 1, 0)))]
    return _C.sum(_C.true_divide(_C.multiply(d, _C.add(hi, lo)), 2.0), ax)


# ------------------------------------------------------------------ interpolation, convolution, polynomials


def interp(x, xp, fp, left=None, right=None, period=None):
    """One-dimensional piecewise-linear interpolation of (``xp``, ``fp``) at ``x``."""
    xv, xpv, fpv = _arr(x), _arr(xp), _arr(fp)
    if xpv.ndim != 1 or fpv.ndim != 1:
        raise _VE(f"[interp] xp and fp must be 1-d sequences (shapes {tuple(xpv.shape)}, "
                         f"{tuple(fpv.shape)})")
    if xpv.shape[0] != fpv.shape[0]:
        raise _VE(f"[interp] fp and xp are not of the same length ({fpv.shape[0]} and {xpv.shape[0]})")
    if xpv.shape[0] == 0:
        raise _VE("[interp] array of sample points is empty")
    if _kind(xv) == "c" or _kind(xpv) == "c":
        raise _TE("[interp] x and xp must be real")
    cplx = _kind(fpv) == "c"
    fdt = _np.complex128 if cplx else _np.float64
    xv = _C.astype(xv, _np.float64)
    xpv = _C.astype(xpv, _np.float64)
    fpv = _C.astype(fpv, fdt)
    if period is not None:
        if period == 0:
            raise _VE("[interp] period must be a non-zero value")
        period = _builtins.abs(period)
        left = right = None
        xv = _C.remainder(xv, period)
        xpv = _C.remainder(xpv, period)
        order = _C.argsort(xpv, -1, False)
        xpv = _C.take(xpv, order, 0, "raise")
        fpv = _C.take(fpv, order, 0, "raise")
        xpv = _C.concatenate([_C.subtract(xpv[-1:], period), xpv, _C.add(xpv[0:1], period)], 0)
        fpv = _C.concatenate([fpv[-1:], fpv, fpv[0:1]], 0)
    m = xpv.shape[0]
    lval = fpv[0] if left is None else _C.astype(_arr(left), fdt)
    rval = fpv[m - 1] if right is None else _C.astype(_arr(right), fdt)
    if m == 1:
        # NumPy's single-point rule: NaN x compares false both ways and gets fp[0]
        return _C.where(_C.less(xv, xpv[0]), lval, _C.where(_C.greater(xv, xpv[0]), rval, fpv[0]))
    j = _C.subtract(_C.searchsorted(xpv, xv, True), 1)
    j = _C.minimum(_C.maximum(j, 0), m - 2)
    x0, x1 = _C.take(xpv, j, 0, "raise"), _C.take(xpv, _C.add(j, 1), 0, "raise")
    f0, f1 = _C.take(fpv, j, 0, "raise"), _C.take(fpv, _C.add(j, 1), 0, "raise")
    slope = _C.true_divide(_C.subtract(f1, f0), _C.subtract(x1, x0))
    res = _C.add(_C.multiply(slope, _C.subtract(xv, x0)), f0)
    if not cplx:
        alt = _C.add(_C.multiply(slope, _C.subtract(xv, x1)), f1)
        res = _C.where(_C.isnan(res), _C.where(_C.equal(f0, f1), f0, alt), res)
    res = _C.where(_C.equal(xv, xpv[m - 1]), fpv[m - 1], res)
    res = _C.where(_C.less(xv, xpv[0]), lval, res)
    res = _C.where(_C.greater(xv, xpv[m - 1]), rval, res)
    res = _C.where(_C.isnan(xv), _np.nan, res)
    return _C.astype(res, fdt)


_MODES = {"full": "full", "f": "full", "same": "same", "s": "same", "valid": "valid", "v": "valid",
          2: "full", 1: "same", 0: "valid"}


def _correlate_full(a, v, rdt):
    """full-mode correlation ``c[k] = sum_j a[k + j - (m - 1)] v[j]`` (length n + m - 1) on the device.

    Shift-and-add over the shorter operand: one fused multiply-add of a shifted view of the
    zero-padded longer operand per tap, so the work is O((n + m) min(n, m)) with O(n + m) memory.
    """
    n, m = a.shape[0], v.shape[0]
    if m > n:  # c_av[k] = c_va[L - 1 - k]: loop over the shorter one
        return _correlate_full(v, a, rdt)[::-1]
    L = n + m - 1
    a = _C.astype(a, rdt)
    v = _C.astype(v, rdt)
    if m >= _BLOCKED_MIN_TAPS and _np.dtype(rdt) in _BLAS_DTYPES:
        return _correlate_full_blocked(a, v, rdt, n, m)
    if m > 1:
        pad = _C.full((m - 1,), 0, rdt)
        a = _C.concatenate([pad, a, pad], 0)
    boolean = _np.dtype(rdt).kind == "b"
    acc = None
    for j in range(m):
        term = _C.logical_and(a[j:j + L], v[j]) if boolean else _C.multiply(a[j:j + L], v[j])
        acc = term if acc is None else (_C.logical_or(acc, term) if boolean else _C.add(acc, term))
        if j % 32 == 31:
            acc = _C.astype(acc, rdt)  # materialise now and then: bounds the pending lazy graph
    return _C.astype(acc, rdt)


_BLOCKED_MIN_TAPS = 64
_BLAS_DTYPES = (_np.dtype(_np.float32), _np.dtype(_np.float64), _np.dtype(_np.complex64), _np.dtype(_np.complex128))
_BLOCKED_CHUNK = 1 << 22  # elements of the gathered operand per GEMM (bounds memory)


def _correlate_full_blocked(a, v, rdt, n, m):
    """full-mode correlation as block-Toeplitz GEMMs (both operands long: BLAS speed, not one pass per tap).

    With block b, output ``k = b p + r`` and tap ``j = b s + t``:
    ``c[b p + r] = sum_s sum_u A2[p + s, u] T_s[u, r]`` where ``A2[q, u] = apad[b q + u]`` (u < 2b)
    and ``T_s[u, r] = v[b s + u - r]`` for ``0 <= u - r < b`` (else 0). Stacking the s blocks makes it
    one GEMM ``(P, 2bS) @ (2bS, b)`` per chunk of output blocks: 4 L m flops, gathers of 2 L m / b.
    Only index arithmetic (from the lengths) runs on the host.
    """
    b = 64 if m < 512 else 128
    L = n + m - 1
    P = -(-L // b)
    S = -(-m // b)
    # apad = [0]*(m-1) + a + zeros up to (P + S + 1) b elements
    tail = (P + S + 1) * b - (n + m - 1)
    apad = _C.concatenate([_C.full((m - 1,), 0, rdt), a, _C.full((tail,), 0, rdt)], 0)
    # vext = v + zeros up to S b, then one zero that the masked-out Toeplitz entries point at
    vext = _C.concatenate([v, _C.full((S * b - m + 1,), 0, rdt)], 0)
    u = _np.arange(2 * b, dtype=_np.int64)
    r = _np.arange(b, dtype=_np.int64)
    d = u[:, None] - r[None, :]                                   # (2b, b): u - r
    sblk = _np.arange(S, dtype=_np.int64)[:, None, None] * b
    tidx = _np.where((d >= 0) & (d < b), sblk + d, S * b)           # (S, 2b, b)
    tbig = _C.take(vext, _C.asarray(tidx.reshape(S * 2 * b, b)), 0, "raise")
    rows = _builtins.max(1, _BLOCKED_CHUNK // (S * 2 * b))
    cols = (_np.arange(S, dtype=_np.int64)[:, None] * b + u[None, :]).reshape(-1)  # b s + u
    parts = []
    for p0 in range(0, P, rows):
        p = _np.arange(p0, _builtins.min(P, p0 + rows), dtype=_np.int64)
        aidx = p[:, None] * b + cols[None, :]                     # b (p + s) + u
        abig = _C.take(apad, _C.asarray(aidx), 0, "raise")
        parts.append(_C.reshape(_C.matmul(abig, tbig), (-1,)))
    full = parts[0] if len(parts) == 1 else _C.concatenate(parts, 0)
    return full[:L]


def _mode_slice(full, n, m, mode, swapped=False):
    if mode == "full":
        return full
    if mode == "same":
        k = (_builtins.min(n, m) - 1) // 2
        if swapped:  # NumPy correlates (v, a) and reverses: the window starts from the other end
            k = _builtins.min(n, m) - 1 - k
        return full[k:k + _builtins.max(n, m)]
    return full[_builtins.min(n, m) - 1:_builtins.max(n, m)]


def _check_1d(a, v, name):
    a, v = _arr(a), _arr(v)
    if a.ndim > 1 or v.ndim > 1:
        raise _VE(f"[{name}] object too deep for desired array (shapes {tuple(a.shape)}, {tuple(v.shape)})")
    a, v = _C.reshape(a, (-1,)), _C.reshape(v, (-1,))
    if a.shape[0] == 0:
        raise _VE(f"[{name}] a cannot be empty")
    if v.shape[0] == 0:
        raise _VE(f"[{name}] v cannot be empty")
    return a, v


def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-d sequences, ``c[k] = sum_n a[n + k] * conj(v[n])`` (modes full/same/valid)."""
    if mode not in _MODES:
        raise _VE(f"[correlate] mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    mode = _MODES[mode]
    a, v = _check_1d(a, v, "correlate")
    rdt = _np.result_type(_dt(a), _dt(v))
    n, m = a.shape[0], v.shape[0]
    if _kind(v) == "c":
        v = _C.conjugate(v)
    full = _correlate_full(a, v, rdt)  # the gather handles len(v) > len(a) directly
    return _mode_slice(full, n, m, mode, n < m)


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-d sequences (modes full/same/valid)."""
    if mode not in _MODES:
        raise _VE(f"[convolve] mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    mode = _MODES[mode]
    a, v = _check_1d(a, v, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    rdt = _np.result_type(_dt(a), _dt(v))
    full = _correlate_full(a, v[::-1], rdt)
    return _mode_slice(full, a.shape[0], v.shape[0], mode)


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


def isscalar(element):
    """Whether ``element`` is a scalar (Python/NumPy number, str, bytes, ...); arrays are not."""
    if isinstance(element, _C.ndarray):
        return False
    return _np.isscalar(element)


def fix(x, out=None):
    """Round towards zero (``numpy.fix``; integers unchanged)."""
    xv = _arr(x)
    if _kind(xv) in "biu":
        return _to_out(_C.astype(xv, xv.dtype), out)
    return _to_out(_C.trunc(xv), out)


def modf(x, out1=None, out2=None):
    """Fractional and integral parts, both with the sign of ``x`` (``modf(inf) = (0, inf)``)."""
    xv = _arr(x)
    if _kind(xv) not in "f":
        xv = _C.astype(xv, _np.result_type(_dt(xv), _np.float16) if _kind(xv) != "c" else _dt(xv))
    if _kind(xv) == "c":
        raise _TE(f"[modf] ufunc 'modf' not supported for the input type {xv.dtype}")
    ip = _C.trunc(xv)
    fp = _C.copysign(_C.where(_C.isinf(xv), 0.0, _C.subtract(xv, ip)), xv)
    fp = _C.astype(fp, xv.dtype)
    return _to_out(fp, out1), _to_out(ip, out2)


def frexp(x, out1=None, out2=None):
    """Mantissa in [0.5, 1) (with the sign of ``x``) and int32 exponent with ``x = m * 2**e``."""
    xv = _arr(x)
    if _kind(xv) == "c":
        raise _TE(f"[frexp] ufunc 'frexp' not supported for the input type {xv.dtype}")
    if _kind(xv) != "f":
        xv = _C.astype(xv, _np.result_type(_dt(xv), _np.float16))
    dt = _dt(xv)
    x64 = _C.astype(xv, _np.float64)  # exact for every float dtype, so subnormals need no care
    special = _C.logical_or(_C.equal(x64, 0.0), _C.logical_not(_C.isfinite(x64)))
    ax = _C.where(special, 1.0, _C.absolute(x64))
    e = _C.add(_C.floor(_C.log2(ax)), 1.0)
    m = _C.ldexp(ax, _C.astype(_C.negative(e), _np.int32))
    # log2 may round across a power of two: fix the exponent by one either way.
    big = _C.greater_equal(m, 1.0)
    e = _C.where(big, _C.add(e, 1.0), e)
    m = _C.where(big, _C.multiply(m, 0.5), m)
    small = _C.less(m, 0.5)
    e = _C.where(small, _C.subtract(e, 1.0), e)
    m = _C.where(small, _C.multiply(m, 2.0), m)
    m = _C.where(special, x64, _C.copysign(m, x64))
    e = _C.where(special, 0.0, e)
    return _to_out(_C.astype(m, dt), out1), _to_out(_C.astype(e, _np.int32), out2)


def divmod(x1, x2, out1=None, out2=None):  # noqa: A001 - NumPy's name
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return _to_out(_C.floor_divide(x1, x2), out1), _to_out(_C.remainder(x1, x2), out2)


def _int_pair(x1, x2, name):
    ops = []
    for v in (x1, x2):
        if isinstance(v, int) and not isinstance(v, bool):
            ops.append(v)  # a Python int stays weak (NEP 50)
            continue
        v = _arr(v)
        if _kind(v) not in "iub":
            raise _TE(f"[{name}] ufunc '{name}' not supported for the input types ({_arr(x1).dtype}, "
                            f"{_arr(x2).dtype})")
        ops.append(v)
    arrays = [v for v in ops if isinstance(v, _C.ndarray)]
    if len(arrays) == 2 and all(_kind(v) == "b" for v in arrays):
        raise _TE(f"[{name}] ufunc '{name}' not supported for the input types (bool, bool)")
    if not arrays:
        ops = [_arr(v) for v in ops]
        arrays = ops
    # zeros of the NEP 50 result dtype and the broadcast shape (Python ints stay weak)
    r = _C.multiply(arrays[0], 0)
    for v in ops:
        r = _C.add(r, _C.multiply(v, 0) if isinstance(v, _C.ndarray) else v * 0)
    if _np.dtype(r.dtype).kind not in "iu":
        raise _TE(f"[{name}] ufunc '{name}' not supported for the input types ({_arr(x1).dtype}, "
                        f"{_arr(x2).dtype})")
    return _C.add(ops[0], r), _C.add(ops[1], r)


def _gcd(a, b):
    a, b = _C.absolute(a), _C.absolute(b)
    while bool(_C.any(_C.not_equal(b, 0))):
        nz = _C.not_equal(b, 0)
        safe = _C.where(nz, b, 1)
        a, b = _C.where(nz, b, a), _C.where(nz, _C.remainder(a, safe), 0)
        a, b = _C.astype(a, a.dtype), _C.astype(b, b.dtype)  # materialise: keeps the lazy graph small
    return a


def gcd(x1, x2, out=None):
    """Greatest common divisor of ``|x1|`` and ``|x2|`` (integers; ``gcd(0, 0) = 0``)."""
    a, b = _int_pair(x1, x2, "gcd")
    dt = a.dtype
    return _to_out(_C.astype(_gcd(a, b), dt), out)


def lcm(x1, x2, out=None):
    """Lowest common multiple of ``|x1|`` and ``|x2|`` (integers; 0 if either is 0)."""
    a, b = _int_pair(x1, x2, "lcm")
    dt = a.dtype
    g = _gcd(a, b)
    zero = _C.equal(g, 0)
    # |a / g| * |b| in the result dtype: wraps on overflow exactly as NumPy's loop does
    r = _C.multiply(_C.absolute(_C.floor_divide(a, _C.where(zero, 1, g))), _C.absolute(b))
    return _to_out(_C.astype(_C.where(zero, 0, r), dt), out)


def lexsort(keys, axis=-1):
    """Indices that sort by several keys, the last key primary (stable successive argsorts)."""
    if isinstance(keys, _C.ndarray) or isinstance(keys, _np.ndarray):
        k = _arr(keys)
        if k.ndim == 0:
            raise _TE("[lexsort] need sequence of keys with len > 0 in lexsort")
        ks = [k[i] for i in range(k.shape[0])]
    else:
        ks = [_arr(v) for v in keys]
    if not ks:
        raise _TE("[lexsort] need sequence of keys with len > 0 in lexsort")
    shp = tuple(ks[0].shape)
    for v in ks:
        if tuple(v.shape) != shp:
            raise _VE(f"[lexsort] all keys need to be the same shape (got {shp} and {tuple(v.shape)})")
    if len(shp) == 0:  # NumPy: 0-d keys sort trivially
        return _C.full((), 0, _np.int64)
    ax = _norm_axis(axis, len(shp), "lexsort")
    idx = _C.argsort(ks[0], ax, False)
    for v in ks[1:]:
        perm = _C.argsort(_C.take_along_axis(v, idx, ax), ax, False)
        idx = _C.take_along_axis(idx, perm, ax)
    return idx
