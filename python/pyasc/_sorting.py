"""Sorting, searching and set functions of the array namespace.

``sort``/``argsort`` (NumPy's ``kind``/``stable`` and the array API's
``descending``), ``sort_complex``, ``partition``/``argpartition``, ``searchsorted``,
``nonzero``, ``flatnonzero``, ``argwhere``, ``where`` (one or three
arguments), ``count_nonzero``, ``unique`` and the array API's
``unique_all``/``unique_counts``/``unique_inverse``/``unique_values``,
``isin``, ``bincount``, ``digitize`` and ``histogram``. The work happens in
the C++ registry ops of src/ops/sort.cc, search.cc and sets.cc; this module
validates NumPy's keyword arguments and assembles multi-array results.

Order is NumPy's: NaN sorts last, ``-0.0 == 0.0``; every sort here is
stable (``kind``/``stable`` are accepted and checked, not needed).
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator
from collections import namedtuple as _namedtuple

import numpy as _np

from . import _C


def _arr(x):
    return _C.asarray(x)


def _axis_converter(op, axis):
    """NumPy's PyArray_AxisConverter: a bool or a non-integer (an array of several elements too)
    is its TypeError, an int beyond a C long its OverflowError, beyond a C int its ValueError."""
    from .errors import AscendOverflowError, AscendTypeError, AscendValueError, ErrorCode  # noqa: PLC0415

    if isinstance(axis, (bool, _np.bool_)):
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{op}] an integer is required for the axis (got {axis!r})")
    try:
        v = _operator.index(axis)
    except TypeError as e:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{op}] axis: {e}") from None
    if not -(1 << 63) <= v < (1 << 63):
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[{op}] axis: Python int too large to convert to C long")
    if not -(1 << 31) <= v < (1 << 31):
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{op}] axis: integer won't fit into a C int ({v})")
    return v


def _check_kind(kind, stable):
    from .errors import AscendTypeError, AscendValueError, ErrorCode  # noqa: PLC0415

    # (NumPy's converter reads kind's type first: a non-str kind beside stable= is its TypeError)
    if kind is not None and not isinstance(kind, (str, bytes)):
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[sort] sort kind must be str, not {type(kind).__name__}")
    if kind is not None and stable is not None:
        raise AscendValueError(ErrorCode.INVALID_PARAM, "[sort] `kind` and keyword parameters can't be provided at "
                                                        "the same time. Use only one of them.")
    if isinstance(kind, bytes):
        kind = kind.decode("latin-1")
    if kind is not None and (not kind or kind[0].lower() not in "qhsm"):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if stable is not None and not isinstance(stable, bool):
        # NumPy's PyArray_OptionalBoolConverter: the object's truth value (an array of several
        # elements is its ValueError)
        try:
            bool(stable)
        except ValueError as e:
            raise AscendValueError(ErrorCode.INVALID_PARAM, f"[sort] stable: {e}") from None
        except TypeError as e:
            raise AscendTypeError(ErrorCode.INVALID_PARAM, f"[sort] stable: {e}") from None


def _check_order(order):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """A sorted copy of ``a`` along ``axis`` (the flattened array when None).

    NaN sorts last (first with ``descending``); the sort is stable, so
    ``kind``/``stable`` only get validated. ``descending=True`` is the array
    API's: largest first, equal elements in their input order.
    """
    x = _arr(a)
    if x.size > 1 << 32:  # a huge broadcast view: NumPy copies a first (its allocation error), then checks
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("sort", (x.size,), x.dtype)
        _C.empty((x.size,), x.dtype)
    # (ndarray.sort parses axis, then kind, then order: an overflowing axis is its error first)
    if axis is not None and not (type(axis) is int and -(1 << 31) <= axis < (1 << 31)):
        from .errors import AscendOverflowError, AscendTypeError, ErrorCode  # noqa: PLC0415

        try:  # NumPy reads the axis as a C int (PyArray_AxisConverter): beyond it OverflowError
            ax = _operator.index(axis)
        except TypeError:
            raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[sort] '{type(axis).__name__}' object cannot be "
                                                           "interpreted as an integer (axis)") from None
        if not -(1 << 31) <= ax < (1 << 31):
            width = "C long" if not -(1 << 63) <= ax < (1 << 63) else "C int"  # NumPy: PyLong_AsLong, then int
            raise AscendOverflowError(ErrorCode.OVERFLOW, f"[sort] Python int too large to convert to {width} ({ax})")
    _check_kind(kind, stable)
    _check_order(order)
    return _C.sort(x, axis, bool(descending))


def argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Indices (int64) that sort ``a`` along ``axis`` (flattened when None); stable, NaN last."""
    if axis is not None and (type(axis) is not int or not -(1 << 31) <= axis < (1 << 31)):  # noqa: E721
        # NumPy converts the axis before it reads kind and order
        axis = _axis_converter("argsort", axis)
    _check_kind(kind, stable)
    _check_order(order)
    x = _arr(a)
    if x.ndim == 0:  # NumPy's PyArray_CheckAxis reads a 0-d array as 1-d (argsort(5.0) is [0])
        x = x.reshape((1,))
    if x.size > 1 << 40:  # a huge broadcast view: NumPy's allocation errors, in its order
        from ._helpers import _alloc_check, _norm_axis  # noqa: PLC0415

        if axis is None:  # NumPy flattens (a copy) before it allocates the int64 result
            _alloc_check("argsort", (x.size,), x.dtype)
        else:
            _norm_axis(axis, x.ndim, "argsort")
        _alloc_check("argsort", x.shape, _np.int64)
    return _C.argsort(x, axis, bool(descending))


