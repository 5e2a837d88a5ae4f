"""Statistics of the array namespace (NumPy's ``lib/_function_base_impl``
and ``lib/_nanfunctions_impl`` statistics).

The order statistics ``median``/``percentile``/``quantile`` and their
NaN-ignoring forms, ``average``, ``ptp``, ``cov``/``corrcoef``. Every function
is a composition of pyasc device ops (elementwise ops, which fuse lazily,
reductions, sort/argsort, take/take_along_axis, concatenate, matmul): the data
never goes through NumPy. NumPy is only asked for dtype rules on 1-element
dummies (``_np_dtype``) and for parameter arithmetic that does not touch the
data. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import warnings as _warnings

import numpy as _np

from . import _C
from . import _signatures as _sig
from . import errors as _errors
from ._helpers import _alloc_check
from ._helpers import _BF16, _IE, _NIE, _TE, _VE, _arr, _axes, _dt, _is_inexact, _kind, _np_dtype, _to_out, _warn

__all__ = [
    "median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile", "average", "ptp", "cov",
    "corrcoef",
]


# ------------------------------------------------------------------ quantiles

_ALPHA_BETA = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
               "linear": (1.0, 1.0), "median_unbiased": (1 / 3, 1 / 3), "normal_unbiased": (3 / 8, 3 / 8)}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_METHODS = tuple(_ALPHA_BETA) + _DISCRETE + ("averaged_inverted_cdf", "midpoint")


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


def _q_array(name, q, scale):
    """q as NumPy's quantile/percentile check it, on the host (q is a parameter, not data):
    percentile's ``true_divide(q, 100)`` (a str q: TypeError), then ``_quantile_is_valid`` (a short
    1-d q element by element, any other q.min()/q.max(): an empty 2-d q is a ValueError, a q beyond
    int64 (an object array) compares as Python numbers)."""
    qa = _np.asarray(q)
    if scale != 1:
        try:
            qa = _np.asarray(_np.true_divide(qa, scale))
        except TypeError as e:
            raise _TE(f"[{name}] q: {e}") from None
    try:
        if qa.ndim == 1 and qa.size < 10:
            ok = _builtins.all(0.0 <= v <= 1.0 for v in qa)
        elif qa.size == 0:
            raise _VE(f"[{name}] zero-size array to reduction operation minimum which has no identity "
                      f"(q of shape {qa.shape})")
        else:
            ok = bool(qa.min() >= 0 and qa.max() <= 1)
    except TypeError as e:  # a str q: its comparison / minimum loop
        raise _TE(f"[{name}] q must be real numbers: {e}") from None
    if not ok:
        rng = "[0, 100]" if scale == 100 else "[0, 1]"
        raise _VE(f"[{name}] {'Percentiles' if scale == 100 else 'Quantiles'} must be in the range {rng}")
    return qa, qa.dtype


def _q_real(name, qa, method):
    """A complex q passes NumPy's range check (complex numbers compare lexicographically) and the
    weights check; NumPy fails only at the index arithmetic (its floor ufunc), after the method --
    except 'nearest', whose around() takes complex indices and whose intp cast keeps the real part."""
    if qa.dtype.kind == "c" and method == "nearest":
        _warnings.warn("Casting complex values to real discards the imaginary part",
                       _np.exceptions.ComplexWarning, stacklevel=4)
        return qa.real.astype(_np.float64)
    if qa.dtype.kind not in "biuf":
        raise _TE(f"[{name}] ufunc 'floor' not supported for the input types: q must be real numbers, "
                  f"not {qa.dtype}")
    return qa.astype(_np.float64)


def _quantile_impl(name, a, q, axis, out, overwrite_input, method, keepdims, ignore_nan, scale, weights=None):
    """NumPy's order of checks: a's dtype, q, weights, (nan*: an empty a is nanmean's), the axis,
    q's dimensions, the method, an empty slice, then the kernel's dtype errors."""
    del overwrite_input  # the input is never modified: the sort works on a copy
    x = _arr(a)
    if _kind(x) == "c":
        raise _TE(f"[{name}] a must be an array of real numbers, not {x.dtype}")
    qn, qdt = _q_array(name, q, scale)
    if weights is not None:
        _weights_unsupported(name, method)
    if ignore_nan and x.size == 0:  # NumPy's _nanquantile_unchecked: nanmean (NaN, q's shape dropped)
        from . import numeric as _numeric  # noqa: PLC0415 - (imports this module)
        return _numeric.nanmean(x, axis, out=out, keepdims=keepdims)
    axs = _axes(axis, x.ndim, name)
    keepdims = _ureduce_keepdims(name, keepdims)
    if qn.ndim > 2:
        raise _VE(f"[{name}] q must be a scalar or 1d (got {qn.ndim} dimensions)")
    if x.size > 1 << 32:
        # (a huge broadcast view) NumPy's _ureduce checks the axis, then copies the input before
        # the kernel (whose dtype errors, a bool subtraction, come after)
        _alloc_check(name, x.shape, x.dtype)
    try:  # NumPy looks the method up in a dict: an unhashable one (an array) is its TypeError
        hash(method)
    except TypeError as e:
        raise _TE(f"[{name}] method: {e}") from None
    if method not in _METHODS:
        raise _VE(f"[{name}] {method!r} is not a valid method. Use one of: {_METHODS}")
    qn = _q_real(name, qn, method)
    cnt = 1
    for i in axs:
        cnt *= x.shape[i]
    if cnt == 0 and not ignore_nan and (qn.size or _is_inexact(x)):
        # NumPy indexes the empty slice (arr[-1] for its NaN check, arr[index] for a q)
        raise _IE(f"[{name}] cannot take a quantile of an empty slice (shape {tuple(x.shape)}, axis {axis!r})")
    weak_q = type(q) in (int, float)  # noqa: E721 - NumPy's rule: exact Python int/float are weak
    # NumPy's 'linear' with an integer (or bool) q takes the elements at (n - 1) * q: no
    # interpolation, the input's dtype (a bool array too)
    int_q = method == "linear" and qdt.kind in "biu"
    if weak_q:
        rdt = _np_dtype(_np.quantile, _dt(x), 0 if int_q else 0.5, method=method)
    else:
        rdt = _np_dtype(_np.quantile, _dt(x), _np.asarray([0.5]).astype(qdt), method=method)
    keep_shape = tuple(1 if i in axs else s for i, s in enumerate(x.shape))
    rest = [i for i in range(x.ndim) if i not in axs]
    # Move the reduced axes last and merge them into one.
    y = _C.transpose(x, tuple(rest) + axs) if x.ndim else x
    lead = tuple(x.shape[i] for i in rest)
    y = _C.reshape(y, lead + (cnt,))
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
        if g is None or int_q:
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
            elif _np.dtype(x.dtype) != _BF16:
                # (NumPy propagates NaN only for its own inexact types: np.issubdtype(bfloat16,
                # np.inexact) is False, so a bfloat16 NaN just sorts last and enters the lerp)
                last = _C.take(s, _C.asarray(_np.array([cnt - 1])), -1, "raise")
                res = _C.where(_C.isnan(last), _C.astype(last, rdt), res)
    # NumPy puts the q dimensions first.
    res = _C.transpose(res, (res.ndim - 1,) + tuple(range(res.ndim - 1)))
    tail = keep_shape if keepdims else lead
    res = _C.reshape(res, tuple(qn.shape) + tuple(tail))
    return _to_out(res, out)


def _method_differs(name, method):
    """NumPy's ``method != "inverted_cdf"`` as its ``if`` reads it: a method given as an array is
    compared elementwise (a dtype with no such comparison, bfloat16: the not_equal ufunc's
    TypeError), then taken by its truth value (several or no elements: ValueError)."""
    if not isinstance(method, (_C.ndarray, _np.ndarray)):
        return method != "inverted_cdf"
    try:  # (one element of the dtype decides whether the comparison exists: a huge view is never read)
        _np.zeros((), _dt(method)) != "inverted_cdf"  # noqa: B015
    except TypeError as e:
        raise _TE(f"[{name}] method of dtype {_dt(method)}: {e}") from None
    if method.size != 1:
        what = "an empty array" if method.size == 0 else "an array with more than one element"
        raise _VE(f"[{name}] method: The truth value of {what} is ambiguous (shape {tuple(method.shape)})")
    return True  # (pyasc arrays hold numbers: none equals the str)


def _weights_unsupported(name, method):
    if _method_differs(name, method):  # NumPy's check, before any use of the weights
        raise _VE(f"[{name}] Only method 'inverted_cdf' supports weights. Got: {method}.")
    raise _NIE(f"[{name}] weights are not supported by pyasc")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None):
    """The ``q``-th quantiles (0 <= q <= 1) of ``a`` along ``axis`` (NumPy's 13 ``method`` values)."""
    return _quantile_impl("quantile", a, q, axis, out, overwrite_input, method, keepdims, False, 1, weights)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None):
    """The ``q``-th percentiles (0 <= q <= 100) of ``a`` along ``axis`` (see :func:`quantile`)."""
    return _quantile_impl("percentile", a, q, axis, out, overwrite_input, method, keepdims, False, 100, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None):
    """Quantiles ignoring NaN; an all-NaN slice gives NaN and a RuntimeWarning."""
    return _quantile_impl("nanquantile", a, q, axis, out, overwrite_input, method, keepdims, True, 1, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None):
    """Percentiles ignoring NaN; an all-NaN slice gives NaN and a RuntimeWarning."""
    return _quantile_impl("nanpercentile", a, q, axis, out, overwrite_input, method, keepdims, True, 100, weights)


def _ureduce_keepdims(name, keepdims):
    """keepdims as NumPy's _ureduce (median, quantile, percentile and their nan- forms) reads it:
    its truth value, right after the axis and before the kernel (an array of several elements:
    the truth-value ValueError, before bool data's subtract TypeError or overwrite_input's test)."""
    try:
        return bool(keepdims)
    except (TypeError, ValueError) as e:
        cls = _errors.AscendTypeError if isinstance(e, TypeError) else _errors.AscendValueError
        raise cls(_errors.ErrorCode.INVALID_PARAM, f"[{name}] keepdims: {e}") from None


def _median_impl(name, a, axis, out, keepdims, ignore_nan, overwrite_input=False):
    """NumPy's median: the mean of the middle one or two elements of each sorted slice."""
    x = _arr(a)
    axs = _axes(axis, x.ndim, name)
    keepdims = _ureduce_keepdims(name, keepdims)
    if overwrite_input is not False:
        # NumPy's _median tests `if overwrite_input:` once the axis is normalized (pyasc never
        # overwrites its input): an array of several elements is the truth-value ValueError
        try:
            bool(overwrite_input)
        except ValueError as e:
            raise _VE(f"[{name}] overwrite_input: {e}") from None
    keep_shape = tuple(1 if i in axs else s for i, s in enumerate(x.shape))
    rest = [i for i in range(x.ndim) if i not in axs]
    lead = tuple(x.shape[i] for i in rest)
    if x.size == 0:
        _warn("Mean of empty slice")
        rdt = _np_dtype(_np.mean, _dt(x))
        # NumPy's mean of nothing: 0 / 0, a complex division for complex (NaN in both parts)
        fill = complex(_np.nan, _np.nan) if _np.dtype(rdt).kind == "c" else _np.nan
        return _to_out(_C.full(keep_shape if keepdims else lead, fill, rdt), out)
    cnt = 1
    for i in axs:
        cnt *= x.shape[i]
    y = _C.transpose(x, tuple(rest) + axs) if x.ndim else x
    y_ = _C.reshape(y, lead + (cnt,))
    s = _C.sort(y_, -1, False)  # NaN last
    inexact = _is_inexact(x)
    if ignore_nan and inexact:
        k = _C.sum(_C.logical_not(_C.isnan(s)), -1, _np.int64, None, True)
    else:
        k = _C.full(lead + (1,), cnt, _np.int64)
    lo = _C.maximum(_C.floor_divide(_C.subtract(k, 1), 2), 0)
    hi = _C.minimum(_C.floor_divide(k, 2), cnt - 1)
    mid = _C.take_along_axis(s, lo, -1)
    pair = _C.concatenate([mid, _C.take_along_axis(s, hi, -1)], -1)
    # An odd count is the mean of the one middle element, as NumPy takes it (3e38 stays
    # 3e38 in float32 where 3e38 + 3e38 would overflow); an even one the mean of the two.
    m = _C.where(_C.equal(_C.reshape(lo, lead), _C.reshape(hi, lead)), _C.mean(mid, -1, None, None, False),
                 _C.mean(pair, -1, None, None, False))
    if inexact:
        if ignore_nan:
            none = _C.equal(_C.reshape(k, lead), 0)
            if bool(_C.any(none)):
                _warn("All-NaN slice encountered")
                fill = _np.nan
                if _kind(x) == "c" and (len(axs) == x.ndim or cnt >= 600):
                    # NumPy's _nanmedian1d (the path of a 1-d reduction, and of slices of 600 or
                    # more) answers an all-NaN slice with its last element, complex NaN parts as
                    # they are; the masked small-slice path fills nan + 0j
                    fill = _C.reshape(_C.take(y_, _C.asarray(_np.array([cnt - 1])), -1, "raise"), lead)
                m = _C.where(none, fill, m)
        elif _np.dtype(x.dtype) != _BF16:  # (as in quantile: NumPy's median propagates no bfloat16 NaN)
            last = _C.reshape(_C.take(s, _C.asarray(_np.array([cnt - 1])), -1, "raise"), lead)
            m = _C.where(_C.isnan(last), _C.astype(last, m.dtype), m)
    m = _C.astype(m, m.dtype)
    return _to_out(_C.reshape(m, keep_shape if keepdims else lead), out)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along ``axis`` (mean of the two middle values; NaN if the slice has a NaN)."""
    return _median_impl("median", a, axis, out, keepdims, False, overwrite_input)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median ignoring NaN; an all-NaN slice gives NaN and a RuntimeWarning."""
    x = _arr(a)
    if x.size == 0:  # NumPy: np.nanmean of the empty array, with its axis and keepdims rules
        from ._manipulation import nanmean  # noqa: PLC0415 - (imports this module)

        return nanmean(x, axis, out=out, keepdims=keepdims)
    return _median_impl("nanmedian", x, axis, out, keepdims, True)


# ------------------------------------------------------------------ averages, spread


def average(a, axis=None, weights=None, returned=False, *, keepdims=_sig._NV):
    """The (weighted) average along ``axis``; ``returned`` adds the sum of the weights. As NumPy,
    ``axis`` is checked first (AxisError), then ``keepdims`` (a bool or an int)."""
    x = _arr(a)
    if axis is not None:
        axis = _axes(axis, x.ndim, "average")  # NumPy's normalize_axis_tuple
    keepdims = _sig.keepdims_flag("average", keepdims)
    if weights is None:
        avg = _C.mean(x, axis, None, None, keepdims)
        if avg.size == 0:  # NumPy computes scl = a.size / avg.size in Python even when not returned
            raise ZeroDivisionError(f"[average] division by zero: the average of shape {tuple(avg.shape)} is empty")
        scl = _C.full(tuple(avg.shape), x.size / avg.size, avg.dtype)
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
            # NumPy 2's _weights_are_valid: the weights' shape is a's along the axes (in the
            # order given), then they are transposed to the axes' order and given 1s elsewhere
            if tuple(w.shape) != tuple(x.shape[i] for i in axis):
                raise _VE(f"[average] Shape of weights must be consistent with shape of a along specified axis "
                          f"(weights {tuple(w.shape)}, a {tuple(x.shape)}, axis {axis}).")
            order = sorted(range(len(axis)), key=lambda k: axis[k])
            w = _C.reshape(_C.transpose(w, tuple(order)),
                           tuple(s if i in axis else 1 for i, s in enumerate(x.shape)))
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
    _sig._no_list_axis("ptp", axis)  # (NumPy: maximum.reduce)
    if type(keepdims) is not bool:  # (maximum.reduce's conversion: a C int, not any int's truthiness)
        keepdims = _sig.keepdims_flag("ptp", keepdims)
    x = _arr(a)
    if _sig._zero_d_axis(x, axis):  # (maximum.reduce reads axis 0/-1 of a 0-d array as None)
        axis = None
    elif isinstance(axis, tuple):  # maximum.reduce reads the entries in order: index, then range
        _sig.check_axis(axis, x.ndim, ufunc=True)
    return _to_out(_C.subtract(_C.max(x, axis, None, None, keepdims), _C.min(x, axis, None, None, keepdims)), out)


def _cov_matrix(m, y, rowvar, name, dtype=None):
    x = _arr(m)
    if x.ndim > 2:
        raise _VE(f"[{name}] m has more than 2 dimensions (shape {tuple(x.shape)})")
    if dtype is not None:  # (np.dtype() of an array would read its .dtype: NumPy's array(m, dtype=) refuses it)
        _sig.check_dtype(name, dtype)
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


def _object_cov_columns(m, y, rowvar):
    """The number of observations NumPy's cov sees for an ``m``/``y`` it holds as an object array
    (host shapes only, nothing computed), or None when NumPy fails before the weights too."""
    try:
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")
            xs = [_np.array(v, ndmin=2, dtype=object) for v in ((m,) if y is None else (m, y))]
    except Exception:  # noqa: BLE001 - NumPy's own conversion fails first: that error stands
        return None
    if any(_np.ndim(v) > 2 for v in ((m,) if y is None else (m, y))):
        return None
    X = xs[0] if rowvar or _np.ndim(m) == 1 else xs[0].T
    if X.shape[0] == 0:
        return None
    return X.shape[1]


def _cov_weights(w, N, name, integral):
    # NumPy: asarray(w, dtype=float), fweights integral in value (2.0 is accepted), then
    # RuntimeError for several dimensions or another length, ValueError for a negative weight
    w = _arr(w)
    if _kind(w) == "c":
        raise _TE(f"[cov] {name}: complex weights cannot be converted to float")
    if integral and _kind(w) not in "iub" and w.size:
        wf = _C.astype(w, _np.float64)
        if not bool(_C.all(_C.equal(wf, _C.rint(wf)))):
            raise _TE(f"[cov] {name} must be integer")
    if w.ndim > 1:
        raise _errors.AscendRuntimeError(_errors.ErrorCode.INVALID_PARAM,
                                         f"[cov] cannot handle multidimensional {name} (shape {tuple(w.shape)})")
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
    try:
        X, rdt = _cov_matrix(m, y, rowvar, "cov", dtype)
    except _errors.AscendUnsupportedDtypeError:
        # NumPy computes with an object array (None, a str) until a later check fails: the weights'
        # checks (their RuntimeError/ValueError) come before its arithmetic's TypeError
        N = _object_cov_columns(m, y, rowvar)
        if N is not None:
            for wv, nm, integral in ((fweights, "fweights", True), (aweights, "aweights", False)):
                if wv is not None:
                    _cov_weights(wv, N, nm, integral)
        raise
    if X.shape[0] == 0:
        return _C.reshape(_C.full((0,), 0, _np.float64), (0, 0)) if X.ndim == 2 else X  # NumPy: np.array([]).reshape(0, 0)
    if ddof is None:
        ddof = 0 if bias else 1
    N = X.shape[1]
    w = None
    if fweights is not None:
        w = _cov_weights(fweights, N, "fweights", True)
    if aweights is not None:
        aw = _cov_weights(aweights, N, "aweights", False)
        w = aw if w is None else _C.multiply(w, aw)
    if _np.dtype(rdt).kind in "iub":  # NumPy subtracts the float mean in place (X -= avg): same_kind
        raise _TE(f"[cov] Cannot cast ufunc 'subtract' output from dtype('float64') to dtype('{_np.dtype(rdt)}') "
                  "with casting rule 'same_kind'")
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


# ------------------------------------------------------------------ var / std with where=, mean=


def _host_scalar_logic(op, fn):
    """``fn()`` evaluated on host NumPy objects (counts and ddof, never the data): its TypeError /
    ValueError (ddof=None, an array of several ddofs in an ``if``) as pyasc's classes."""
    try:
        return fn()
    except TypeError as e:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, f"[{op}] ddof: {e}") from None
    except ValueError as e:
        raise _errors.AscendValueError(_errors.ErrorCode.INVALID_PARAM, f"[{op}] ddof: {e}") from None


