"""NumPy's ``lib/_twodim_base_impl`` names: ``fliplr``/``flipud`` (views)
and the triangle index helpers ``tril_indices``/``triu_indices`` (and their
``*_from`` forms). ``eye``/``tri``/``tril``/``triu`` are in :mod:`pyasc._namespace`.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from . import _C
from . import _namespace as _ns
from . import _sorting as _srt
from ._helpers import _VE, _arr

__all__ = [
    "fliplr", "flipud", "triu_indices", "tril_indices", "triu_indices_from", "tril_indices_from",
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