def sort_complex(a):
    """``a`` sorted along its last axis as complex numbers (NumPy's order: lexicographic on
    (real, imag), NaN classes last): complex64 for int8/int16/uint8/uint16 input,
    complex128 for other real dtypes, complex input keeps its dtype."""
    x = _C.sort(_arr(a), -1, False)
    dt = _np.dtype(x.dtype)
    if dt.kind == "c":
        return x
    return _C.astype(x, _np.complex64 if dt.char in "bhBH" else _np.complex128, True)


def _check_kth(x, kth, axis):
    n = x.size if axis is None else x.shape[axis % x.ndim] if x.ndim else 0
    if x.ndim == 0 and axis is not None:
        raise _np.exceptions.AxisError(axis, 0)
    ks = _np.atleast_1d(_np.asarray(kth))
    _check_kth_dtype(ks.dtype.kind)
    for k in ks.tolist():
        if not -n <= k < n:
            raise _part_error(ValueError, f"kth(={k}) out of bounds ({n})")


def _check_kth_copy(kth):
    """ndarray.partition converts kth with PyArray_FromAny(..., NPY_ARRAY_DEFAULT) before its axis
    check: a kth array that is no writeable C-contiguous one is copied, so a huge broadcast view is
    that copy's allocation error first (MemoryError; beyond intp ValueError)."""
    if isinstance(kth, _C.ndarray):
        plain = kth.is_contiguous() and kth.flags.writeable
    elif isinstance(kth, _np.ndarray):
        plain = kth.flags.c_contiguous and kth.flags.writeable
    else:
        return
    if not plain and kth.size * _np.dtype(kth.dtype).itemsize > 1 << 32:
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("partition", tuple(kth.shape), kth.dtype)


def _check_kth_conversion(kth):
    """kth as ndarray.partition converts it, before its axis check: the copy of a huge view
    (_check_kth_copy), then at most one dimension (a deeper or ragged sequence: ValueError)."""
    _check_kth_copy(kth)
    if isinstance(kth, (_C.ndarray, _np.ndarray)):
        kn = kth.ndim
    else:
        try:
            kn = _np.asarray(kth).ndim
        except ValueError:
            raise _part_error(ValueError, "setting an array element with a sequence (kth is a ragged "
                                          "sequence)") from None
        except Exception:  # noqa: BLE001 - (an odd object: its type error comes later, as NumPy's)
            kn = 0
    if kn > 1:
        raise _part_error(ValueError, f"object too deep for desired array (kth has {kn} dimensions)")


def _check_empty_kth(kth):
    """kth for an empty array: NumPy reads it as an at most 1-d intp array (deeper: its ValueError),
    then its type; not its bounds."""
    ka = _np.asarray(kth.numpy() if isinstance(kth, _C.ndarray) else kth)
    if ka.ndim > 1:
        raise _part_error(ValueError, f"object too deep for desired array (kth has {ka.ndim} dimensions)")
    _check_kth_dtype(ka.dtype.kind)


def _check_kth_dtype(kind):
    """NumPy's kth type rules: bool is its ValueError, any other non-integer its TypeError."""
    if kind == "b":
        raise _part_error(ValueError, "Booleans unacceptable as partition index")
    if kind not in "iu":
        raise _part_error(TypeError, "Partition index must be integer")


def _part_error(cls, msg):
    """partition/argpartition's argument errors as pyasc's classes (NumPy's builtin ones)."""
    from .errors import AscendTypeError, AscendValueError, ErrorCode  # noqa: PLC0415

    return (AscendTypeError if cls is TypeError else AscendValueError)(ErrorCode.INVALID_PARAM, f"[partition] {msg}")


