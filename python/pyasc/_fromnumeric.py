"""NumPy's ``_core/fromnumeric`` names not bound directly from the C++
registry: ``choose``, ``shape``, ``size``, ``ndim``, ``resize``.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import numpy as _np

from . import _C
from . import _namespace as _ns
from . import _signatures as _sig
from ._helpers import _OE, _TE, _VE, _arr, _bshape

__all__ = [
    "choose", "shape", "size", "ndim", "resize",
]


def choose(a, choices, out=None, mode="raise"):
    """Builds an array from ``choices`` indexed by the integers of ``a`` (``numpy.choose``)."""
    if not isinstance(choices, _C.ndarray) and not hasattr(choices, "__iter__"):
        # NumPy's PyArray_Choose iterates the choices before the clip mode is looked at
        raise _TE(f"[choose] '{type(choices).__name__}' object is not iterable (choices)")
    mode = _sig.clip_mode("choose", mode)
    if mode == "invalid":
        raise _sig.int_mode_error("choose")
    a = _arr(a)
    if a.dtype.kind not in "iub":
        raise _TE(f"[choose] index array must be integer, got {a.dtype}")
    if a.dtype == _np.uint64:  # NumPy casts the indices to intp with the 'safe' rule
        raise _TE("[choose] Cannot cast array data from dtype('uint64') to dtype('int64') according to the rule 'safe'")
    choices = [c if isinstance(c, _C.ndarray) else _C.array(_np.asarray(c)) for c in choices]
    n = len(choices)
    if n == 0:
        raise _VE("[choose] choices must be a non-empty sequence")
    dtype = _np.result_type(*[c.dtype for c in choices])
    shp = _bshape("choose", a.shape, *[c.shape for c in choices])
    a = a.astype(_np.int64)
    if mode == "raise":
        if a.size and (int(_C.min(a)) < 0 or int(_C.max(a)) >= n):
            raise _VE(f"[choose] invalid entry in choice array: indices must lie in [0, {n})")
    elif mode == "wrap":
        a = _C.remainder(a, n)
    else:
        a = _ns.clip(a, 0, n - 1)
    res = _C.full(shp, 0, dtype)
    for i, c in enumerate(choices):
        res = _C.where(_C.equal(a, i), c.astype(dtype), res)
    res = _C.broadcast_to(res, shp).copy() if res.shape != shp else res
    if out is not None:
        out[...] = res
        return out
    return res


# ------------------------------------------------------------------ metadata


def shape(a):
    """The shape of ``a`` (``numpy.shape``)."""
    return a.shape if isinstance(a, _C.ndarray) else _np.shape(a)


def size(a, axis=None):
    """The number of elements of ``a``, or along ``axis`` (``numpy.size``)."""
    if not isinstance(a, _C.ndarray):
        return _np.size(a, axis)
    if axis is None:
        return a.size
    # NumPy 2.4: normalize_axis_tuple -- any iterable of axes (a list, an array), each in range,
    # no repeats; the product of their lengths
    from ._helpers import _axes  # noqa: PLC0415

    out = 1
    for ax in _axes(axis, a.ndim, "size"):
        out *= a.shape[ax]
    return out


def ndim(a):
    """The number of dimensions of ``a`` (``numpy.ndim``)."""
    return a.ndim if isinstance(a, _C.ndarray) else _np.ndim(a)


# ------------------------------------------------------------------ resizing, insert/delete


def resize(a, new_shape):
    """A new array of ``new_shape`` filled with ``a``'s elements repeated (``numpy.resize``)."""
    a = _arr(a)
    if isinstance(new_shape, (int, _np.integer)):
        new_shape = (new_shape,)
    a = _ns.ravel(a)  # (NumPy ravels first: a huge broadcast view's copy fails before new_shape is read)
    for d in new_shape:  # NumPy compares each entry with 0 before anything reads it as an integer
        if d < 0:  # (a float -1.0 is this ValueError; str/None/list entries are the comparison's TypeError)
            raise _VE(f"[resize] all elements of `new_shape` must be non-negative, got {d!r} in "
                      f"{new_shape!r}")
    # NumPy multiplies the entries (a bool is 1 or 0 there) and reads them as a shape only in its
    # final reshape / zeros_like, which refuse a bool: after the repeats are built
    bool_dim = _builtins.any(isinstance(d, (bool, _np.bool_)) for d in new_shape)
    new_shape = tuple(_operator.index(d) for d in new_shape)
    new_size = 1
    for d in new_shape:
        new_size *= d
    if a.size == 0 or new_size == 0:
        if bool_dim:
            raise _TE(f"[resize] an integer is required (a bool in new_shape {new_shape})")
        return _C.full(new_shape, 0, a.dtype)
    if -(-new_size // a.size) > (1 << 63) - 1:
        # NumPy concatenates (a,) * repeats: a repeat count past ssize_t is its OverflowError
        raise _OE(f"[resize] cannot fit 'int' into an index-sized integer ({-(-new_size // a.size)} repeats of "
                  f"{a.size} elements for new_shape {new_shape})")
    # The result is allocated first (as NumPy does): a size beyond the memory raises
    # AscendMemoryError at once instead of after building the repeats (2**40 elements
    # took 18 s to reach std::bad_alloc), then filled with whole copies and a tail.
    out = _C.empty((new_size,), a.dtype)
    if bool_dim:
        raise _TE(f"[resize] an integer is required (a bool in new_shape {new_shape})")
    n = a.size
    k = new_size // n
    if k:
        out[:k * n].reshape((k, n))[...] = a
    if new_size - k * n:
        out[k * n:] = a[:new_size - k * n]
    return out.reshape(new_shape)