def var_std(op, a, axis, dtype, out, ddof, keepdims, where, mean):
    """``var``/``std`` as numpy._core._methods._var/_std compute them, for the calls the C++ kernel
    does not take: ``where=`` (a boolean mask), ``mean=`` (a precomputed mean, broadcast against
    ``a``), a ``ddof`` that is not a Python number (NumPy compares and subtracts it: a bool, an
    array). The items are counted (along ``axis``, or the True values of ``where``), the mean is
    the masked sum over the count, the squares of the deviations (|d|**2 for complex) are summed
    over the mask and divided by max(count - ddof, 0) in the sum's dtype; ``std`` is its sqrt."""
    x = _arr(a)
    count_axes = None
    if where is not _sig._NV and where is not True:
        # (NumPy's count: where broadcast, then the axis read by a ufunc sum, before where='s cast)
        count_axes = _sig.where_count_axes(op, x, axis, where)
    w = None if count_axes is None else _sig._where_mask(op, where, tuple(x.shape))
    if w is not None:  # (NumPy counts a where= mask with a ufunc sum: keepdims read first)
        keepdims = _sig.keepdims_flag(op, keepdims)
    if w is None:
        axes = tuple(range(x.ndim)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        items = 1
        for ax in axes:
            items *= x.shape[_np.lib.array_utils.normalize_axis_index(ax, x.ndim)]
        rcount = _np.intp(items)
    else:
        # (NumPy's count is the sum of where's values, not of its truth values: _sig._where_count)
        rcount = _sig._where_count(op, where, tuple(x.shape), count_axes, keepdims).numpy()
    dd = ddof.numpy() if isinstance(ddof, _C.ndarray) else ddof
    few = _host_scalar_logic(op, lambda: bool(dd >= rcount) if w is None else bool(_np.any(dd >= rcount)))
    if few:
        _warn("Degrees of freedom <= 0 for slice")
    if w is None:  # (NumPy: the mean's sum converts dtype= and out= before the second reads keepdims)
        _sig.check_dtype(op, dtype)
        if out is not None and not isinstance(out, tuple):
            _sig.check_out(op, out)
        keepdims = _sig.keepdims_flag(op, keepdims)
    if dtype is None and _kind(x) in "biu":
        dtype = _np.float64
    mask = {} if w is None else {"where": w}
    if mean is not _sig._NV and mean is not None:
        # a Python number stays a weak scalar in NumPy's arr - arrmean (float32 data with
        # mean=2**63 is float32, not the float64 of a uint64 array)
        arrmean = mean if type(mean) in (int, float, complex) else _arr(mean)
    else:
        s = _sig.sum(x, axis, dtype, None, True, **mask)
        div = rcount if _np.ndim(rcount) == 0 else rcount.reshape(tuple(s.shape))
        arrmean = _C.astype(_C.true_divide(s, _C.asarray(div)), s.dtype)
    d = _C.subtract(x, arrmean)
    if _kind(d) == "c" and _kind(x) not in "fiu":  # (NumPy squares by the input's kind: float or
        # integer data with a complex mean= squares the complex deviations, x * x, a complex variance;
        # complex, bool or bfloat16 data take |x|**2)
        re, im = d.real, d.imag
        sq = _C.add(_C.multiply(re, re), _C.multiply(im, im))
    else:
        sq = _C.multiply(d, d)
    ret = _sig.sum(sq, axis, dtype, None, keepdims, **mask)
    rc = _host_scalar_logic(op, lambda: _np.maximum(rcount - dd, 0))
    ret = _C.astype(_C.true_divide(ret, _C.asarray(rc)), ret.dtype)
    if op == "std":
        if out is None and ret.ndim == 0:
            # NumPy's _std takes a scalar variance back to its own type: int16(sqrt(7)) == 2
            ret = _C.astype(_C.sqrt(ret), ret.dtype)
        else:
            # an array variance is square-rooted in place (sqrt(ret, out=ret)): the loop's float
            # result must cast to the variance's dtype under same_kind (an int dtype= cannot)
            rdt = _np.dtype(out.dtype) if out is not None else _dt(ret)
            loop = _np.sqrt(_np.zeros((), rdt)).dtype
            if not _np.can_cast(loop, rdt, "same_kind"):
                raise _TE(f"[std] Cannot cast ufunc 'sqrt' output from dtype('{loop}') to dtype('{rdt}') with "
                          "casting rule 'same_kind'")
            ret = _C.sqrt(ret)
    return _to_out(ret, out)