def _check_select_kind(kind):
    if not isinstance(kind, (str, bytes)):
        raise _part_error(TypeError, f"select kind must be str, not {type(kind).__name__}")
    if (kind.decode("latin-1") if isinstance(kind, bytes) else kind) != "introselect":
        raise _part_error(ValueError, f"select kind must be 'introselect' (got {kind!r})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``a`` partitioned around ``kth``: the element at each kth position is the one a sort
    puts there, smaller ones before it, larger after. (Computed by a full sort, which is one
    valid partition.)"""
    x = _arr(a)
    if x.size > 1 << 32 and not x.is_contiguous():
        # NumPy copies the input (flatten / copy(order='K')) before the method checks anything:
        # a huge broadcast view is its allocation error first
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("partition", (x.size,), x.dtype)
    _check_select_kind(kind)
    _check_order(order)
    _check_kth_conversion(kth)
    if x.size == 0 and x.ndim:
        # as argpartition: an empty array checks the axis and kth's type, not kth's bounds (NumPy
        # returns the empty array, flattened for axis=None, for any integer kth)
        if axis is not None:
            from ._helpers import _norm_axis  # noqa: PLC0415

            _norm_axis(axis, x.ndim, "partition")
        _check_empty_kth(kth)
        return _C.sort(x, axis, False)
    _check_kth(x, kth, axis)
    return _C.sort(x, axis, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition ``a`` around ``kth`` (see :func:`partition`)."""
    _check_select_kind(kind)
    _check_order(order)
    x = _arr(a)
    if x.ndim == 0:  # NumPy partitions a 0-d array as one of shape (1,)
        x = _C.reshape(x, (1,))
    if x.size == 0:
        # an empty array: the axis and kth's type are checked, its bounds are not (NumPy returns
        # the empty index array for any integer kth)
        if axis is not None:
            from ._helpers import _norm_axis  # noqa: PLC0415

            _norm_axis(axis, x.ndim, "argpartition")
        _check_empty_kth(kth)
        return _C.full((0,) if axis is None else tuple(x.shape), 0, _np.int64)
    _check_kth(x, kth, axis)
    if x.size > 1 << 32:  # NumPy allocates the intp result after checking kth: a huge view's error
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("argpartition", x.shape, _np.int64)
    return _C.argsort(x, axis, False)


def searchsorted(a, v, side="left", sorter=None):
    """Indices where the elements of ``v`` would be inserted into the sorted 1-D ``a``
    (``side='right'``: after equal elements; ``sorter``: the permutation that sorts ``a``)."""
    if isinstance(side, bytes):
        side = side.decode("latin-1")
    if not isinstance(side, str):
        raise TypeError(f"search side must be str, not {type(side).__name__}")
    if side not in ("left", "right"):
        raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")
    return _C.searchsorted(_arr(a), _arr(v), side == "right", None if sorter is None else _arr(sorter))


def nonzero(a):
    """Indices of the nonzero elements: a tuple of int64 arrays, one per axis (C order)."""
    return _C.nonzero(_arr(a))


def flatnonzero(a):
    """Indices of the nonzero elements of the flattened ``a``."""
    return _C.nonzero(_C.reshape(_arr(a), (-1,)))[0]


def argwhere(a):
    """Coordinates of the nonzero elements, an (N, a.ndim) int64 array."""
    return _C.argwhere(_arr(a))


def where(condition, x=None, y=None, /):
    """``where(condition, x, y)``: elements of x where condition else of y (broadcast);
    ``where(condition)``: ``nonzero(condition)``. Positional-only, as NumPy's."""
    if x is None and y is None:
        return _C.nonzero(_arr(condition))
    if x is None or y is None:
        from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

        raise AscendValueError(ErrorCode.INVALID_PARAM, "[where] either both or neither of x and y should be given")
    if type(x) is float and str(getattr(y, "dtype", "")) == "bfloat16":
        # NumPy 2.4's where (not its ufuncs, nor result_type) makes a Python float x next to
        # a bfloat16 y float32; with the float as y the result stays bfloat16.
        y = _C.astype(y, _np.float32)
    return _C.where(condition, x, y)


def count_nonzero(a, axis=None, *, keepdims=False):
    """The number of nonzero (true) elements over ``axis`` (all when None), as int64."""
    x = _arr(a)
    if axis is not None or keepdims:
        if type(keepdims) is not bool:  # noqa: E721 - NumPy's sum(keepdims=) reads a C long (2**100: OverflowError)
            from . import _signatures as _sig  # noqa: PLC0415 - _signatures imports this module

            keepdims = _sig.keepdims_flag("count_nonzero", keepdims)
    else:
        keepdims = False
    if x.ndim == 0 and axis is not None:
        from . import _signatures as _sig  # noqa: PLC0415 - _signatures imports this module

        if _sig._zero_d_axis(x, axis):  # (NumPy's sum reads axis 0 / -1 of a 0-d array as no axis)
            axis = None
    if axis is not None and type(axis) is not int:
        # a list, array or bool axis is sum's TypeError in NumPy (its ufunc reduction takes only an int
        # or a tuple); the core would read any sequence
        from . import _signatures as _sig  # noqa: PLC0415 - _signatures imports this module

        _sig.check_axis(axis, x.ndim, ufunc=True)
    try:
        return _C.count_nonzero(x, axis, bool(keepdims))
    except Exception:
        # NumPy sums a bool view with a.sum(axis=axis, keepdims=keepdims): keepdims converted,
        # then the axis element by element (an out-of-range axis before a later non-integer)
        if axis is not None or keepdims is not False:
            from . import _signatures as _sig  # noqa: PLC0415 - _signatures imports this module

            _sig.keepdims_flag("count_nonzero", keepdims)
            _sig.check_axis(axis, x.ndim, ufunc=True)
        raise


# ------------------------------------------------------------------ sets

UniqueAllResult = _namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = _namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = _namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _unique_parts(x, equal_nan):
    """(values, first indices, counts, inverse with x's shape) of the flattened x."""
    info = _C.unique_info(x, equal_nan)
    u = (info.shape[0] - x.size) // 2
    index = info[:u]
    counts = info[u:2 * u]
    inverse = _C.reshape(info[2 * u:], x.shape)
    values = _C.take_rows(_C.reshape(x, (-1,)), index)
    return values, index, counts, inverse


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002 - NumPy's name
    """The sorted unique elements of the flattened ``ar`` and optionally the index of each
    one's first occurrence, the inverse (the unique index of every element, shaped like
    ``ar``) and the counts. ``equal_nan``: all NaNs are one value."""
    x = _arr(ar)
    if axis is not None:
        if x.ndim != 1:
            axis = _unique_axis_arg(axis, x.ndim)
            return _unique_axis(x, axis, return_index, return_inverse, return_counts)
        if not -1 <= _c_int_axis(_operator.index(axis)) <= 0:  # (NumPy's normalize_axis_index for 1-d input)
            raise _np.exceptions.AxisError(axis, 1)
    if not (return_index or return_inverse or return_counts):
        return _C.unique_values(x, bool(equal_nan))
    if not (return_index or return_inverse):
        return _C.unique_values_counts(x, bool(equal_nan))
    values, index, counts, inverse = _unique_parts(x, bool(equal_nan))
    out = [values]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return tuple(out)


def _c_int_axis(i):
    """An int axis as NumPy's normalize_axis_index parses it: PyLong_AsLong ("C long" beyond int64),
    then a C int (OverflowError both), before the bounds (AxisError)."""
    if not -(1 << 31) <= i < (1 << 31):
        from .errors import AscendOverflowError, ErrorCode  # noqa: PLC0415

        width = "C long" if not -(1 << 63) <= i < (1 << 63) else "C int"
        raise AscendOverflowError(ErrorCode.OVERFLOW, f"[unique] axis {i}: Python int too large to convert to {width}")
    return i


def _unique_axis_arg(axis, ndim):
    """unique's axis as NumPy reads it: ``moveaxis(ar, axis, 0)`` (normalize_axis_tuple: an int,
    else the entries of a sequence, each in range -- its AxisError --, no repeats and one entry
    for the one destination -- ValueError), then a list index (a non-int: TypeError)."""
    try:
        return _c_int_axis(_operator.index(axis))
    except TypeError:
        pass
    if isinstance(axis, _C.ndarray) and axis.ndim > 1 and axis.shape[0]:
        # NumPy iterates the first dimension: its first entry is an array, not an index
        raise TypeError("[unique] only integer scalar arrays can be converted to a scalar index (axis)")
    if isinstance(axis, _C.ndarray):
        # (a huge broadcast view repeats one value: its first entries stand for it)
        flat = axis if axis.ndim == 1 else _C.reshape(axis, (-1,)) if axis.size <= 4096 else None
        entries = [axis[(0,) * axis.ndim]] if flat is None else [flat[i] for i in range(flat.size if flat.size < 4096 else 4096)]
        n = axis.size
    else:
        try:
            entries = list(axis)
        except TypeError:
            raise TypeError(f"[unique] '{type(axis).__name__}' object cannot be interpreted as an integer "
                            f"(axis)") from None
        n = len(entries)
    from numpy.lib.array_utils import normalize_axis_index  # noqa: PLC0415

    seen = []
    for e in entries:
        try:
            seen.append(normalize_axis_index(_operator.index(e), ndim))
        except _np.exceptions.AxisError:
            raise _np.exceptions.AxisError(f"axis {axis!r} is out of bounds for array of dimension {ndim}") \
                from None
    if len(set(seen)) != len(seen):
        raise ValueError("[unique] repeated axis in `source` argument")
    if n != 1:
        raise ValueError("[unique] `source` and `destination` arguments must have the same number of elements")
    raise TypeError("[unique] only integer scalar arrays can be converted to a scalar index (axis)")


def _unique_axis(x, axis, return_index, return_inverse, return_counts):
    """NumPy's ``unique(axis=k)``: the unique slices along axis k in lexicographic order
    (elements compared in C order; -0.0 == 0.0, NaN != NaN so slices holding NaN are never
    merged), each with its first index, inverse (1-D) and count."""
    axis = _operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise _np.exceptions.AxisError(axis, x.ndim)
    axis %= x.ndim
    nd = x.ndim
    moved = _C.transpose(x, (axis,) + tuple(i for i in range(nd) if i != axis)) if axis else x
    n = moved.shape[0]
    rest = tuple(moved.shape[1:])
    m = 1
    for d in rest:
        m *= d
    rows = _C.reshape(moved.copy(), (n, m))
    # Lexicographic stable order: stable argsorts from the last column to the first.
    perm = _C.asarray(_np.arange(n, dtype=_np.int64))
    for c in range(m - 1, -1, -1):
        perm = _C.take_rows(perm, _C.argsort(_C.take_rows(rows[:, c], perm), -1, False))
    srt = _C.take_rows(rows, perm)
    if n == 0:
        mask = _C.empty((0,), _np.bool_)
    elif m == 0:
        mask = _C.asarray(_np.arange(n) == 0)
    else:
        diff = _C.any(_C.not_equal(srt[1:], srt[:-1]), 1)
        mask = _C.concatenate([_C.asarray(_np.ones(1, _np.bool_)), diff], 0)
    starts = _C.nonzero(mask)[0]
    values = _C.reshape(_C.take_rows(srt, starts), (starts.shape[0],) + rest)
    if axis:
        values = _C.transpose(values, tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, nd))).copy()
    out = [values]
    if return_index:
        out.append(_C.take_rows(perm, starts))
    if return_inverse:
        group = _C.subtract(_C.cumsum(_C.astype(mask, _np.int64, True)), 1)
        out.append(_C.take_rows(group, _C.argsort(perm, -1, False)))  # argsort(perm) = perm^-1
    if return_counts:
        ends = _C.concatenate([starts[1:], _C.asarray(_np.array([n], _np.int64))], 0)
        out.append(_C.subtract(ends, starts))
    return values if len(out) == 1 else tuple(out)


