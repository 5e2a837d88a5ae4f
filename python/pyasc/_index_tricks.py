"""NumPy's ``lib/_index_tricks_impl`` names: ``ix_``, ``unravel_index``,
``ravel_multi_index``, ``diag_indices``/``diag_indices_from``,
``fill_diagonal``, ``ndindex``, ``ndenumerate``, the grids ``mgrid``/``ogrid``
(index grids scaled on the device), the concatenators ``r_``/``c_`` and NumPy's
``s_``/``index_exp`` (which build index tuples only). Index arithmetic runs as
device ops on pyasc integer arrays. Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator

import numpy as _np

from . import _C
from . import _namespace as _ns
from . import _signatures as _sig
from . import _sorting as _srt
from ._fromnumeric import resize
from ._helpers import _INTP, _TE, _VE, _arr, _bshape

__all__ = [
    "ix_", "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from", "fill_diagonal", "ndindex",
    "ndenumerate", "mgrid", "ogrid", "s_", "index_exp", "r_", "c_",
]


def ix_(*args):
    """Open-mesh index arrays for cross indexing, ``a[ix_(rows, cols)]`` (``numpy.ix_``)."""
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if not isinstance(new, _C.ndarray):
            h = _np.asarray(new)
            if h.size == 0:
                h = h.astype(_np.intp)
            new = _C.array(h)
        if new.ndim != 1:
            raise _VE(f"[ix_] Cross index must be 1 dimensional, got shape {new.shape}")
        if new.dtype == _np.bool_:
            new = _srt.nonzero(new)[0]
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


def _int_index_array(x, name):
    x = _arr(x)
    if x.dtype.kind not in "biu":  # NumPy casts the indices to intp 'same_kind': bools too, never floats
        raise _TE(f"[{name}] only int indices permitted, got {x.dtype}")
    return x.astype(_np.int64)


def _check_dims(dims, name):
    # NumPy's PyArray_IntpConverter (an integer array is a sequence of dimensions; a float, an
    # entry past intp or more than 64 entries refused; a huge broadcast view never iterated)
    dims = _sig.intp_tuple(name, dims, "dims")
    if _builtins.any(d < 0 for d in dims):
        raise _VE(f"[{name}] dimensions must be non-negative, got {dims}")
    return dims


def unravel_index(indices, shape, order="C"):
    """Flat indices to a tuple of coordinate arrays for ``shape`` (``numpy.unravel_index``)."""
    # NumPy's order: the argument converters (the shape, then the order), the indices' dtype, then
    # the dimensions' signs (NumPy's own error there is its bounds check against a negative size)
    # (the order converter takes any order letter: 'K'/'A' are refused after the indices' dtype)
    shape = _sig.intp_tuple("unravel_index", shape, "dims")
    _sig.check_order("unravel_index", order)
    total = 1  # NumPy's PyArray_OverflowMultiplyList, before the indices are looked at
    for d in shape:
        if d == 0:
            total = 0
            break
        total *= d
        if not -(1 << 63) <= total < (1 << 63):
            raise _VE("[unravel_index] dimensions are too large; arrays and shapes with a total size greater than "
                      f"'intp' are not supported (shape {shape})")
    if total == -1:  # (-1 is NumPy's overflow sentinel: a product of exactly -1, shape (-1,), reads as one)
        raise _VE("[unravel_index] dimensions are too large; arrays and shapes with a total size greater than "
                  f"'intp' are not supported (shape {shape})")
    idx = _int_index_array(indices, "unravel_index")
    order = _sig.check_order("unravel_index", order, "CF") or "C"
    if not shape and idx.ndim:
        raise _VE("[unravel_index] multiple indices are not supported for 0d arrays")
    if idx.size and (int(_C.min(idx)) < 0 or int(_C.max(idx)) >= total):
        bad = int(_C.min(idx)) if int(_C.min(idx)) < 0 else int(_C.max(idx))
        raise _VE(f"[unravel_index] index {bad} is out of bounds for array with size {total}")
    if idx.size:  # (NumPy's C division by a negative dimension gives meaningless coordinates: refused)
        _check_dims(shape, "unravel_index")
    out = [None] * len(shape)
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    rest = idx
    for d in dims:
        n = shape[d]
        out[d] = _C.remainder(rest, n)
        rest = _C.floor_divide(rest, n)
    return tuple(o.astype(_INTP) for o in out)


def _int_clip_mode(md):
    """One clip mode as PyArray_ClipmodeConverter reads it: a str as it is (checked by the
    caller), an int 0/1/2 as 'clip'/'wrap'/'raise' (another C int is its ValueError), anything
    else "clipmode not understood" (TypeError)."""
    if isinstance(md, str):
        return md
    m = _sig.clip_mode("ravel_multi_index", md)
    if m == "invalid":
        raise _sig.int_mode_error("ravel_multi_index")
    return m


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Coordinate arrays to flat indices for ``dims`` (``numpy.ravel_multi_index``)."""
    # NumPy's argument converters run in order: the dims, the mode(s), the order; then the lengths
    # (a negative dimension is no converter error in NumPy: its loop then finds every coordinate
    # out of range -- after the coordinates' dtype check)
    dims = _sig.intp_tuple("ravel_multi_index", dims, "dims")
    # (PyArray_ConvertClipmodeArray: a tuple or list holds one mode per dimension, anything else
    # is one mode -- an array is "clipmode not understood", not a sequence of modes)
    _sig.check_order("ravel_multi_index", order)  # (the parser's order converter, before the modes)
    modes = tuple(mode) if isinstance(mode, (tuple, list)) else (mode,) * len(dims)
    if not isinstance(mode, (tuple, list)):
        modes = (_int_clip_mode(mode),) * len(dims)
    else:
        modes = tuple(_int_clip_mode(md) for md in modes)
    for md in modes:
        if isinstance(md, str) and md not in ("raise", "wrap", "clip"):
            raise _VE(f"[ravel_multi_index] clipmode must be one of 'clip', 'raise', or 'wrap' (got {md!r})")
    if len(modes) != len(dims):
        raise _VE(f"[ravel_multi_index] list of clipmodes has wrong length ({len(modes)} instead of {len(dims)})")
    order = _sig.check_order("ravel_multi_index", order, "CF") or "C"
    if len(multi_index) != len(dims):
        raise _VE(f"[ravel_multi_index] parameter multi_index must be a sequence of length {len(dims)}")
    total = 1
    for d in dims:
        total *= d
    if total > _np.iinfo(_np.intp).max and _builtins.all(d >= 0 for d in dims):
        raise _VE("[ravel_multi_index] invalid dims: array size defined by dims is larger than the "
                         "maximum possible size.")
    coords = [_int_index_array(m, "ravel_multi_index") for m in multi_index]
    if _builtins.any(d < 0 for d in dims) and (_builtins.any(md != "raise" for md in modes) or
                                               _builtins.all(c.size == 0 for c in coords)):
        raise _VE(f"[ravel_multi_index] dimensions must be non-negative, got {dims}")
    shp = _bshape("ravel_multi_index", *[c.shape for c in coords]) if coords else ()
    strides = [1] * len(dims)
    order_dims = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for i in order_dims:
        j = i + 1 if order == "C" else i - 1
        strides[i] = strides[j] * dims[j]
    res = _C.full(shp, 0, _np.int64)
    for c, n, md, s in zip(coords, dims, modes, strides):
        if md == "raise":
            if c.size and (int(_C.min(c)) < 0 or int(_C.max(c)) >= n):
                raise _VE(f"[ravel_multi_index] invalid entry in coordinates array (dimension size {n})")
        elif md == "wrap":
            c = _C.remainder(c, n) if n else c
        elif md == "clip":
            c = _ns.clip(c, 0, _builtins.max(n - 1, 0))
        else:
            raise _VE(f"[ravel_multi_index] clipmode must be one of 'clip', 'raise', or 'wrap', got {md!r}")
        res = _C.add(res, _C.multiply(c, s))
    return res.astype(_INTP)


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``n``-cube of ``ndim`` dims (``numpy.diag_indices``)."""
    idx = _C.array(_np.arange(n))
    return (idx,) * ndim


def diag_indices_from(arr):
    """``diag_indices`` for an array whose dims are all equal (``numpy.diag_indices_from``)."""
    arr = _arr(arr)
    if arr.ndim < 2:
        raise _VE(f"[diag_indices_from] input array must be at least 2-d, got shape {arr.shape}")
    if len(set(arr.shape)) != 1:
        raise _VE(f"[diag_indices_from] All dimensions of input must be of equal length, got {arr.shape}")
    return diag_indices(arr.shape[0], arr.ndim)


def fill_diagonal(a, val, wrap=False):
    """Writes ``val`` (cycled) onto the main diagonal of ``a`` in place (``numpy.fill_diagonal``)."""
    if not isinstance(a, _C.ndarray):
        raise _TE("[fill_diagonal] a must be a pyasc ndarray (it is modified in place)")
    if a.ndim < 2:
        raise _VE(f"[fill_diagonal] array must be at least 2-d, got shape {a.shape}")
    if a.ndim == 2:
        nrow, ncol = a.shape
        end = nrow * ncol if wrap else _builtins.min(ncol * ncol, nrow * ncol)
        p = _np.arange(0, end, ncol + 1)
        idx = (_C.array(p // ncol), _C.array(p % ncol)) if ncol else (_C.array(p), _C.array(p))
    else:
        if len(set(a.shape)) != 1:
            raise _VE(f"[fill_diagonal] All dimensions of input must be of equal length, got {a.shape}")
        idx = diag_indices(a.shape[0], a.ndim)
    count = idx[0].size
    if count == 0:
        return None
    # a.flat[...] = val in NumPy: an unsafe cast, values cycled
    v = val.astype(a.dtype) if isinstance(val, _C.ndarray) else _C.array(_np.asarray(val).astype(a.dtype))
    a[idx] = resize(v, (count,))
    return None


class ndindex(_np.ndindex):  # noqa: N801 - NumPy's name
    """An iterator over the index tuples of a shape (``numpy.ndindex``)."""


class ndenumerate:  # noqa: N801 - NumPy's name
    """An iterator of ``(index, value)`` pairs over an array (``numpy.ndenumerate``)."""

    def __init__(self, arr):
        self._it = _np.ndenumerate(_arr(arr).numpy())

    def __iter__(self):
        return self

    def __next__(self):
        """The next ``(index, value)`` pair."""
        return next(self._it)


s_ = _np.s_  # builds slices/tuples for indexing; no arrays involved
index_exp = _np.index_exp


def _grid_step(k):
    """(start, number of points, scale) of one grid slice, as NumPy's nd_grid reads it."""
    start = 0 if k.start is None else k.start
    step = 1 if k.step is None else k.step
    if isinstance(step, (complex, _np.complexfloating)):
        num = int(abs(step))
        return start, num, (k.stop - start) / float(num - 1) if num != 1 else 1, abs(step)
    return start, int(_np.ceil((k.stop - start) / step)), step, step


