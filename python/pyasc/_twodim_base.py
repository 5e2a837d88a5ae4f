"""NumPy's ``lib/_twodim_base_impl`` names: ``fliplr``/``flipud`` (views)
and the triangle index helpers ``tril_indices``/``triu_indices`` (and their
``*_from`` forms), ``mask_indices``, ``vander`` and ``histogram2d`` (over
:func:`pyasc.histogramdd`). ``eye``/``tri``/``tril``/``triu`` are in :mod:`pyasc._namespace`.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import operator as _operator

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from . import _sorting as _srt
from ._helpers import _TE, _VE, _arr

__all__ = [
    "fliplr", "flipud", "triu_indices", "tril_indices", "triu_indices_from", "tril_indices_from", "mask_indices",
    "vander", "histogram2d",
]


def fliplr(m):
    """Reverses the columns (axis 1), a view (``numpy.fliplr``)."""
    m = _arr(m)
    if m.ndim < 2:
        raise _VE(f"[fliplr] Input must be >= 2-d, got shape {m.shape}.")
    return _ns.flip(m, 1)


def flipud(m):
    """Reverses the rows (axis 0), a view (``numpy.flipud``)."""
    m = _arr(m)
    if m.ndim < 1:
        raise _VE("[flipud] Input must be >= 1-d.")
    return _ns.flip(m, 0)


# ------------------------------------------------------------------ index helpers


def tril_indices(n, k=0, m=None):
    """The indices of the lower triangle of an ``(n, m)`` array (``numpy.tril_indices``)."""
    return tuple(_srt.nonzero(_ns.tri(n, m, k, dtype=_np.bool_)))


def triu_indices(n, k=0, m=None):
    """The indices of the upper triangle of an ``(n, m)`` array (``numpy.triu_indices``)."""
    return tuple(_srt.nonzero(_C.logical_not(_ns.tri(n, m, k - 1, dtype=_np.bool_))))


def _check_2d(arr, name):
    arr = _arr(arr)
    if arr.ndim != 2:
        raise _VE(f"[{name}] input array must be 2-d, got shape {arr.shape}")
    return arr


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-d ``arr`` (``numpy.tril_indices_from``)."""
    arr = _check_2d(arr, "tril_indices_from")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-d ``arr`` (``numpy.triu_indices_from``)."""
    arr = _check_2d(arr, "triu_indices_from")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def mask_indices(n, mask_func, k=0):
    """The indices of the nonzero entries of ``mask_func(ones((n, n), int), k)`` (``numpy.mask_indices``;
    e.g. ``mask_func=asc.triu`` gives the upper-triangle indices)."""
    m = mask_func(_C.full((_operator.index(n), _operator.index(n)), 1, _np.int64), k)
    return _srt.nonzero(_C.not_equal(_arr(m), 0))


def vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the 1-d ``x``: columns ``x**(N-1), ..., x, 1`` (``increasing``
    reverses them) (``numpy.vander``: the dtype of ``x`` promoted with int64, powers by a
    cumulative product along each row)."""
    x = _arr(x)
    if x.ndim != 1:
        raise _VE(f"[vander] x must be a one-dimensional array or sequence, got shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else _operator.index(N)
    if n < 0:
        raise _VE(f"[vander] N must be non-negative, got {n}")
    dt = _np.promote_types(_np.dtype(x.dtype), _np.int64)  # (bfloat16 with int64: float64, as NumPy)
    if x.shape[0] * n > 1 << 32:  # NumPy allocates the (len(x), N) result first
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("vander", (x.shape[0], n), dt)
        _C.empty((x.shape[0], n), dt)
    xs = _C.astype(x, dt)
    if n == 0:
        return _C.empty((x.shape[0], 0), dt)
    cols = [_C.full((x.shape[0], 1), 1, dt)]
    if n > 1:
        # NumPy accumulates x, x*x, ... from x itself, not from 1*x: (1+0j)*(nan+infj) is
        # nan+nanj, so a leading 1 in the product would change complex infinities.
        cols.append(_C.cumprod(_C.broadcast_to(_C.reshape(xs, (-1, 1)), (x.shape[0], n - 1)), 1))
    v = _man.concatenate(cols, axis=1) if n > 1 else cols[0]
    return v if increasing else _ns.flip(v, 1)


def _len(v, name):  # NumPy's len(x): a TypeError for a scalar or a 0-d array
    if getattr(v, "shape", None) == () or not hasattr(v, "__len__"):
        raise _TE(f"[histogram2d] `{name}` must be a sequence: len() of unsized object")
    return len(v)


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's name
    """The 2-d histogram of the points ``(x[i], y[i])`` (``numpy.histogram2d``): ``bins`` is a count,
    a pair of counts, an edge array for both axes or a pair of edge arrays. Returns
    ``(hist, xedges, yedges)``, hist float64 as NumPy's."""
    from ._histograms import histogramdd

    lx, ly = _len(x, "x"), _len(y, "y")
    if lx != ly:
        raise _VE(f"[histogram2d] x and y must have the same length ({lx} != {ly})")
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb != 1 and nb != 2:
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]
