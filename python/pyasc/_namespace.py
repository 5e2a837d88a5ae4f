"""Array-namespace functions that are compositions of pyasc primitives.

Creation (``linspace``, ``eye``, ``identity``, ``tri``, ``tril``, ``triu``,
``meshgrid``), manipulation views (``flip``, ``ravel``, ``swapaxes``, ``moveaxis``; the
functions that move data are in :mod:`pyasc._manipulation`), elementwise compositions
(``clip``, ``round``; ``count_nonzero`` is in _sorting.py) and dtype queries (``finfo``,
``iinfo``, ``can_cast``, ``isdtype``, ``result_type``). Every function
follows NumPy 2's semantics; views are returned where NumPy returns views.
Re-exported by :mod:`pyasc.numeric` (``import pyasc as asc; asc.flip(...)``).
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C
from . import errors as _errors
from ._array_api import check_device as _check_device

_BF16 = _np.dtype(_ml_dtypes.bfloat16)


def _arr(x):
    return _C.asarray(x)


def _axis(axis, ndim):
    """Normalises one axis like NumPy (AxisError, a ValueError and IndexError, when out of range;
    NumPy's OverflowError for an int outside int64)."""
    axis = _operator.index(axis)
    if not -(1 << 63) <= axis < (1 << 63):
        from .errors import AscendOverflowError, ErrorCode

        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[axis] Python int too large to convert to C long ({axis})")
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def _axes(axis, ndim):
    if isinstance(axis, (tuple, list)):
        out = tuple(_axis(a, ndim) for a in axis)
        if len(set(out)) != len(out):
            raise ValueError("repeated axis")
        return out
    return (_axis(axis, ndim),)


# ------------------------------------------------------------------ dtypes


from ._array_api import _dtype_of, finfo, iinfo  # noqa: E402,F401 - NumPy's fields with the array API's types


def can_cast(from_, to, casting="safe"):
    """Whether a value of dtype (or array) ``from_`` can be cast to ``to`` under ``casting``."""
    return bool(_np.can_cast(_dtype_of(from_), _dtype_of(to), casting=casting))


_KINDS = {
    "bool": lambda d: d.kind == "b",
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d.kind == "f" or d == _BF16,
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc" or d == _BF16,
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric') or a tuple of them."""
    d = _np.dtype(dtype)
    if isinstance(kind, tuple):
        return _builtins.any(isdtype(d, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"kind argument must be a dtype or one of {sorted(_KINDS)}, got {kind!r}")
        return _KINDS[kind](d)
    return d == _np.dtype(kind)


def result_type(*arrays_and_dtypes):
    """The dtype NumPy 2 gives an operation on the operands (arrays, dtypes, and
    Python scalars, which are weak as in NEP 50)."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    strong, weak = [], []
    for x in arrays_and_dtypes:
        if isinstance(x, (bool, int, float, complex)) and not hasattr(x, "dtype"):
            weak.append(x)
        elif isinstance(x, _C.ndarray):
            strong.append(_C.empty((0,), x.dtype))
        else:
            strong.append(_C.empty((0,), _dtype_of(x)))
    if not strong:
        return _C.result_type_of(*weak[:1]) if len(weak) == 1 else _fold_weak(weak)
    acc = strong[0]
    for s in strong[1:]:
        acc = _C.empty((0,), _C.result_type_of(acc, s))
    for w in weak:
        acc = _C.empty((0,), _C.result_type_of(acc, w))
    return acc.dtype


def _fold_weak(weak):
    acc = _C.empty((0,), _C.result_type_of(weak[0]))
    for w in weak[1:]:
        acc = _C.empty((0,), _C.result_type_of(acc, w))
    return acc.dtype


# ------------------------------------------------------------------ creation


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``num`` evenly spaced values over [start, stop] (NumPy's formula, so the values match);
    ``device`` may only be 'cpu'."""
    _check_device("linspace", device)
    # pyasc arrays go to NumPy as NumPy views (passing them would dispatch back here through
    # __array_function__: infinite recursion)
    start, stop = (v.numpy() if isinstance(v, _C.ndarray) else v for v in (start, stop))
    res = _np.linspace(start, stop, num=num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
    if retstep:
        return _C.array(res[0]), res[1]
    return _C.array(res)


def eye(N, M=None, k=0, dtype=float, *, device=None):  # noqa: N803 - NumPy's names
    """A 2-D array with ones on the k-th diagonal and zeros elsewhere (float64 unless ``dtype``);
    ``device`` may only be 'cpu'."""
    _check_device("eye", device)
    return _C.array(_np.eye(N, M, k=k, dtype=float if dtype is None else dtype))


def identity(n, dtype=None):
    """The n x n identity matrix (float64 unless ``dtype``)."""
    return _C.array(_np.identity(n, dtype=float if dtype is None else dtype))


def tri(N, M=None, k=0, dtype=float):  # noqa: N803
    """An N x M array with ones at and below the k-th diagonal."""
    return _C.array(_np.tri(N, M, k=k, dtype=dtype))


def _tri_mask(x, k, lower):
    n, m = x.shape[-2], x.shape[-1]
    mask = _np.tri(n, m, k=k if lower else k - 1, dtype=bool)
    return _C.asarray(mask if lower else ~mask)


def tril(m, k=0):
    """A copy of ``m`` with the elements above the k-th diagonal zeroed (last two axes)."""
    x = _arr(m)
    if x.ndim < 1:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, "[tril] needs an array of at least one "
                                      "dimension, got a 0-d array (NumPy: TypeError)")
    x2 = x if x.ndim >= 2 else _C.broadcast_to(x, (x.shape[0], x.shape[0]))
    return _C.where(_tri_mask(x2, k, True), x2, _C.full((), 0, x.dtype))


def triu(m, k=0):
    """A copy of ``m`` with the elements below the k-th diagonal zeroed (last two axes)."""
    x = _arr(m)
    if x.ndim < 1:
        raise _errors.AscendTypeError(_errors.ErrorCode.INVALID_DTYPE, "[triu] needs an array of at least one "
                                      "dimension, got a 0-d array (NumPy: TypeError)")
    x2 = x if x.ndim >= 2 else _C.broadcast_to(x, (x.shape[0], x.shape[0]))
    return _C.where(_tri_mask(x2, k, False), x2, _C.full((), 0, x.dtype))


def _writeable_broadcast(a, shape):
    # NumPy builds meshgrid(copy=False) with broadcast_arrays: its views stay writeable
    # when the input is, unlike broadcast_to's read-only views.
    v = _C.broadcast_to(a, shape)
    if a.flags.writeable:
        _C._set_writeable(v, True)
    return v


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (NumPy's meshgrid; inputs are flattened), as a
    tuple (NumPy 2.4's type and the array API's from 2025.12; its 2024.12 text says a list)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    s0 = (1,) * ndim
    xs = [_C.reshape(_arr(x), (-1,)) for x in xi]
    out = [_C.reshape(x, s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(xs)]
    if indexing == "xy" and ndim > 1:
        out[0] = _C.reshape(out[0], (1, -1) + s0[2:])
        out[1] = _C.reshape(out[1], (-1, 1) + s0[2:])
    if not sparse:
        lengths = [x.shape[0] for x in xs]
        if indexing == "xy" and ndim > 1:
            lengths[0], lengths[1] = lengths[1], lengths[0]
        out = [_writeable_broadcast(o, tuple(lengths)) for o in out]
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


# ------------------------------------------------------------------ manipulation


def ravel(x):
    """The elements of ``x`` as a 1-D array (a view when the strides allow)."""
    return _C.reshape(_arr(x), (-1,))


def swapaxes(x, axis1, axis2):
    """A view of ``x`` with two axes interchanged."""
    return _arr(x).swapaxes(axis1, axis2)


def moveaxis(x, source, destination):
    """A view of ``x`` with axes moved from ``source`` to ``destination`` (ints or sequences)."""
    x = _arr(x)
    src = _axes(source, x.ndim)
    dst = _axes(destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _C.transpose(x, tuple(order))


def flip(m, axis=None):
    """A view of ``m`` with the order of elements reversed along ``axis`` (all axes when None)."""
    x = _arr(m)
    axes = range(x.ndim) if axis is None else _axes(axis, x.ndim)
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a] = slice(None, None, -1)
    return x[tuple(key)]


# ------------------------------------------------------------------ elementwise compositions


def clip(x, min=None, max=None, out=None):  # noqa: A002 - the array API's names
    """``x`` limited to [min, max] elementwise (``minimum(maximum(x, min), max)``; NaN propagates).

    With both bounds a bfloat16 result is computed in float32, as NumPy 2.4 does (its clip
    ufunc has no bfloat16 loop in ml_dtypes 0.7; one bound goes through maximum/minimum,
    which keep bfloat16)."""
    r = _arr(x) if isinstance(x, _C.ndarray) else x
    if min is not None and max is not None and result_type(r, min, max) == _BF16:
        r = _arr(r).astype(_np.float32)
    if min is None and max is None:
        r = _C.positive(r) if _arr(r).dtype != _np.bool_ else _arr(r).copy()
    if min is not None:
        r = _C.maximum(r, min)
    if max is not None:
        r = _C.minimum(r, max)
    if out is not None:
        out[...] = r
        return out
    return r


def round(x, decimals=0, out=None):  # noqa: A001 - NumPy's name
    """``x`` rounded to ``decimals`` decimals, halves to even (integers are returned as they are
    for ``decimals >= 0``)."""
    a = _arr(x)
    if a.dtype.kind in "iu" and decimals >= 0:
        r = a.copy()
    elif a.dtype.kind == "c" and decimals != 0:  # NumPy rounds each part alone (inf/NaN stay in their part)
        r = a.copy()
        r.real = round(a.real, decimals)
        r.imag = round(a.imag, decimals)
    elif decimals == 0:
        r = _C.rint(a)
    else:
        f = 10.0 ** decimals
        r = _C.true_divide(_C.rint(_C.multiply(a, f)), f) if decimals > 0 else \
            _C.multiply(_C.rint(_C.true_divide(a, 10.0 ** -decimals)), 10.0 ** -decimals)
    if out is not None:
        out[...] = r
        return out
    return r


around = round


__all__ = [
    "finfo", "iinfo", "can_cast", "isdtype", "result_type",
    "linspace", "eye", "identity", "tri", "tril", "triu", "meshgrid",
    "ravel", "swapaxes", "moveaxis", "flip",
    "clip", "round", "around",
]