class _NdGrid:
    """``mgrid`` (dense) / ``ogrid`` (sparse): ``grid[a:b:s, ...]`` as NumPy's nd_grid; a complex
    step ``nj`` means n points from a to b inclusive."""

    def __init__(self, sparse):
        self._sparse = sparse

    def __getitem__(self, key):
        single = isinstance(key, slice)
        keys = (key,) if single else tuple(key)
        for k in keys:
            if not isinstance(k, slice):
                raise _TE(f"[{'ogrid' if self._sparse else 'mgrid'}] needs slices, got {type(k).__name__}")
        parts = [_grid_step(k) for k in keys]
        if single:
            start, num, scale, raw = parts[0]
            if isinstance(keys[0].step, (complex, _np.complexfloating)):
                typ = _np.result_type(start, keys[0].stop, raw)
                return _C.add(_C.multiply(_C.array(_np.arange(0, num, 1, dtype=typ)), scale), start)
            return _C.array(_np.arange(start, keys[0].stop, raw))
        typ = _np.result_type(*[v for k, (st, _, _, raw) in zip(keys, parts) for v in (st, k.stop, raw)])
        sizes = [max(num, 0) for _, num, _, _ in parts]
        out = []
        for i, (start, _, scale, _) in enumerate(parts):
            shape = [1] * len(sizes)
            shape[i] = sizes[i]
            idx = _C.reshape(_C.array(_np.arange(sizes[i], dtype=typ)), tuple(shape))
            g = _C.astype(_C.add(_C.multiply(idx, scale), start), typ)
            out.append(g if self._sparse else _C.broadcast_to(g, tuple(sizes)))
        if self._sparse:
            return tuple(out)
        from . import _manipulation as _man

        return _man.stack(out) if out else _C.empty((0,), typ)

    def __repr__(self):
        return "pyasc.ogrid" if self._sparse else "pyasc.mgrid"