def unique_all(x):
    """Array API: unique values (NaNs distinct), first indices, inverse indices (x's shape), counts."""
    x = _arr(x)
    values, index, counts, inverse = _unique_parts(x, False)
    return UniqueAllResult(values, index, inverse, counts)


def unique_counts(x):
    """Array API: unique values (NaNs distinct) and their counts."""
    values, counts = _C.unique_values_counts(_arr(x), False)
    return UniqueCountsResult(values, counts)


def unique_inverse(x):
    """Array API: unique values (NaNs distinct) and the inverse indices (x's shape)."""
    x = _arr(x)
    values, _, _, inverse = _unique_parts(x, False)
    return UniqueInverseResult(values, inverse)


def unique_values(x):
    """Array API: the unique values of x (NaNs distinct), sorted."""
    return _C.unique_values(_arr(x), False)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of ``element`` occurs in ``test_elements`` (a bool array shaped
    like ``element``); ``invert`` negates. NaN is in nothing; -0.0 matches 0.0."""
    el, te = _arr(element), _arr(test_elements)
    # NumPy ravels both operands (a copy of a huge broadcast view: its allocation error) before it
    # looks at kind
    from ._helpers import _alloc_check  # noqa: PLC0415

    for v in (el, te):
        if not v.flags.c_contiguous:
            _alloc_check("isin", (v.size,), v.dtype)
    from .errors import AscendTypeError, AscendValueError, ErrorCode  # noqa: PLC0415

    try:  # (NumPy looks kind up in a set: an array or a list is unhashable, its TypeError)
        bad = kind not in {None, "sort", "table"}
    except TypeError as e:
        raise AscendTypeError(ErrorCode.INVALID_PARAM, f"[isin] {e} (kind)") from None
    if bad:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[isin] Invalid kind: '{kind}'. Please use None, 'sort' or "
                                                        "'table'.")
    return _C.isin(el, te, bool(invert))


# ------------------------------------------------------------------ counting, binning


def bincount(x, weights=None, minlength=0):
    """Occurrences of each value of the non-negative 1-D integer ``x`` (int64), or the summed
    ``weights`` (float64); at least ``minlength`` bins."""
    xa = _arr(x)
    if xa.ndim != 1:  # NumPy's first check (its 1-d intp conversion), before the dtype and minlength
        from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

        depth = "too deep" if xa.ndim else "of too small depth"
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[bincount] object {depth} for desired array (x has shape "
                               f"{xa.shape}; a 1-d array is required)")
    try:
        ml = _operator.index(minlength)
    except TypeError as e:  # NumPy's own text ("'str' object cannot be interpreted as an integer")
        from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

        raise AscendTypeError(ErrorCode.INVALID_PARAM, f"[bincount] minlength: {e}") from None
    if xa.size == 0 or ml < 0:
        # NumPy checks x's cast and minlength (negative: ValueError), then returns intp
        # zeros(minlength) for an empty x, before it reads the weights at all
        return _C.bincount(xa, None, ml)
    return _C.bincount(xa, None if weights is None else _arr(weights), ml)


def _monotonicity(a):
    """NumPy's check_array_monotonic on the float64 copy of the bins (1 increasing, -1 decreasing,
    0 neither): leading repeats skipped, then the direction of the first different value, then
    adjacent comparisons -- no differences (int64 bins [2**63 - 1, -2**63 + 1] wrapped when
    subtracted and read as increasing), NaN comparing false as there."""
    if a.size == 0:
        return 1
    neq = _np.flatnonzero(a[1:] != a[0])
    if neq.size == 0:
        return 1
    i = int(neq[0]) + 1
    if a[0] < a[i]:
        return 0 if bool(_np.any(a[i:-1] > a[i + 1:])) else 1
    return 0 if bool(_np.any(a[i:-1] < a[i + 1:])) else -1


def digitize(x, bins, right=False):
    """Index of the bin of each element of ``x`` (bins monotonically increasing or decreasing)."""
    xa = _arr(x)
    if _np.dtype(xa.dtype).kind == "c":  # NumPy's first check, before the bins'
        from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

        raise AscendTypeError(ErrorCode.INVALID_DTYPE, "[digitize] x may not be complex")
    b = _arr(bins)
    if b.ndim != 1:
        raise _part_error(ValueError, "object too deep for desired array (digitize: bins must be 1-d)")
    if b.size > 1 << 32:  # NumPy's monotonicity check reads bins as a float64 copy first
        from ._helpers import _alloc_check  # noqa: PLC0415

        _alloc_check("digitize", b.shape, _np.float64)
    mono = _monotonicity(_np.asarray(b).astype(_np.float64))
    if mono == 0:
        raise _part_error(ValueError, "bins must be monotonically increasing or decreasing (digitize)")
    if mono == 1:
        return _C.searchsorted(b, xa, not right, None)
    # Decreasing bins: search the reversed bins and count from the other end.
    return _C.subtract(b.size, _C.searchsorted(b[::-1], xa, not right, None))


def _unsigned_subtract(a, b):
    """a - b for a >= b as NumPy's histogram takes it: signed integers subtract into the
    unsigned type of the same size (an int16 range wider than 2**15 does not wrap)."""
    dt = _np.result_type(a, b)
    if dt.kind == "i":
        return _np.subtract(_np.asarray(a, dtype=dt), _np.asarray(b, dtype=dt), casting="unsafe",
                            dtype=_np.dtype(f"u{dt.itemsize}"))
    return _np.subtract(a, b, dtype=dt)


def _uniform_bin_indices(x, w, edges, nb, lo, hi, bin_type):
    """Bin indices of the values of ``x`` inside [lo, hi] for ``nb`` equal bins, by NumPy's
    rule: the float formula (v - lo) / (hi - lo) * nb in the edges' dtype, truncated, then
    corrected by one against the edges array (v < edges[i]: i - 1; v >= edges[i + 1]: i + 1,
    except in the last bin, which holds its right edge). Returns (indices, their weights)."""
    keep = _C.logical_and(_C.greater_equal(x, lo), _C.less_equal(x, hi))
    sel = _C.nonzero(keep)[0]
    xs = _C.astype(_C.take_rows(x, sel), bin_type, False)
    w = None if w is None else _C.take_rows(w, sel)
    f = _C.multiply(_C.true_divide(_C.subtract(xs, lo), _unsigned_subtract(hi, lo)), nb)
    idx = _C.astype(f, _np.int64, True)
    idx = _C.where(_C.equal(idx, nb), nb - 1, idx)
    idx = _C.where(_C.less(xs, _C.take_rows(edges, idx)), _C.subtract(idx, 1), idx)
    up = _C.logical_and(_C.greater_equal(xs, _C.take_rows(edges, _C.add(idx, 1))), _C.not_equal(idx, nb - 1))
    idx = _C.where(up, _C.add(idx, 1), idx)
    return idx, w


def _hist_value_error(msg):
    from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

    return AscendValueError(ErrorCode.INVALID_PARAM, msg if msg.startswith("[") else f"[histogram] {msg}")


_blocks = lambda n, b, _range=_builtins.range: _range(0, n, b)  # noqa: E731 - `range` is a histogram parameter


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002 - NumPy's name
    """Counts (int64, or float64 with ``weights``/``density``) of ``a`` in ``bins`` equal bins over
    ``range`` (default: min..max) or in the given monotonically increasing bin edges; the
    last bin includes its right edge. Returns ``(hist, bin_edges)``."""
    x = _arr(a)
    if weights is not None and tuple(_arr(weights).shape) != tuple(x.shape):
        # NumPy's _ravel_and_check_weights: before the bins, the range and any use of the weights
        from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[histogram] weights should have the same shape as a "
                                                        f"(weights {tuple(_arr(weights).shape)}, a {tuple(x.shape)})")
    x = _C.reshape(x, (-1,))
    if x.dtype == _np.bool_:
        # NumPy's _ravel_and_check_weights: bool data is counted as uint8 (its edges are then
        # float64; a bool min/max would reach linspace's bool subtraction)
        import warnings  # noqa: PLC0415

        warnings.warn("Converting input from bool to <class 'numpy.uint8'> for compatibility.", RuntimeWarning,
                      stacklevel=2)
        x = _C.astype(x, _np.uint8)
    if isinstance(bins, str):  # NumPy's width estimators ('auto', 'fd', ...): pyasc._histograms
        from ._histograms import _estimate_bins

        bins, range = _estimate_bins("histogram", x, bins, range, weights)  # noqa: A001
    uniform = None
    if _np.ndim(bins) == 0:
        try:  # NumPy's order: the weights' shape, the bins, then the range
            nb = _operator.index(bins)
        except TypeError:
            from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

            raise AscendTypeError(ErrorCode.INVALID_PARAM, f"[histogram] `bins` must be an integer, a string, or an "
                                                           f"array (got {type(bins).__name__})") from None
        if nb < 1:
            raise _hist_value_error("`bins` must be positive, when an integer")
        # The outer edges as NumPy takes them: the range's values, or the data's min/max as
        # scalars of its dtype (so float32 data gives float32 edges computed in float32).
        if range is not None and getattr(range, "shape", (2,)) not in ((2,), [2]) and tuple(range.shape) != (2,):
            # (a huge broadcast view as the range: refused from its shape, never iterated)
            raise _hist_value_error(f"[histogram] too many values to unpack (expected 2): range has shape "
                                    f"{tuple(range.shape)}")
        if range is not None:
            lo, hi = range
            if lo > hi:
                raise _hist_value_error("max must be larger than min in range parameter.")
            if not (_np.isfinite(lo) and _np.isfinite(hi)):
                raise _hist_value_error(f"supplied range of [{lo}, {hi}] is not finite")
        elif x.size == 0:
            lo, hi = 0, 1
        else:
            lo, hi = _np.asarray(_C.min(x))[()], _np.asarray(_C.max(x))[()]
            if not (_np.isfinite(lo) and _np.isfinite(hi)):
                raise _hist_value_error(f"autodetected range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        bin_type = _np.result_type(lo, hi, x.dtype)
        if bin_type.kind in "biu":
            bin_type = _np.result_type(bin_type, float)
        edges_np = _np.linspace(lo, hi, nb + 1, endpoint=True, dtype=bin_type)
        if _np.any(edges_np[:-1] >= edges_np[1:]):
            raise _hist_value_error(f"Too many bins for data range. Cannot create {nb} finite-sized bins.")
        edges = _C.array(edges_np)
        if weights is None or _np.can_cast(_arr(weights).dtype, _np.double) or \
                _np.can_cast(_arr(weights).dtype, complex):
            uniform = (lo, hi, bin_type)
    else:
        edges = _arr(bins)
        if edges.ndim != 1:
            raise _hist_value_error("`bins` must be 1d, when an array")
        # (NumPy compares neighbours, edges[:-1] > edges[1:]: a difference wraps for unsigned edges)
        if edges.size > 1 and bool(_C.any(_C.greater(edges[:-1], edges[1:]))):
            raise _hist_value_error("`bins` must increase monotonically, when an array")
        nb = edges.size - 1
    w_all = None if weights is None else _C.reshape(_arr(weights), (-1,))
    if uniform is not None:
        idx_in, w = _uniform_bin_indices(x, w_all, edges, nb, *uniform)
    else:
        # Bin i holds edges[i] <= v < edges[i+1]; the last bin also v == edges[-1].
        idx = _C.subtract(_C.searchsorted(edges, x, True, None), 1)
        last = _C.equal(x, edges[-1])
        idx = _C.where(last, nb - 1, idx)
        inside = _C.logical_and(_C.greater_equal(idx, 0), _C.less(idx, nb))
        sel = _C.nonzero(inside)[0]
        idx_in = _C.take_rows(idx, sel)
        w = None if w_all is None else _C.take_rows(w_all, sel)
    if uniform is None and w_all is not None and _np.dtype(w_all.dtype).kind in "fcV" and x.size:
        # NumPy's weighted histogram with bin edges sums the weights as cumulative sums of the
        # data sorted in blocks of 65536, differenced at the edges: its rounding, and a NaN weight
        # reaching every later bin, are that algorithm's (a bincount keeps the NaN in its own bin)
        wt = _np.dtype(w_all.dtype)
        cum = _C.full((nb + 1,), 0, wt)
        zero = _C.full((1,), 0, wt)
        lo_edges, hi_edge = edges[:-1], edges[-1:]
        for i in _blocks(x.size, 65536):
            ta, tw = x[i:i + 65536], w_all[i:i + 65536]
            order = _C.argsort(ta, -1, False)
            sa, sw = _C.take_rows(ta, order), _C.take_rows(tw, order)
            cw = _C.concatenate([zero, _C.astype(_C.cumsum(sw), wt)], 0)
            bi = _C.concatenate([_C.searchsorted(sa, lo_edges, False, None), _C.searchsorted(sa, hi_edge, True, None)], 0)
            cum = _C.add(cum, _C.take_rows(cw, bi))
        hist = _C.subtract(cum[1:], cum[:-1])
    elif w is not None and _np.dtype(w.dtype).kind == "c":
        # NumPy counts complex weights as two real bincounts, n.real + 1j * n.imag, in the
        # weights' dtype (the bincount kernel takes real weights only)
        wt = _np.dtype(w.dtype)
        hist = _C.add(_C.astype(_C.bincount(idx_in, w.real, nb), wt),
                      _C.multiply(_C.astype(_C.bincount(idx_in, w.imag, nb), wt), wt.type(1j)))
    else:
        hist = _C.bincount(idx_in, w, nb)
    if w_all is not None and _np.dtype(hist.dtype) != _np.dtype(w_all.dtype):
        hist = _C.astype(hist, w_all.dtype)  # NumPy's counts have the weights' dtype (uint32 weights: uint32)
    try:  # NumPy's `if density:` (an empty or several-element array is the ambiguous-truth ValueError)
        density = bool(density)
    except ValueError as e:
        from .errors import AscendValueError, ErrorCode  # noqa: PLC0415

        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[histogram] density: {e}") from None
    if density:
        # NumPy's order: n / float64(diff(edges)) / n.sum() (rounds differently from n / sum / width)
        widths = _C.astype(_C.subtract(edges[1:], edges[:-1]), _np.float64, True)
        hist = _C.true_divide(_C.true_divide(hist, widths), _C.sum(hist))
    return hist, edges


__all__ = [
    "sort", "argsort", "sort_complex", "partition", "argpartition", "searchsorted", "nonzero", "flatnonzero",
    "argwhere",
    "where", "count_nonzero", "unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "isin", "bincount", "digitize", "histogram",
]


def _sort_method_axis(axis):
    """ndarray.sort's axis as its argument parser reads it: a C int (a bool is 0/1, a float
    "integer argument expected", beyond a C long / a C int OverflowError) -- the same parse as
    trace's and diagonal's method arguments, one implementation (_linalg_products._c_int_arg)."""
    from ._linalg_products import _c_int_arg  # noqa: PLC0415  (import cycle at module load)

    return _c_int_arg("sort", "axis", axis)


def _install_methods():
    """ndarray methods that forward to the functions above (NumPy's method forms)."""
    nd = _C.ndarray

    def _sort_inplace(self, axis=-1, kind=None, order=None, *, stable=None):
        if axis is None:  # NumPy's method reads the axis as an int (no flattened in-place sort)
            raise TypeError("[sort] 'NoneType' object cannot be interpreted as an integer (axis)")
        # (NumPy's argument parser converts the axis -- a tuple is its TypeError -- before the
        # read-only check of PyArray_Sort)
        axis = _sort_method_axis(axis)
        _check_kind(kind, stable)
        _check_order(order)
        _C._check_writeable(self, "sort", "sort array is read-only")
        self[...] = _C.sort(self, axis, False)

    def _argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        return argsort(self, axis, kind, order, stable=stable)

    def _searchsorted(self, v, side="left", sorter=None):
        return searchsorted(self, v, side, sorter)

    def _partition_inplace(self, kth, axis=-1, kind="introselect", order=None):
        _C._check_writeable(self, "partition", "partition array is read-only")
        if axis is None:  # in place there is no flattened result: NumPy's method wants an int
            raise TypeError("partition: 'NoneType' object cannot be interpreted as an integer")
        self[...] = partition(self, kth, axis, kind, order)

    def _argpartition(self, kth, axis=-1, kind="introselect", order=None):
        return argpartition(self, kth, axis, kind, order)

    for name, fn in (("sort", _sort_inplace), ("argsort", _argsort), ("searchsorted", _searchsorted),
                     ("nonzero", nonzero), ("partition", _partition_inplace), ("argpartition", _argpartition)):
        fn.__name__ = name
        setattr(nd, name, fn)


_install_methods()
del _builtins
