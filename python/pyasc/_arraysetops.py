"""NumPy's ``lib/_arraysetops_impl`` names not in :mod:`pyasc._sorting`
(which holds ``unique*`` and ``isin``): ``setdiff1d``, ``union1d``,
``intersect1d``, ``setxor1d`` and ``ediff1d``, built on the C++ sort/unique ops.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from . import _C
from . import _manipulation as _man
from . import _namespace as _ns
from . import _sorting as _srt
from ._helpers import _INTP, _TE, _alloc_check, _arr, _dt

__all__ = [
    "setdiff1d", "union1d", "intersect1d", "setxor1d", "ediff1d",
]


# ------------------------------------------------------------------ set operations


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (``numpy.setdiff1d``)."""
    ar1 = _ns.ravel(_arr(ar1)) if assume_unique else _srt.unique(ar1)
    return ar1[_srt.isin(ar1, ar2, assume_unique=True, invert=True)]


def union1d(ar1, ar2):
    """The sorted unique values in either array (``numpy.union1d``)."""
    # NumPy concatenates the operands as given: a Python scalar is weak (union1d(-1, int32) is int32)
    weak = (bool, int, float, complex)
    dt = _np.result_type(*(v if isinstance(v, weak) else _np.dtype(_arr(v).dtype) for v in (ar1, ar2)))
    # NumPy's concatenate(axis=None) allocates the joined result first: a huge broadcast view is its
    # ValueError "array is too big" (or MemoryError) in the result dtype, before any ravel copy
    _alloc_check("union1d", (sum(1 if isinstance(v, weak) else _arr(v).size for v in (ar1, ar2)),), dt)
    parts = [_ns.ravel(_arr(_np.asarray(v, dt) if isinstance(v, weak) else v)) for v in (ar1, ar2)]
    return _srt.unique(_man.concatenate([p if _np.dtype(p.dtype) == dt else p.astype(dt) for p in parts]))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values in both arrays (and their first indices) (``numpy.intersect1d``)."""
    ar1 = _arr(ar1)
    ar2 = _arr(ar2)
    if not assume_unique:
        if return_indices:
            ar1, ind1 = _srt.unique(ar1, return_index=True)
            ar2, ind2 = _srt.unique(ar2, return_index=True)
        else:
            ar1 = _srt.unique(ar1)
            ar2 = _srt.unique(ar2)
    else:
        ar1 = _ns.ravel(ar1)
        ar2 = _ns.ravel(ar2)
    aux = _man.concatenate((ar1, ar2))
    if return_indices:
        order = _srt.argsort(aux, kind="stable")
        aux = aux[order]
    else:
        aux = _srt.sort(aux)
    mask = _C.equal(aux[1:], aux[:-1])
    int1d = aux[:-1][mask]
    if not return_indices:
        return int1d
    n1 = ar1.size
    ar1_idx = order[:-1][mask]
    ar2_idx = _C.subtract(order[1:][mask], n1)
    if not assume_unique:
        ar1_idx = ind1[ar1_idx]
        ar2_idx = ind2[ar2_idx]
    return int1d, ar1_idx.astype(_INTP), ar2_idx.astype(_INTP)


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the arrays (``numpy.setxor1d``)."""
    if not assume_unique:
        ar1 = _srt.unique(ar1)
        ar2 = _srt.unique(ar2)
    aux = _srt.sort(_man.concatenate((_ns.ravel(_arr(ar1)), _ns.ravel(_arr(ar2)))))
    if aux.size == 0:
        return aux
    edge = _C.full((1,), True, _np.bool_)
    flag = _man.concatenate((edge, _C.not_equal(aux[1:], aux[:-1]), edge))
    return aux[_C.logical_and(flag[1:], flag[:-1])]


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array (``to_begin``/``to_end`` added)."""
    x = _C.reshape(_arr(ary), (-1,))
    dt = _dt(x)
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
    # NumPy checks to_begin/to_end first, then subtracts -- even an empty bool array is the
    # subtract's TypeError
    d = _C.subtract(x[1:], x[:-1])
    out = ([seq[0]] if seq[0] is not None else []) + [d] + ([seq[1]] if seq[1] is not None else [])
    return _C.concatenate(out, 0) if len(out) > 1 else d