mgrid = _NdGrid(False)
ogrid = _NdGrid(True)


def _ndmin(x, n):
    return _C.reshape(x, (1,) * (n - x.ndim) + tuple(x.shape)) if x.ndim < n else x


class _Concatenator:
    """``r_`` / ``c_``: NumPy's AxisConcatenator. Items are slices (``a:b:s`` an arange, ``a:b:nj``
    n points from a to b inclusive), scalars, arrays; a leading string sets the axis, or
    'axis,ndmin[,trans1d]'. The pieces share NumPy's result dtype (Python scalars weak) and are
    concatenated on the device. The matrix directives ('r', 'c', a bmat string) are not supported:
    pyasc has no matrix class."""

    def __init__(self, name, axis, ndmin, trans1d):
        self._name, self._axis, self._ndmin, self._trans1d = name, axis, ndmin, trans1d

    def __getitem__(self, key):
        from . import _manipulation as _man
        from . import _numerictypes as _nt

        name = self._name
        if isinstance(key, str):
            raise _TE(f"[{name}] the matrix-builder string form needs numpy.matrix, which pyasc does not have")
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self._axis, self._ndmin, self._trans1d
        objs, rtype = [], []
        for k, item in enumerate(key):
            if isinstance(item, str):
                if k != 0:
                    raise _VE(f"[{name}] special directives must be the first entry.")
                if item in ("r", "c"):
                    raise _TE(f"[{name}] the matrix directive {item!r} needs numpy.matrix, which pyasc does not have")
                try:
                    vals = [int(v) for v in item.split(",")]
                except ValueError:
                    raise _VE(f"[{name}] unknown special directive {item!r}") from None
                if len(vals) == 1:
                    axis = vals[0]
                elif len(vals) in (2, 3):
                    axis, ndmin = vals[:2]
                    if len(vals) == 3:
                        trans1d = vals[2]
                else:
                    raise _VE(f"[{name}] unknown special directive {item!r}")
                continue
            if isinstance(item, slice):
                start = 0 if item.start is None else item.start
                step = 1 if item.step is None else item.step
                if isinstance(step, (complex, _np.complexfloating)):
                    obj = _ns.linspace(start, item.stop, int(abs(step)))
                else:
                    obj = _C.array(_np.arange(start, item.stop, step))
                if ndmin > 1:
                    obj = _ndmin(obj, ndmin)
                    if trans1d != -1:
                        obj = _ns.swapaxes(obj, -1, trans1d)
                rtype.append(obj)
            elif type(item) in _nt.ScalarType:
                obj = item
                rtype.append(item)
            else:
                obj = _arr(item)
                nd = obj.ndim
                obj = _ndmin(obj, ndmin)
                if trans1d != -1 and nd < ndmin:
                    k2 = ndmin - nd
                    k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                    axes = list(range(ndmin))
                    obj = _C.transpose(obj, tuple(axes[:k1] + axes[k2:] + axes[k1:k2]))
                rtype.append(obj)
            objs.append(obj)
        if not objs:
            raise _VE(f"[{name}] need at least one array to concatenate")
        dt = _ns.result_type(*rtype)
        parts = [_ndmin(_C.full((), o, dt) if not isinstance(o, _C.ndarray) else _C.astype(o, dt), ndmin)
                 for o in objs]
        return _man.concatenate(parts, axis=axis)

    def __len__(self):
        return 0


r_ = _Concatenator("r_", 0, 1, -1)
c_ = _Concatenator("c_", -1, 2, 0)
