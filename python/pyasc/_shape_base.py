"""NumPy's shape-base names not in :mod:`pyasc._manipulation`: ``block``
(``_core/shape_base``), ``row_stack``, ``apply_along_axis`` and
``apply_over_axes`` (``lib/_shape_base_impl``). Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import warnings as _warnings

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from ._helpers import _TE, _VE, _arr, _axis

__all__ = [
    "block", "row_stack", "apply_along_axis", "apply_over_axes",
]


# ------------------------------------------------------------------ block / row_stack


def _block_depth(arrays, index=()):
    if isinstance(arrays, tuple):
        raise _TE(f"[block] arrays{''.join(f'[{i}]' for i in index)} is a tuple. Only lists can be used "
                        "to arrange blocks, and np.block does not allow implicit conversion from tuple to ndarray.")
    if isinstance(arrays, list):
        if len(arrays) == 0:
            raise _VE(f"[block] List at arrays{''.join(f'[{i}]' for i in index)} cannot be empty")
        depths = [_block_depth(a, index + (i,)) for i, a in enumerate(arrays)]
        first = depths[0]
        for i, d in enumerate(depths):
            if d[0] != first[0]:
                raise _VE(f"[block] List depths are mismatched. First element was at depth {first[0]}, "
                                 f"but there is an element at depth {d[0]} (arrays{''.join(f'[{j}]' for j in d[1])})")
        return first[0] + 1, first[1], _builtins.max(d[2] for d in depths)
    a = _arr(arrays)
    return 0, index, a.ndim


def block(arrays):
    """Assembles an array from nested lists of blocks (``numpy.block``)."""
    depth, _, max_arr_ndim = _block_depth(arrays)
    result_ndim = _builtins.max(depth, max_arr_ndim)

    def rec(x, d):
        if d == depth:
            a = _arr(x)
            return a.reshape((1,) * (result_ndim - a.ndim) + a.shape) if a.ndim < result_ndim else a
        parts = [rec(y, d + 1) for y in x]
        return _man.concatenate(parts, axis=-(depth - d))

    res = rec(arrays, 0)
    return res.copy() if depth == 0 else res


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """Deprecated alias of ``vstack`` (NumPy 2 warns the same way) (``numpy.row_stack``)."""
    _warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.", DeprecationWarning, stacklevel=2)
    return _man.vstack(tup, dtype=dtype, casting=casting)


# ------------------------------------------------------------------ functional


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """Applies ``func1d`` to the 1-d slices along ``axis`` (a host loop over device slices)
    (``numpy.apply_along_axis``)."""
    arr = _arr(arr)
    nd = arr.ndim
    axis = _axis(axis, nd)
    view = _ns.moveaxis(arr, axis, -1)
    outer = view.shape[:-1]
    if _builtins.any(s == 0 for s in outer):
        raise _VE("[apply_along_axis] Cannot apply_along_axis when any iteration dimensions are 0")
    results = [_arr(func1d(view[ind], *args, **kwargs)) for ind in _np.ndindex(*outer)]
    res = _man.stack(results).reshape(outer + results[0].shape)
    rnd = results[0].ndim
    perm = list(range(axis)) + list(range(res.ndim - rnd, res.ndim)) + list(range(axis, res.ndim - rnd))
    return _C.transpose(res, perm).copy()


def apply_over_axes(func, a, axes):
    """Applies ``func(a, axis)`` repeatedly over ``axes``, keeping dims (``numpy.apply_over_axes``)."""
    val = _arr(a)
    n = val.ndim
    if _np.ndim(axes) == 0:
        axes = (axes,)
    for ax in axes:
        if ax < 0:
            ax = n + ax
        res = _arr(func(val, ax))
        if res.ndim == val.ndim:
            val = res
        else:
            res = _C.expand_dims(res, ax)
            if res.ndim == val.ndim:
                val = res
            else:
                raise _VE("[apply_over_axes] function is not returning an array of the correct shape")
    return val
